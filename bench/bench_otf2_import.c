/* SPDX-License-Identifier: MIT
 *
 * bench_otf2_import.c - issue 4 item 8: OTF2 import speed and memory.
 * Generates an OTF2 archive of at least --events records with libotf2's
 * writer (MPI ranks with nested regions, a message per iteration between
 * rank pairs, a two-member metric every 8th iteration, on a 2.5 GHz clock),
 * then alternates, --reps times each, two measurements in forked children:
 *   bare:   libotf2's global event reader over all locations, callbacks that
 *           only count (the floor for any OTF2 consumer);
 *   import: the otf2 importer of the import library writing a libslog
 *           file, once per writer configuration of --writers:
 *             default     slog_writer's defaults (no time bins, synchronous)
 *             background  no time bins, the file built on the writer's thread
 *             import      what slog-import and the import library use when
 *                         they create the file: time bins, background
 *             import-sync time bins, synchronous
 *             one-thread, background-one-thread
 *                         default and background with the records mapped
 *                         on the reading thread (SLOG_IMPORT_OTF2_ONE_THREAD;
 *                         the others map them on a second thread)
 * Reports the median wall time, events/s, peak RSS (wait4 of each child)
 * and the import/bare ratios, per configuration.
 *   bench_otf2_import [--events N] [--locations L] [--reps R] [--dir DIR]
 *                     [--writers default,background,import] [--keep]
 */
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slog/slog.h>

#include <slog/slog_import.h>

/* ---- what the import reports (options' callbacks) ------------------------ */

static void on_count(const char *what, slog_import_outcome outcome, uint64_t n, void *user)
{
    (void)what;
    if (outcome == SLOG_IMPORT_IMPORTED) {
        *(uint64_t *)user += n;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- archive generation ---------------------------------------------------- */

static OTF2_FlushType
pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)ud, (void)ft, (void)loc, (void)caller, (void) final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)ud, (void)ft, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

static void check(OTF2_ErrorCode e, const char *what)
{
    if (e != OTF2_SUCCESS) {
        (void)fprintf(stderr, "bench_otf2_import: %s failed: %s\n", what,
                      OTF2_Error_GetDescription(e));
        exit(1);
    }
}

#define CHECK(call) check((call), #call)

/* One location's records: `iters` iterations of 100 ticks each. */
static void write_location(OTF2_EvtWriter *w, uint32_t l, uint32_t nloc, uint64_t iters)
{
    const OTF2_Type types[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
    for (uint64_t i = 0; i < iters; i++) {
        const uint64_t t = 1000000 + i * 100;
        CHECK(OTF2_EvtWriter_Enter(w, NULL, t, 0));
        CHECK(OTF2_EvtWriter_Enter(w, NULL, t + 10, 1));
        if (l % 2 == 0 && l + 1 < nloc) {
            CHECK(OTF2_EvtWriter_MpiSend(w, NULL, t + 20, l + 1, 0, (uint32_t)(i % 8), 1024));
        } else if (l % 2 == 1) {
            CHECK(OTF2_EvtWriter_MpiRecv(w, NULL, t + 30, l - 1, 0, (uint32_t)(i % 8), 1024));
        }
        CHECK(OTF2_EvtWriter_Leave(w, NULL, t + 40, 1));
        CHECK(OTF2_EvtWriter_Leave(w, NULL, t + 50, 0));
        if (i % 8 == 0) {
            OTF2_MetricValue v[2];
            v[0].unsigned_int = i;
            v[1].floating_point = (double)i * 0.5;
            CHECK(OTF2_EvtWriter_Metric(w, NULL, t + 60, 0, 2, types, v));
        }
    }
}

static void
write_definitions(OTF2_GlobalDefWriter *g, uint32_t nloc, const uint64_t *nevents, uint64_t iters)
{
    static const char *const strings[] = {
        "",       "bench", "machine", "node0", "node",  "iteration", "compute", "MPI_COMM_WORLD",
        "cycles", "load",  "#",       "rank",  "thread"};
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(g, 2500000000u, 1000000, iters * 100, 0));
    for (uint32_t s = 0; s < sizeof strings / sizeof strings[0]; s++) {
        CHECK(OTF2_GlobalDefWriter_WriteString(g, s, strings[s]));
    }
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, 3, 4, 0));
    for (uint32_t l = 0; l < nloc; l++) {
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(g, l, 11, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                      OTF2_UNDEFINED_LOCATION_GROUP));
    }
    for (uint32_t l = 0; l < nloc; l++) {
        CHECK(OTF2_GlobalDefWriter_WriteLocation(g, l, 12, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 nevents[l], l));
    }
    CHECK(OTF2_GlobalDefWriter_WriteRegion(g, 0, 5, 5, 0, OTF2_REGION_ROLE_LOOP, OTF2_PARADIGM_USER,
                                           OTF2_REGION_FLAG_NONE, 0, 0, 0));
    CHECK(OTF2_GlobalDefWriter_WriteRegion(g, 1, 6, 6, 0, OTF2_REGION_ROLE_FUNCTION,
                                           OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0));
    uint64_t *const members = malloc(nloc * sizeof *members);
    for (uint32_t l = 0; l < nloc; l++) {
        members[l] = l;
    }
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nloc, members));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, nloc, members));
    free(members);
    CHECK(OTF2_GlobalDefWriter_WriteComm(g, 0, 7, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 8, 0, OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                                 OTF2_BASE_DECIMAL, 0, 10));
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 1, 9, 0, OTF2_METRIC_TYPE_OTHER,
                                                 OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE,
                                                 OTF2_BASE_DECIMAL, 0, 10));
    const OTF2_MetricMemberRef mm[2] = {0, 1};
    CHECK(OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 2, mm, OTF2_METRIC_ASYNCHRONOUS,
                                                OTF2_RECORDER_KIND_ABSTRACT));
}

