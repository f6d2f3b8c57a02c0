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
#define PROGRESS_LABEL     40 /* bytes of the label shown */

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

/* A long label keeps its end, where a path's file name is: "..." and the
 * last bytes, from the start of a UTF-8 character. */
void progress_label(progress *p, const char *label)
{
    size_t n = strlen(label);
    if (n <= PROGRESS_LABEL) {
        memcpy(p->label, label, n + 1);
        return;
    }
    const char *tail = label + n - (PROGRESS_LABEL - 3);
    while (((unsigned char)*tail & 0xC0u) == 0x80u) {
        tail++;
    }
    (void)snprintf(p->label, sizeof p->label, "...%s", tail);
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
        (void)fprintf(p->out, "\r%s [%s] %3u%% %.1f MiB/s\033[K", p->label, bar,
                      (unsigned)(capped * 100 / total), rate);
    } else {
        (void)fprintf(p->out, "\r%s %.1f MiB %.1f MiB/s\033[K", p->label, mib, rate);
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
