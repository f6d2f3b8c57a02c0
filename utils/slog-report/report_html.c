/* SPDX-License-Identifier: MIT
 *
 * report_html.c - the escaping and formatting every section of the page
 * uses (the page itself is report_page.c): text goes through html_text (markup characters as
 * entities, control characters and invalid UTF-8 as U+FFFD, so a hostile
 * name can neither open a tag nor break the encoding), and data for the
 * scripts goes into <script type="application/json"> with '<', '>' and
 * '&' as \u escapes, so no name can close the script element.
 * Tools layer: public libslog headers and utils/common only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_assets.h"
#include "units.h"

/* Length of the UTF-8 sequence a lead byte starts (1..4), or 0 for a byte
 * that cannot start one. */
static size_t utf8_lead_length(unsigned char c)
{
    if (c < 0x80) {
        return 1;
    }
    if (c < 0xc2) {
        return 0;
    }
    return c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
}

/* Length of the valid UTF-8 sequence at @p s (1..4), or 0. */
static size_t utf8_length(const unsigned char *s)
{
    const size_t n = utf8_lead_length(s[0]);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0; /* also stops at the terminating NUL */
        }
    }
    /* overlong 3- and 4-byte forms, UTF-16 surrogates, above U+10FFFF */
    const bool bad = (s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
                     (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf4 && s[1] >= 0x90);
    return n > 0 && !bad ? n : 0;
}

static const char *entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&#39;";
    default:
        return NULL;
    }
}

void html_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
    while (*p != '\0') {
        const char *e = entity(*p);
        const size_t n = utf8_length(p);
        if (e != NULL) {
            (void)fputs(e, f);
        } else if (n == 0 || *p < 0x20 || *p == 0x7f) {
            (void)fputs("\xef\xbf\xbd", f); /* U+FFFD */
        } else {
            (void)fwrite(p, 1, n, f);
        }
        p += n > 0 ? n : 1;
    }
}

int64_t report_ticks_to_ns(const report *rp, int64_t ticks)
{
    return units_ticks_to_ns(ticks, rp->fi.ticks_per_second > 0 ? rp->fi.ticks_per_second : 1);
}

void html_duration(FILE *f, const report *rp, int64_t ticks)
{
    char buf[48];
    (void)fputs(units_format_duration(report_ticks_to_ns(rp, ticks), buf, sizeof buf), f);
}

/* A count with thin spaces between thousands ("1 234 567"). */
void html_count(FILE *f, uint64_t n)
{
    char digits[32];
    const int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            (void)fputs("\xe2\x80\x89", f); /* U+2009 thin space */
        }
        (void)fputc(digits[i], f);
    }
}

void html_section_begin(FILE *f, const char *id, const char *title)
{
    (void)fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
}

const char *report_timeline_name(const report *rp, uint32_t id)
{
    if (id < rp->tl.n && rp->tl.info[id].name != NULL) {
        return rp->tl.info[id].name;
    }
    return "?";
}

const char *report_timeline_path(const report *rp, uint32_t id, char *buf, size_t len)
{
    const uint32_t parent = id < rp->tl.n ? rp->tl.info[id].parent : SLOG_NO_PARENT;
    if (parent < rp->tl.n && parent != id) {
        (void)snprintf(buf, len, "%s / %s", report_timeline_name(rp, parent),
                       report_timeline_name(rp, id));
    } else {
        (void)snprintf(buf, len, "%s", report_timeline_name(rp, id));
    }
    return buf;
}

const char *report_category_name(const report *rp, uint32_t id)
{
    if (id == SLOG_CATEGORY_OTHER) {
        return "(other)";
    }
    if (id < rp->fi.categories && rp->cats[id].name != NULL) {
        return rp->cats[id].name;
    }
    return "?";
}

void report_color_hex(uint32_t rgba, char out[8])
{
    (void)snprintf(out, 8, "#%06x", (unsigned)(rgba >> 8) & 0xffffffu);
}

/* Copy JSON text to the page so that it cannot end the script element. */
static void write_script_safe(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '<' || c == '>' || c == '&') {
            (void)fprintf(f, "\\u%04x", c);
        } else {
            (void)fputc(c, f);
        }
    }
}

int report_write_json_script(FILE *f,
                             const char *id,
                             const report *rp,
                             void (*body)(const report *rp, FILE *mem))
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL) {
        return -1;
    }
    body(rp, mem);
    if (fclose(mem) != 0 || text == NULL) {
        free(text);
        return -1;
    }
    (void)fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
    write_script_safe(f, text, len);
    (void)fputs("</script>\n", f);
    free(text);
    return 0;
}

void html_td_count(FILE *f, uint64_t n)
{
    (void)fprintf(f, "<td class=\"num\" data-v=\"%" PRIu64 "\">", n);
    html_count(f, n);
    (void)fputs("</td>", f);
}

void html_td_share(FILE *f, double share)
{
    const double pct = 100.0 * share;
    const double w = pct < 0.0 ? 0.0 : pct > 100.0 ? 100.0 : pct;
    (void)fprintf(f,
                  "<td class=\"num\" data-v=\"%.6f\"><span class=\"bar\"><span style=\"width:%.1f%%"
                  "\"></span></span> %.1f%%</td>",
                  share, w, pct);
}

void html_td_duration(FILE *f, const report *rp, int64_t ticks)
{
    (void)fprintf(f, "<td class=\"num\" data-v=\"%" PRId64 "\">", report_ticks_to_ns(rp, ticks));
    html_duration(f, rp, ticks);
    (void)fputs("</td>", f);
}

void report_write_lines(FILE *f, const char *const *lines)
{
    for (size_t i = 0; lines[i] != NULL; i++) {
        (void)fputs(lines[i], f);
    }
}

void html_members_attr(FILE *f, const report *rp, uint32_t fold, uint32_t key)
{
    if (fold == 0) {
        (void)fprintf(f, " data-timeline=\"%" PRIu32 "\"", key);
        return;
    }
    if (rp->tl.n > REPORT_LISTED_TIMELINES) {
        return;
    }
    (void)fputs(" data-timelines=\"", f);
    const char *sep = "";
    for (uint32_t t = 0; t < rp->tl.n; t++) {
        if (slog_reader_fold_row(rp->r, t, fold) == key) {
            (void)fprintf(f, "%s%" PRIu32, sep, t);
            sep = ",";
        }
    }
    (void)fputc('"', f);
}