/* Returns the number of event records written. */
static uint64_t generate(const char *dir, uint64_t want, uint32_t nloc)
{
    /* 4 + 1 + 1/8 records per iteration and location (the last odd rank has
     * no partner: 4 + 1/8) */
    const uint64_t iters = (uint64_t)((double)want / (nloc * 5.125)) + 1;
    OTF2_Archive *const ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 4 << 20, 4 << 20,
                                               OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) {
        (void)fprintf(stderr, "bench_otf2_import: cannot create %s/traces.otf2\n", dir);
        exit(1);
    }
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));
    uint64_t *const nevents = calloc(nloc, sizeof *nevents);
    uint64_t total = 0;
    for (uint32_t l = 0; l < nloc; l++) {
        OTF2_EvtWriter *const w = OTF2_Archive_GetEvtWriter(ar, l);
        write_location(w, l, nloc, iters);
        CHECK(OTF2_EvtWriter_GetNumberOfEvents(w, &nevents[l]));
        total += nevents[l];
        CHECK(OTF2_Archive_CloseEvtWriter(ar, w));
    }
    CHECK(OTF2_Archive_CloseEvtFiles(ar));
    CHECK(OTF2_Archive_OpenDefFiles(ar));
    for (uint32_t l = 0; l < nloc; l++) {
        OTF2_DefWriter *const dw = OTF2_Archive_GetDefWriter(ar, l);
        CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));
    write_definitions(OTF2_Archive_GetGlobalDefWriter(ar), nloc, nevents, iters);
    CHECK(OTF2_Archive_Close(ar));
    free(nevents);
    return total;
}

/* ---- the two measured runs ------------------------------------------------- */

