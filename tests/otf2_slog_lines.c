/* SPDX-License-Identifier: MIT
 *
 * otf2_slog_lines.c - test helper for tests/otf2_corpus.sh: prints what a
 * libslog file holds, through the public reader API.
 *   otf2_slog_lines --counts FILE   "states N events N arrows N counters N complete B"
 *   otf2_slog_lines --lines FILE    one canonical line per drawable, sorted by the
 *                                   caller: timelines by their own name, arrows
 *                                   by their ends and times only (what an OTF2
 *                                   round trip keeps; see doc/IMPORT-OTF2.md)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slog/slog.h>

static const char *tl_name(slog_reader *r, uint32_t id)
{
    static slog_timeline_info ti;
    return slog_reader_timeline(r, id, &ti) == SLOG_OK ? ti.name : "?";
}

static void print_cat(slog_reader *r, uint32_t id)
{
    slog_category_info ci;
    if (slog_reader_category(r, id, &ci) == SLOG_OK) {
        (void)printf("%s(%s)", ci.name, ci.group);
    } else {
        (void)printf("?");
    }
}

static void print_args(const slog_arg *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        (void)printf("%s%s=", i ? "," : "|", a[i].key);
        switch (a[i].type) {
        case SLOG_ARG_INT:
            (void)printf("%lld", (long long)a[i].v.i);
            break;
        case SLOG_ARG_UINT:
            (void)printf("%llu", (unsigned long long)a[i].v.u);
            break;
        case SLOG_ARG_DOUBLE:
            (void)printf("%.17g", a[i].v.d);
            break;
        case SLOG_ARG_BOOL:
            (void)printf("%d", a[i].v.b ? 1 : 0);
            break;
        default:
            (void)printf("%s", a[i].v.s);
            break;
        }
    }
}

static int print_lines(slog_reader *r)
{
    slog_query_options qo = SLOG_QUERY_OPTIONS_INIT;
    qo.flags = SLOG_QUERY_ARGS;
    qo.t0 = INT64_MIN;
    qo.t1 = INT64_MAX;
    slog_query *q;
    slog_error e;
    if (slog_query_create(&q, r, &qo, &e) != SLOG_OK) {
        (void)fprintf(stderr, "otf2_slog_lines: %s\n", e.message);
        return 1;
    }
    const slog_item *it;
    int rc;
    while ((rc = slog_query_next(q, &it, &e)) == SLOG_OK) {
        switch (it->kind) {
        case SLOG_KIND_STATE:
            (void)printf("S|%s|", tl_name(r, it->u.state.timeline));
            print_cat(r, it->u.state.category);
            (void)printf("|%lld|%lld|%u", (long long)it->u.state.start, (long long)it->u.state.end,
                         it->u.state.depth);
            print_args(it->u.state.args, it->u.state.nargs);
            break;
        case SLOG_KIND_EVENT:
            (void)printf("E|%s|", tl_name(r, it->u.event.timeline));
            print_cat(r, it->u.event.category);
            (void)printf("|%lld", (long long)it->u.event.time);
            print_args(it->u.event.args, it->u.event.nargs);
            break;
        case SLOG_KIND_ARROW:
            (void)printf("A|%s|", tl_name(r, it->u.arrow.from));
            (void)printf("%s|%lld|%lld", tl_name(r, it->u.arrow.to), (long long)it->u.arrow.start,
                         (long long)it->u.arrow.end);
            break;
        case SLOG_KIND_COUNTER:
            (void)printf("C|%s|", tl_name(r, it->u.counter.timeline));
            print_cat(r, it->u.counter.category);
            (void)printf("|%lld|%.17g", (long long)it->u.counter.time, it->u.counter.value);
            break;
        default:
            break;
        }
        (void)printf("\n");
    }
    slog_query_destroy(q);
    if (rc != SLOG_END) {
        (void)fprintf(stderr, "otf2_slog_lines: %s\n", e.message);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--counts") != 0 && strcmp(argv[1], "--lines") != 0)) {
        (void)fprintf(stderr, "usage: otf2_slog_lines --counts|--lines FILE\n");
        return 2;
    }
    slog_reader *r;
    slog_error e;
    if (slog_reader_open(&r, argv[2], NULL, &e) != SLOG_OK) {
        (void)fprintf(stderr, "otf2_slog_lines: %s: %s\n", argv[2], e.message);
        return 1;
    }
    int rc = 0;
    if (strcmp(argv[1], "--counts") == 0) {
        const slog_file_info *const fi = slog_reader_info(r);
        (void)printf("states %llu events %llu arrows %llu counters %llu complete %d\n",
                     (unsigned long long)fi->states, (unsigned long long)fi->events,
                     (unsigned long long)fi->arrows, (unsigned long long)fi->counters,
                     fi->complete);
    } else {
        rc = print_lines(r);
    }
    slog_reader_destroy(r);
    return rc;
}
