/* SPDX-License-Identifier: MIT
 *
 * mw_internal.h - what the files of libslog-mpi share: the writer's
 * layout, the fixed-size records gathered to rank 0 (one per rank, one
 * per message half; bytes of one homogeneous job), and the steps of
 * create and finish (clock ping-pong, agreement on an error, message
 * matching, manifest, and rank 0's outputs: the arrows input, the index,
 * the merge).  Every collective step runs on the writer's duplicate
 * communicator.
 * libslog/mpi: the public API of libslog and libslog-merge only, plus MPI.
 */
#ifndef SLOG_MW_INTERNAL_H
#define SLOG_MW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <slog/slog_index.h>
#include <slog/slog_merge.h>
#include <slog/slog_mpi.h>

#define MW_HOST_BYTES  256
#define MW_NO_CATEGORY UINT32_MAX

/* One clock measurement of a rank against rank 0. */
typedef struct mw_clock_est {
    int64_t offset; /* add to a local time to get rank 0's */
    int64_t rtt;    /* round trip of the exchange kept; the offset is within +-rtt/2 */
} mw_clock_est;

typedef enum mw_rank_state {
    MW_RANK_RUNNING = 0,
    MW_RANK_OK = 1,
    MW_RANK_FAILED = 2
} mw_rank_state;

/* One rank's outcome, gathered to rank 0 (MPI_BYTE: a homogeneous job). */
typedef struct mw_rank_rec {
    int32_t rank;
    int32_t state;             /* mw_rank_state */
    int32_t code;              /* slog status of the rank's finish */
    int32_t have_info;         /* its file opened after finish: start .. counts hold */
    int32_t complete;          /* the file says it is complete */
    uint32_t timelines;        /* timelines the file holds (with have_info) */
    int64_t start, end;        /* the file's time range, its ticks */
    uint64_t counts[4];        /* drawables per slog_kind */
    mw_clock_est clock[2];     /* at create, at finish */
    uint64_t messages;         /* message halves kept for matching */
    uint64_t messages_dropped; /* recorded past max_messages */
    char host[MW_HOST_BYTES];
    char error[256]; /* the failure, "" if none */
} mw_rank_rec;

typedef enum mw_side {
    MW_SIDE_SEND = 0,
    MW_SIDE_RECV = 1
} mw_side;

/* One half of a message, gathered to rank 0 (MPI_BYTE). */
typedef struct mw_msg_rec {
    int64_t t0, t1; /* posted, completed */
    int64_t bytes;
    int32_t src, dst, tag;
    int32_t side;      /* mw_side */
    uint32_t timeline; /* in the recording rank's file */
    uint32_t seq;      /* order of recording on its rank */
} mw_msg_rec;

/* A matched message: what becomes an arrow of the merged file. */
typedef struct mw_arrow {
    int32_t src, dst, tag;
    uint32_t from, to;  /* timelines in the rank files of src and dst */
    int64_t start, end; /* send posted, receive completed; local clocks */
    int64_t bytes;
} mw_arrow;

struct slog_mpi_writer {
    MPI_Comm comm; /* duplicate of the caller's */
    int rank, size;
    int finished;
    slog_mpi_options opts; /* validated copy; opts.writer is not kept */
    uint64_t ticks_per_second;
    slog_writer *w;
    uint32_t rank_timeline;
    uint32_t cat_send, cat_recv; /* MW_NO_CATEGORY until the first message */
    mw_msg_rec *msgs;
    size_t nmsgs, cap;
    mw_rank_rec self; /* host and create clock; filled in at finish */
    char *dir;
    char *path; /* DIR/rank-NNNNNN.slog */
};