static OTF2_CallbackCode
c_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al, OTF2_RegionRef r)
{
    (void)l, (void)t, (void)al, (void)r;
    ++*(uint64_t *)ud;
    return OTF2_CALLBACK_SUCCESS;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode c_p2p(OTF2_LocationRef l,
                               OTF2_TimeStamp t,
                               void *ud,
                               OTF2_AttributeList *al,
                               uint32_t peer,
                               OTF2_CommRef c,
                               uint32_t tag,
                               uint64_t len)
{
    (void)l, (void)t, (void)al, (void)peer, (void)c, (void)tag, (void)len;
    ++*(uint64_t *)ud;
    return OTF2_CALLBACK_SUCCESS;
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode c_metric(OTF2_LocationRef l,
                                  OTF2_TimeStamp t,
                                  void *ud,
                                  OTF2_AttributeList *al,
                                  OTF2_MetricRef m,
                                  uint8_t n,
                                  const OTF2_Type *types,
                                  const OTF2_MetricValue *v)
{
    (void)l, (void)t, (void)al, (void)m, (void)n, (void)types, (void)v;
    ++*(uint64_t *)ud;
    return OTF2_CALLBACK_SUCCESS;
}

/* libotf2 alone: global definitions, then every event through the global
 * reader with counting callbacks.  Returns the events read. */
static uint64_t bare_read(const char *anchor, uint32_t nloc)
{
    OTF2_Reader *const rd = OTF2_Reader_Open(anchor);
    uint64_t n = 0, events = 0;
    if (!rd) {
        exit(1);
    }
    CHECK(OTF2_Reader_SetSerialCollectiveCallbacks(rd));
    OTF2_GlobalDefReader *const gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *const dcb = OTF2_GlobalDefReaderCallbacks_New();
    CHECK(OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, dcb, NULL));
    CHECK(OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n));
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    CHECK(OTF2_Reader_CloseGlobalDefReader(rd, gdr));
    for (uint32_t l = 0; l < nloc; l++) {
        CHECK(OTF2_Reader_SelectLocation(rd, l));
    }
    CHECK(OTF2_Reader_OpenEvtFiles(rd));
    for (uint32_t l = 0; l < nloc; l++) {
        if (!OTF2_Reader_GetEvtReader(rd, l)) {
            exit(1);
        }
    }
    OTF2_GlobalEvtReader *const ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *const cb = OTF2_GlobalEvtReaderCallbacks_New();
    CHECK(OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, c_enter));
    CHECK(OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, c_enter));
    CHECK(OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, c_p2p));
    CHECK(OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, c_p2p));
    CHECK(OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, c_metric));
    CHECK(OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, &events));
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    CHECK(OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n));
    CHECK(OTF2_Reader_CloseGlobalEvtReader(rd, ger));
    CHECK(OTF2_Reader_CloseEvtFiles(rd));
    CHECK(OTF2_Reader_Close(rd));
    return events;
}

/* The writer configurations an import is measured with (--writers). */
typedef struct writer_config {
    const char *name;
    uint32_t flags;        /* the writer's */
    uint32_t import_flags; /* the import's */
} writer_config;

static const writer_config configs[] = {
    {"default", 0, 0},
    {"background", SLOG_WRITER_BACKGROUND, 0},
    {"import", SLOG_WRITER_TIME_BINS | SLOG_WRITER_BACKGROUND, 0},
    {"import-sync", SLOG_WRITER_TIME_BINS, 0},
    {"one-thread", 0, SLOG_IMPORT_OTF2_ONE_THREAD},
    {"background-one-thread", SLOG_WRITER_BACKGROUND, SLOG_IMPORT_OTF2_ONE_THREAD},
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

/* The importer into a libslog file.  Returns the records it imported. */
static uint64_t import_run(const char *anchor, const char *out, const writer_config *cfg)
{
    slog_writer *w;
    slog_error e;
    slog_writer_options wo = SLOG_WRITER_OPTIONS_INIT;
    wo.flags = cfg->flags;
    if (slog_writer_create(&w, out, &wo, &e) != SLOG_OK) {
        (void)fprintf(stderr, "bench_otf2_import: %s\n", e.message);
        exit(1);
    }
    uint64_t imported = 0;
    slog_import_options io = SLOG_IMPORT_OPTIONS_INIT;
    io.format = "otf2";
    io.flags = cfg->import_flags;
    io.count = on_count;
    io.user = &imported;
    const slog_import_input in = {.name = anchor};
    if (slog_import_into(NULL, w, &in, 1, &io, &e) != SLOG_OK ||
        slog_writer_finish(w, &e) != SLOG_OK) {
        (void)fprintf(stderr, "bench_otf2_import: import failed: %s\n", e.message);
        exit(1);
    }
    slog_writer_destroy(w);
    return imported;
}

typedef struct sample {
    double seconds;
    double cpu; /* user + system of the child (wait4), seconds */
    uint64_t events;
    long rss_kib;
} sample;

/* Run one measurement in a child (which: -1 the bare read, else the
 * import with configs[which]): its wall time and events come back through
 * a pipe, its peak RSS from wait4. */
static sample measure(int which, const char *anchor, const char *out, uint32_t nloc)
{
    int fd[2];
    sample s = {0, 0, 0, 0};
    if (pipe(fd) != 0) {
        exit(1);
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        const double t0 = now();
        s.events = which < 0 ? bare_read(anchor, nloc)
                             : import_run(anchor, out, &configs[which]);
        s.seconds = now() - t0;
        if (write(fd[1], &s, sizeof s) != (ssize_t)sizeof s) {
            _exit(1);
        }
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], &s, sizeof s) != (ssize_t)sizeof s) {
        (void)fprintf(stderr, "bench_otf2_import: a measurement failed\n");
        exit(1);
    }
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        exit(1);
    }
    s.rss_kib = ru.ru_maxrss;
    s.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n), n <= 99; v keeps its order (the reps stay
 * paired by index for the pair-by-pair ratios). */
