/* SPDX-License-Identifier: MIT
 *
 * chrome_gen.c - benchmark input: writes a Chrome Trace Event JSON file of
 * about the requested size, shaped like a profiler trace (Kineto-like):
 * per thread, nested complete events (X) with args, B/E pairs, instants,
 * a counter series per process and s/f flows between threads, plus thread
 * and process names.  Timestamps are microseconds with three decimals.
 * --disorder K writes each run of K consecutive events in reverse order
 * (a bounded, realistic disorder: complete events written when they end).
 *   chrome_gen --mb 500 [--threads 16] [--disorder 0] [--seed 1] > trace.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    unsigned long long rng;
    char **pending;
    size_t npending, k;
    unsigned long long bytes;
} gen;

static unsigned rnd(gen *g, unsigned n)
{
    g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((g->rng >> 33) % n);
}

static void emit(gen *g, const char *line)
{
    if (g->k <= 1) {
        g->bytes += (unsigned long long)printf(g->bytes > 20 ? ",\n%s" : "%s", line);
        return;
    }
    g->pending[g->npending++] = strdup(line);
    if (g->npending == g->k) {
        for (size_t i = g->npending; i-- > 0;) {
            g->bytes += (unsigned long long)printf(",\n%s", g->pending[i]);
            free(g->pending[i]);
        }
        g->npending = 0;
    }
}

static const char *const names[] = {"aten::conv2d", "aten::relu", "aten::add_", "cudaLaunchKernel",
                                    "aten::matmul", "Optimizer.step", "DataLoader.next",
                                    "aten::batch_norm"};

int main(int argc, char **argv)
{
    unsigned long long mb = 100, seed = 1;
    unsigned threads = 16;
    gen g;
    memset(&g, 0, sizeof g);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--mb") == 0) {
            mb = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--disorder") == 0) {
            g.k = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--seed") == 0) {
            seed = strtoull(argv[i + 1], NULL, 10);
        }
    }
    g.rng = seed;
    g.pending = calloc(g.k + 1, sizeof *g.pending);
    const unsigned long long target = mb * 1000000ull;
    g.bytes += (unsigned long long)printf("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    char line[1024];
    g.bytes += (unsigned long long)printf(
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1000,\"args\":{\"name\":\"python3\"}}");
    for (unsigned t = 0; t < threads; t++) {
        (void)snprintf(line, sizeof line,
                       "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1000,\"tid\":%u,"
                       "\"args\":{\"name\":\"worker %u\"}}",
                       100 + t, t);
        emit(&g, line);
    }
    unsigned long long *clock = calloc(threads, sizeof *clock);
    for (unsigned t = 0; t < threads; t++) {
        clock[t] = 1712195495000000ull * 1000ull + t * 7ull; /* ns */
    }
    unsigned long long flow = 0;
    while (g.bytes < target) {
        const unsigned t = rnd(&g, threads);
        unsigned long long ts = clock[t];
        /* a parent X with 2..4 children X, then a B/E pair */
        const unsigned nch = 2 + rnd(&g, 3);
        unsigned long long child = ts + 1000 + rnd(&g, 2000);
        unsigned long long end = child;
        char kids[8][512];
        for (unsigned c = 0; c < nch; c++) {
            const unsigned long long dur = 5000 + rnd(&g, 50000);
            (void)snprintf(kids[c], sizeof kids[c],
                           "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1000,"
                           "\"tid\":%u,\"ts\":%llu.%03llu,\"dur\":%llu.%03llu,\"args\":{\"External "
                           "id\":%llu,\"Sequence number\":%u,\"Fwd thread id\":0}}",
                           names[rnd(&g, 8)], 100 + t, child / 1000, child % 1000, dur / 1000,
                           dur % 1000, flow * 8 + c, rnd(&g, 100000));
            child += dur + 500 + rnd(&g, 1000);
            end = child;
        }
        const unsigned long long pdur = end - ts + 1000;
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"%s\",\"pid\":1000,"
                       "\"tid\":%u,\"ts\":%llu.%03llu,\"dur\":%llu.%03llu,\"args\":{\"Python id\":%llu,"
                       "\"Python parent id\":%llu}}",
                       names[rnd(&g, 8)], 100 + t, ts / 1000, ts % 1000, pdur / 1000,
                       pdur % 1000, flow, flow / 2);
        emit(&g, line);
        for (unsigned c = 0; c < nch; c++) {
            emit(&g, kids[c]);
        }
        ts += pdur + 2000;
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"B\",\"cat\":\"sync\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1000,"
                       "\"tid\":%u,\"ts\":%llu.%03llu}",
                       100 + t, ts / 1000, ts % 1000);
        emit(&g, line);
        ts += 3000 + rnd(&g, 9000);
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"E\",\"cat\":\"sync\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1000,"
                       "\"tid\":%u,\"ts\":%llu.%03llu}",
                       100 + t, ts / 1000, ts % 1000);
        emit(&g, line);
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"C\",\"name\":\"GPU memory\",\"pid\":1000,\"ts\":%llu.%03llu,"
                       "\"args\":{\"allocated\":%u,\"reserved\":%u}}",
                       ts / 1000, ts % 1000, rnd(&g, 1u << 30), rnd(&g, 1u << 30));
        emit(&g, line);
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"s\",\"id\":%llu,\"pid\":1000,\"tid\":%u,\"ts\":%llu.%03llu,"
                       "\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                       flow, 100 + t, ts / 1000, ts % 1000);
        emit(&g, line);
        const unsigned t2 = rnd(&g, threads);
        unsigned long long fts = ts + 1000 > clock[t2] ? ts + 1000 : clock[t2];
        (void)snprintf(line, sizeof line,
                       "{\"ph\":\"f\",\"id\":%llu,\"pid\":1000,\"tid\":%u,\"ts\":%llu.%03llu,"
                       "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}",
                       flow, 100 + t2, fts / 1000, fts % 1000);
        emit(&g, line);
        if (rnd(&g, 10) == 0) {
            (void)snprintf(line, sizeof line,
                           "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"Iteration Start\",\"pid\":1000,"
                           "\"tid\":%u,\"ts\":%llu.%03llu}",
                           100 + t, ts / 1000, ts % 1000);
            emit(&g, line);
        }
        flow++;
        clock[t] = ts + 1000;
    }
    for (size_t i = g.npending; i-- > 0;) {
        g.bytes += (unsigned long long)printf(",\n%s", g.pending[i]);
        free(g.pending[i]);
    }
    (void)printf("\n]}\n");
    free(clock);
    free((void *)g.pending);
    return 0;
}