/* Errors (mw_writer.c) */
int mw_fail(slog_error *e, int code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int mw_fail_mpi(slog_error *e, int mpi_rc, const char *what);
/* Every rank learns the lowest failing rank's status and error: collective. */
int mw_agree(const slog_mpi_writer *m, int rc, slog_error *e);
/* Rank 0 allocates @p bytes (other ranks get NULL); every rank learns
 * whether it could (SLOG_ENOMEM on all when not): collective. */
int mw_root_alloc(const slog_mpi_writer *m, size_t bytes, void **p, slog_error *e);
int64_t mw_clock_now(const slog_mpi_writer *m);

/* Clock offsets (mw_clock.c) */
int mw_clock_measure(const slog_mpi_writer *m, mw_clock_est *out, slog_error *e);
/* Rank 0: the offset added to each rank's times in the merged file. */
void mw_clock_merge_offsets(const mw_rank_rec *recs, int n, int per_rank, int64_t *offsets);

/* Messages (mw_msg.c) */
/* Record one half (r->seq is set here): a state in the file, a record kept. */
int mw_msg_record(slog_mpi_writer *m, const mw_msg_rec *r, slog_error *e);
/* Collective: every rank's kept halves, concatenated at rank 0 (*all NULL elsewhere). */
int mw_msg_gather(const slog_mpi_writer *m, mw_msg_rec **all, size_t *n, slog_error *e);
/* Pairs sends with receives; sorts @p v.  *out is malloc'ed (NULL when none). */
int mw_msg_match(mw_msg_rec *v, size_t n, mw_arrow **out, size_t *narrows, uint64_t *unmatched);

/* The manifest (mw_manifest.c) */
typedef struct mw_job {
    const char *status; /* "running", "finished", "failed" */
    int ranks;
    int default_clock;
    uint64_t ticks_per_second;
    const char *merged;     /* NULL: none */
    const char *merge_code; /* the merge's status name, NULL before it */
    const char *index;      /* the index, relative to the directory; NULL: none (yet) */
    const char *index_code; /* its status name, NULL before it was tried */
    const int64_t *offsets; /* per rank, for the merge; NULL before finish */
    int matched;            /* the messages were matched: arrows, unmatched hold */
    uint64_t arrows, unmatched;
} mw_job;

/* Collective: every rank's m->self, in rank order, at rank 0 (*all NULL elsewhere). */
int mw_manifest_gather(const slog_mpi_writer *m, mw_rank_rec **all, slog_error *e);
int mw_manifest_write(const char *dir, const mw_job *job, const mw_rank_rec *recs, slog_error *e);

/* Rank 0 at finish: the arrows of the matched messages as one more input
 * (mw_arrows.c), DIR/arrows.slog: a timeline per endpoint, then the arrows
 * on rank 0's clock. */
#define MW_ARROWS_FILE "arrows.slog"

/* A timeline of a rank file an arrow leaves or reaches. */
typedef struct mw_endpoint {
    uint32_t rank, timeline;
} mw_endpoint;

typedef struct mw_arrows_job {
    const char *path;
    uint64_t ticks_per_second;
    const int64_t *offsets; /* per rank, the merge offsets */
    const mw_arrow *arrows; /* local clocks, rank files' timeline ids */
    size_t narrows;
} mw_arrows_job;

/* Writes the file (removed on failure); *ends (malloc'ed, sorted) are its
 * timelines in order. */
int mw_arrows_write(const mw_arrows_job *aj, mw_endpoint **ends, size_t *nends, slog_error *e);

/* The inputs of the index and the merge (mw_inputs.c): the rank files,
 * labelled "rank R", moved by their merge offsets, then the arrows input
 * when there is one (offset 0), its timelines linked to the rank files'. */
typedef struct mw_inputs {
    size_t n, ranks;    /* n: ranks, + 1 with the arrows input */
    const char **paths; /* paths[ranks]: the arrows input's, even before it counts */
    const char **labels;
    int64_t *offsets; /* per input, its ticks (one clock: the ranks') */
    slog_merge_link *links;
    size_t nlinks;
    char *text;
} mw_inputs;

int mw_inputs_make(
    mw_inputs *in, const char *dir, int ranks, const int64_t *offsets, slog_error *e);
/* Counts the arrows input, paths[ranks] (DIR/arrows.slog), in; an endpoint
 * is linked when its rank's file holds the timeline (recs), else it stays
 * a timeline of its own.  SLOG_ENOMEM when memory is short. */
int mw_inputs_add_arrows(mw_inputs *in,
                         const mw_endpoint *ends,
                         size_t nends,
                         const mw_rank_rec *recs);
void mw_inputs_free(mw_inputs *in);

/* DIR/index.slog over the inputs (mw_index.c), written whole: a
 * temporary file, flushed to disk, renamed over the old one. */
#define MW_INDEX_FILE "index.slog"
int mw_index_job(const char *dir, const mw_inputs *in, slog_error *e);

/* The inputs merged into one file (mw_merge.c). */
int mw_merge_job(const mw_inputs *in, const char *merged, int allow_incomplete, slog_error *e);

#endif /* SLOG_MW_INTERNAL_H */