static double median(const double *v, int n)
{
    double s[99];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static uint64_t dir_bytes(const char *dir, uint32_t nloc)
{
    char p[600];
    struct stat st;
    uint64_t total = 0;
    for (uint32_t l = 0; l < nloc; l++) {
        (void)snprintf(p, sizeof p, "%s/traces/%u.evt", dir, l);
        total += stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
    }
    return total;
}

/* One side's samples over the reps. */
typedef struct series {
    double t[99], cpu[99], rss[99];
    uint64_t events;
} series;

static void series_add(series *v, int r, const sample *x)
{
    v->t[r] = x->seconds;
    v->cpu[r] = x->cpu;
    v->rss[r] = (double)x->rss_kib;
    v->events = x->events;
}

/* The smallest and largest of v[0..n). */
static void range_of(const double *v, int n, double *lo, double *hi)
{
    *lo = *hi = v[0];
    for (int r = 1; r < n; r++) {
        *lo = v[r] < *lo ? v[r] : *lo;
        *hi = v[r] > *hi ? v[r] : *hi;
    }
}

/* Medians (min-max) of one import configuration against the bare read. */
static void report_config(const char *name, series *im, series *bare, int reps, uint64_t written,
                          const char *out)
{
    struct stat st;
    const double slog_mib = stat(out, &st) == 0 ? (double)st.st_size / 1048576.0 : 0;
    double lo, hi;
    range_of(im->t, reps, &lo, &hi);
    const double mb = median(bare->t, reps), mi = median(im->t, reps);
    const double cb = median(bare->cpu, reps), ci = median(im->cpu, reps);
    const double rb = median(bare->rss, reps) / 1024.0, ri = median(im->rss, reps) / 1024.0;
    (void)printf("import, writer %-11s %llu records, median %.3f s (%.3f-%.3f), %.2f M events/s, "
                 "CPU %.3f s, peak RSS %.1f MiB, output %.1f MiB\n",
                 name, (unsigned long long)im->events, mi, lo, hi, (double)written / mi / 1e6, ci,
                 ri, slog_mib);
    (void)printf("  throughput import/bare %.2f (time %.2fx, CPU %.2fx, peak RSS %.2fx; medians "
                 "of %d)\n",
                 mb / mi, mi / mb, ci / cb, ri / rb, reps);
    double pair[99];
    for (int r = 0; r < reps; r++) {
        pair[r] = bare->t[r] / im->t[r]; /* the bare read and this import of one rep */
    }
    double plo, phi;
    range_of(pair, reps, &plo, &phi);
    (void)printf("  pair by pair (bare / import of each rep): median %.2f, range %.2f-%.2f\n",
                 median(pair, reps), plo, phi);
}

/* Alternate the bare read and each import configuration `reps` times and
 * print medians and ratios.  Returns the events the bare read saw. */
static uint64_t run_reps(const char *anchor, const char *out, uint32_t nloc, int reps,
                         uint64_t written, const int *which, int nwhich)
{
    static series bare, im[NCONFIGS];
    for (int r = 0; r < reps; r++) {
        const sample b = measure(-1, anchor, out, nloc);
        series_add(&bare, r, &b);
        (void)printf("rep %d: bare %.3f s (CPU %.3f s) %ld KiB", r + 1, b.seconds, b.cpu,
                     b.rss_kib);
        for (int k = 0; k < nwhich; k++) {
            const sample m = measure(which[k], anchor, out, nloc);
            series_add(&im[k], r, &m);
            (void)printf(", %s %.3f s (CPU %.3f s) %ld KiB", configs[which[k]].name, m.seconds,
                         m.cpu, m.rss_kib);
        }
        (void)printf("\n");
        (void)fflush(stdout);
    }
    double lo, hi;
    range_of(bare.t, reps, &lo, &hi);
    (void)printf("bare OTF2 global read: %llu events, median %.3f s (%.3f-%.3f), %.2f M events/s, "
                 "CPU %.3f s, peak RSS %.1f MiB\n",
                 (unsigned long long)bare.events, median(bare.t, reps), lo, hi,
                 (double)bare.events / median(bare.t, reps) / 1e6, median(bare.cpu, reps),
                 median(bare.rss, reps) / 1024.0);
    for (int k = 0; k < nwhich; k++) {
        report_config(configs[which[k]].name, &im[k], &bare, reps, written, out);
    }
    return bare.events;
}

typedef struct options {
    uint64_t events;
    uint32_t nloc;
    int reps;
    bool keep;
    const char *base;
    int which[NCONFIGS]; /* --writers, as indexes of configs */
    int nwhich;
} options;

/* --writers: a comma list of configs' names. */
static int parse_writers(char *list, options *o)
{
    o->nwhich = 0;
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        size_t k = 0;
        while (k < NCONFIGS && strcmp(configs[k].name, tok) != 0) {
            k++;
        }
        if (k == NCONFIGS || o->nwhich == (int)NCONFIGS) {
            return -1;
        }
        o->which[o->nwhich++] = (int)k;
    }
    return o->nwhich > 0 ? 0 : -1;
}

