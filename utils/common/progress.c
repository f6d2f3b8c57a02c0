/* SPDX-License-Identifier: MIT
 *
 * progress.c - throttled progress bar: a monotonic clock check per update,
 * a redraw (carriage return + bar + rate) at most every 100 ms, and a
 * clearing sequence at the end.  Tools layer: libc only.
 */
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_PERIOD_NS 100000000ull
#define PROGRESS_WIDTH 30

static uint64_t progress_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool progress_default_enabled(bool quiet, bool json)
{
    return !quiet && !json && isatty(STDERR_FILENO) == 1;
}

void progress_init(progress *p, FILE *out, bool enabled)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->enabled = enabled;
    p->start_ns = progress_now_ns();
}

void progress_label(progress *p, const char *label)
{
    size_t n = strlen(label);
    if (n >= sizeof p->label) {
        n = sizeof p->label - 1;
    }
    memcpy(p->label, label, n);
    p->label[n] = '\0';
}

void progress_update(progress *p, uint64_t done, uint64_t total)
{
    if (!p->enabled) {
        return;
    }
    const uint64_t now = progress_now_ns();
    if (p->drawn && now - p->last_ns < PROGRESS_PERIOD_NS) {
        return;
    }
    p->last_ns = now;
    const double secs = (double)(now - p->start_ns) / 1e9;
    const double mib = (double)done / (1024.0 * 1024.0);
    const double rate = secs > 0 ? mib / secs : 0.0;
    if (total > 0) {
        const uint64_t capped = done > total ? total : done;
        const unsigned fill = (unsigned)(capped * PROGRESS_WIDTH / total);
        char bar[PROGRESS_WIDTH + 1];
        memset(bar, '#', fill);
        memset(bar + fill, '.', PROGRESS_WIDTH - fill);
        bar[PROGRESS_WIDTH] = '\0';
        (void)fprintf(p->out, "\r%.40s [%s] %3u%% %.1f MiB/s\033[K", p->label, bar,
                      (unsigned)(capped * 100 / total), rate);
    } else {
        (void)fprintf(p->out, "\r%.40s %.1f MiB %.1f MiB/s\033[K", p->label, mib, rate);
    }
    (void)fflush(p->out);
    p->drawn = true;
}

void progress_end(progress *p)
{
    if (p->drawn) {
        (void)fputs("\r\033[K", p->out);
        (void)fflush(p->out);
        p->drawn = false;
    }
}
