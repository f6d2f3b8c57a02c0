/* SPDX-License-Identifier: MIT
 *
 * trace_mpi_comm.c - communicator ranks to MPI_COMM_WORLD ranks (see
 * trace_mpi.h): the first use of a communicator translates all its ranks
 * through its group once and caches them (a small table, entries reused
 * round robin, dropped by MPI_Comm_free); and the args that describe one
 * end of a message in those terms.
 * Layer: slog-trace preload library; Open MPI's mpi.h.
 */
#include <pthread.h>
#include <stdlib.h>

#include "trace_core.h"
#include "trace_mpi.h"

#define COMM_CACHE 32

typedef struct comm_map {
    MPI_Comm comm; /* NULL: free */
    uint64_t key;
    int size;
    int *world; /* world rank of each rank */
} comm_map;

int trace_mpi_rank = -1;

static comm_map cache[COMM_CACHE];
static unsigned next_victim;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_ranks(const int *world, int n)
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint32_t)world[i]) * 1099511628211u;
    }
    return h | 1u; /* never 0, MPI_COMM_WORLD's key */
}

/* world[i] = the MPI_COMM_WORLD rank of rank i of group g, i < size;
 * 0, or -1 when MPI cannot say. */
static int translate_ranks(MPI_Group g, int size, int *world)
{
    MPI_Group wg;
    int *ranks = malloc((size_t)size * sizeof *ranks);
    int rc = ranks == NULL || PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS ? -1 : 0;
    if (rc == 0) {
        for (int i = 0; i < size; i++) {
            ranks[i] = i;
        }
        rc = PMPI_Group_translate_ranks(g, size, ranks, wg, world) == MPI_SUCCESS ? 0 : -1;
        (void)PMPI_Group_free(&wg);
    }
    free(ranks);
    return rc;
}

/* Fill m for comm; 0, or -1 when the group cannot be read. */
static int build_map(comm_map *m, MPI_Comm comm)
{
    MPI_Group g;
    int size = 0;
    if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size <= 0 ||
        PMPI_Comm_group(comm, &g) != MPI_SUCCESS) {
        return -1;
    }
    int *world = malloc((size_t)size * sizeof *world);
    const int rc = world == NULL ? -1 : translate_ranks(g, size, world);
    (void)PMPI_Group_free(&g);
    if (rc != 0) {
        free(world);
        return -1;
    }
    free(m->world);
    m->comm = comm, m->size = size, m->world = world;
    m->key = hash_ranks(world, size);
    return 0;
}

static comm_map *lookup(MPI_Comm comm)
{
    for (int i = 0; i < COMM_CACHE; i++) {
        if (cache[i].comm == comm) {
            return &cache[i];
        }
    }
    comm_map *m = &cache[next_victim++ % COMM_CACHE];
    m->comm = NULL;
    return build_map(m, comm) == 0 ? m : NULL;
}

int trace_mpi_world(MPI_Comm comm, int r, uint64_t *key)
{
    *key = 0;
    int inter = 0;
    if (comm == MPI_COMM_WORLD || r < 0 || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        inter) {
        return r;
    }
    pthread_mutex_lock(&cache_lock);
    const comm_map *m = lookup(comm);
    int w = r;
    if (m != NULL) {
        *key = m->key;
        w = r < m->size ? m->world[r] : r;
    }
    pthread_mutex_unlock(&cache_lock);
    return w;
}

void trace_mpi_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < COMM_CACHE; i++) {
        if (cache[i].comm == comm) {
            cache[i].comm = NULL;
        }
    }
    pthread_mutex_unlock(&cache_lock);
}

int64_t trace_mpi_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    return PMPI_Type_size(type, &size) == MPI_SUCCESS ? (int64_t)count * size : -1;
}

/* One end of a message, in MPI_COMM_WORLD ranks. */
typedef struct msg_end {
    const char *side; /* "send" or "recv" */
    uint64_t key;     /* the communicator's (trace_mpi_world) */
    int src, dst, tag;
    int64_t bytes; /* -1: unknown */
} msg_end;

static void msg_args(trace_args *a, const msg_end *m)
{
    targ_str(a, "msg", m->side);
    targ_uint(a, "comm", m->key);
    targ_int(a, "src", m->src);
    targ_int(a, "dst", m->dst);
    targ_int(a, "tag", m->tag);
    targ_int(a, "bytes", m->bytes);
}

/* The args of a send of count items of type to dest of comm. */
void trace_mpi_send_args(trace_args *a, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL) {
        return;
    }
    uint64_t key = 0;
    const int dst = trace_mpi_world(comm, dest, &key);
    const int64_t bytes = trace_mpi_bytes(count, type);
    msg_args(a, &(const msg_end){"send", key, trace_mpi_rank, dst, tag, bytes});
}

/* The args of a completed receive (status st) of type on comm. */
void trace_mpi_recv_args(trace_args *a, MPI_Comm comm, MPI_Datatype type, const MPI_Status *st)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) {
        return;
    }
    int n = 0;
    const int64_t bytes = PMPI_Get_count(st, type, &n) == MPI_SUCCESS && n != MPI_UNDEFINED
                              ? trace_mpi_bytes(n, type)
                              : -1;
    uint64_t key = 0;
    const int src = trace_mpi_world(comm, st->MPI_SOURCE, &key);
    msg_args(a, &(const msg_end){"recv", key, src, trace_mpi_rank, st->MPI_TAG, bytes});
}