static int parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const bool has_value = i + 1 < argc;
        if (strcmp(argv[i], "--events") == 0 && has_value) {
            o->events = (uint64_t)strtod(argv[++i], NULL);
        } else if (strcmp(argv[i], "--locations") == 0 && has_value) {
            o->nloc = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && has_value) {
            o->reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--dir") == 0 && has_value) {
            o->base = argv[++i];
        } else if (strcmp(argv[i], "--writers") == 0 && has_value) {
            if (parse_writers(argv[++i], o) != 0) {
                return -1;
            }
        } else if (strcmp(argv[i], "--keep") == 0) {
            o->keep = true;
        } else {
            return -1;
        }
    }
    return o->nloc < 2 || o->reps < 1 || o->reps > 99 ? -1 : 0;
}

int main(int argc, char **argv)
{
    options o = {.events = 10000000, .nloc = 8, .reps = 3, .keep = false, .base = "/tmp",
                 .which = {0, 1, 2}, .nwhich = 3};
    if (parse_args(argc, argv, &o) != 0) {
        (void)fprintf(stderr, "usage: bench_otf2_import [--events N] [--locations L >= 2] "
                              "[--reps 1..99] [--dir DIR]\n"
                              "       [--writers default,background,import,import-sync,one-thread,background-one-thread] "
                              "[--keep]\n");
        return 2;
    }
    const uint64_t events = o.events;
    const uint32_t nloc = o.nloc;
    const int reps = o.reps;
    const bool keep = o.keep;
    const char *const base = o.base;
    char dir[512], anchor[600], out[600];
    (void)snprintf(dir, sizeof dir, "%s/bench_otf2_import.XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    (void)snprintf(anchor, sizeof anchor, "%s/otf2/traces.otf2", dir);
    (void)snprintf(out, sizeof out, "%s/out.slog", dir);
    char archive[560];
    (void)snprintf(archive, sizeof archive, "%s/otf2", dir);
    double t0 = now();
    const uint64_t written = generate(archive, events, nloc);
    const double gen = now() - t0;
    (void)printf("archive: %llu event records on %u locations, %.1f MiB of event files, written in "
                 "%.2f s\n",
                 (unsigned long long)written, nloc, (double)dir_bytes(archive, nloc) / 1048576.0,
                 gen);
    const uint64_t bev = run_reps(anchor, out, nloc, reps, written, o.which, o.nwhich);
    if (!keep) {
        char cmd[700];
        (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) {
            (void)fprintf(stderr, "bench_otf2_import: could not remove %s\n", dir);
        }
    } else {
        (void)printf("kept %s\n", dir);
    }
    return bev == written ? 0 : 1;
}
