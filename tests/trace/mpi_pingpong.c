/* SPDX-License-Identifier: MIT
 *
 * mpi_pingpong.c - the MPI program slog-trace's MPI test traces: ranks
 * pair up (0-1, 2-3, ...); in each pair the even rank sends ROUNDS
 * messages of 1 KiB (tag 7) that the odd rank returns (tag 8) with
 * MPI_Send/MPI_Recv, then one exchange each way with MPI_Isend/MPI_Irecv/
 * MPI_Wait (tag 9) and one with MPI_Sendrecv (tag 10), one each way
 * completed by each of MPI_Test, MPI_Waitany, MPI_Waitsome, MPI_Testall,
 * MPI_Testany and MPI_Testsome (tags 11-16), one each way in every other
 * send mode, MPI_Sendrecv_replace and behind probes (tags 17-25), and
 * three each way on persistent requests (tag 26: MPI_Send_init and
 * MPI_Recv_init, started twice by MPI_Startall and once by MPI_Start), and
 * everyone meets in an MPI_Barrier, the collectives with a count per rank
 * or a prefix, the nonblocking collectives and an MPI_Allreduce.  Per
 * pair that is 2 * ROUNDS + 40 messages; the test expects exactly those
 * arrows.  An odd last rank only joins the collectives.  Exit status 0,
 * or 1 when a value is wrong.  `mpi_pingpong abort`: after a barrier and
 * two seconds (the tracer's timer flushes every rank's file), rank 2 calls
 * MPI_Abort(MPI_COMM_WORLD, 7) while the others wait for a message from it,
 * until Open MPI kills them.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 10
#define BYTES 1024

static int pingpong(int rank, int peer, char *buf)
{
    for (int i = 0; i < ROUNDS; i++) {
        if (rank % 2 == 0) {
            buf[0] = (char)i;
            MPI_Send(buf, BYTES, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, BYTES, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, BYTES, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, BYTES, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
        }
        if (buf[0] != (char)i) {
            return 1;
        }
    }
    return 0;
}

static int exchange(int peer, char *buf, char *in)
{
    MPI_Request req[2];
    MPI_Irecv(in, BYTES, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf, BYTES, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &req[1]);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    MPI_Status st;
    MPI_Sendrecv(buf, BYTES, MPI_BYTE, peer, 10, in, BYTES, MPI_BYTE, peer, 10, MPI_COMM_WORLD,
                 &st);
    return st.MPI_SOURCE == peer && st.MPI_TAG == 10 ? 0 : 1;
}

/* Post one receive and one send of tag to peer; the receive is req[0]. */
static void post(int peer, int tag, char *buf, char *in, MPI_Request *req)
{
    MPI_Irecv(in, BYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(buf, BYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[1]);
}

/* One message each way completed by each other completion call: MPI_Test
 * polled (tag 11), MPI_Waitany (12), MPI_Waitsome (13), MPI_Testall
 * polled (14), MPI_Testany polled (15), MPI_Testsome polled (16). */
static int completions(int peer, char *buf, char *in)
{
    MPI_Request req[2];
    int flag = 0, idx = 0, done = 0, k = 0, at[2];
    post(peer, 11, buf, in, req);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    while (!flag) {
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
    }
    post(peer, 12, buf, in, req);
    MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
    post(peer, 13, buf, in, req);
    for (done = 0; done < 2; done += k) {
        MPI_Waitsome(2, req, &k, at, MPI_STATUSES_IGNORE);
    }
    post(peer, 14, buf, in, req);
    for (flag = 0; !flag;) {
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    }
    post(peer, 15, buf, in, req);
    for (done = 0; done < 2; done += flag) {
        MPI_Testany(2, req, &idx, &flag, MPI_STATUS_IGNORE);
    }
    post(peer, 16, buf, in, req);
    for (done = 0; done < 2; done += k) {
        MPI_Testsome(2, req, &k, at, MPI_STATUSES_IGNORE);
    }
    return req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL ? 0 : 1;
}

/* One message each way in the other send modes: MPI_Issend (tag 17),
 * MPI_Bsend (18), MPI_Ibsend (19), MPI_Rsend (20) and MPI_Irsend (21),
 * sent once the peer's receives are posted (a message each way with
 * MPI_Sendrecv, tag 22, says so); then MPI_Sendrecv_replace (23), and an
 * MPI_Isend each way found by MPI_Probe (24) and by MPI_Iprobe (25). */
static int send_modes(int peer, char *buf, char *in)
{
    static char pool[4 * (BYTES + MPI_BSEND_OVERHEAD)];
    static char ins[5][BYTES];
    MPI_Request rq[5], sq[3];
    MPI_Buffer_attach(pool, (int)sizeof pool);
    for (int i = 0; i < 5; i++) {
        MPI_Irecv(ins[i], BYTES, MPI_BYTE, peer, 17 + i, MPI_COMM_WORLD, &rq[i]);
    }
    MPI_Sendrecv(buf, BYTES, MPI_BYTE, peer, 22, in, BYTES, MPI_BYTE, peer, 22, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Issend(buf, BYTES, MPI_BYTE, peer, 17, MPI_COMM_WORLD, &sq[0]);
    MPI_Bsend(buf, BYTES, MPI_BYTE, peer, 18, MPI_COMM_WORLD);
    MPI_Ibsend(buf, BYTES, MPI_BYTE, peer, 19, MPI_COMM_WORLD, &sq[1]);
    MPI_Rsend(buf, BYTES, MPI_BYTE, peer, 20, MPI_COMM_WORLD);
    MPI_Irsend(buf, BYTES, MPI_BYTE, peer, 21, MPI_COMM_WORLD, &sq[2]);
    MPI_Waitall(5, rq, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, sq, MPI_STATUSES_IGNORE);
    void *old = NULL;
    int size = 0;
    MPI_Buffer_detach(&old, &size);
    MPI_Sendrecv_replace(buf, BYTES, MPI_BYTE, peer, 23, peer, 23, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    MPI_Status st;
    MPI_Isend(buf, BYTES, MPI_BYTE, peer, 24, MPI_COMM_WORLD, &sq[0]);
    MPI_Probe(peer, 24, MPI_COMM_WORLD, &st);
    MPI_Recv(in, BYTES, MPI_BYTE, peer, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sq[0], MPI_STATUS_IGNORE);
    int flag = 0;
    MPI_Isend(buf, BYTES, MPI_BYTE, peer, 25, MPI_COMM_WORLD, &sq[0]);
    while (!flag) {
        MPI_Iprobe(peer, 25, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Recv(in, BYTES, MPI_BYTE, peer, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sq[0], MPI_STATUS_IGNORE);
    return st.MPI_SOURCE == peer && st.MPI_TAG == 24 ? 0 : 1;
}

/* Three messages each way on one pair of persistent requests (tag 26):
 * started together by MPI_Startall twice, then one by one by MPI_Start. */
static int persistent(int peer, char *buf, char *in)
{
    MPI_Request req[2];
    MPI_Recv_init(in, BYTES, MPI_BYTE, peer, 26, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(buf, BYTES, MPI_BYTE, peer, 26, MPI_COMM_WORLD, &req[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&req[0]);
    MPI_Start(&req[1]);
    MPI_Status st;
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    MPI_Wait(&req[0], &st);
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    return st.MPI_SOURCE == peer && st.MPI_TAG == 26 && req[0] == MPI_REQUEST_NULL ? 0 : 1;
}

enum { N_INTS = 4, MAX_RANKS = 64 };

/* Each collective with a count per rank or a prefix, once: N_INTS ints a
 * rank (the whole send buffer of alltoallv and reduce_scatter(_block):
 * N_INTS a rank of the job); MPI_Scan's and MPI_Exscan's sums checked. */
static int collectives_v(int rank, int size, const int *s, int *r)
{
    int counts[MAX_RANKS], displs[MAX_RANKS];
    for (int i = 0; i < size; i++) {
        counts[i] = N_INTS;
        displs[i] = i * N_INTS;
    }
    MPI_Gatherv(s, N_INTS, MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(s, counts, displs, MPI_INT, r, N_INTS, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgatherv(s, N_INTS, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(s, r, N_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(s, r, N_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int bad = r[0] != rank * (rank + 1) / 2;
    MPI_Exscan(s, r, N_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return bad || (rank > 0 && r[0] != (rank - 1) * rank / 2);
}

/* Each nonblocking collective once, N_INTS ints a rank, completed by one
 * MPI_Waitall. */
static void collectives_nonblocking(const int *s)
{
    static int out[8][N_INTS * MAX_RANKS];
    MPI_Request q[8];
    MPI_Ibarrier(MPI_COMM_WORLD, &q[0]);
    MPI_Ibcast(out[1], N_INTS, MPI_INT, 0, MPI_COMM_WORLD, &q[1]);
    MPI_Ireduce(s, out[2], N_INTS, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &q[2]);
    MPI_Iallreduce(s, out[3], N_INTS, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[3]);
    MPI_Igather(s, N_INTS, MPI_INT, out[4], N_INTS, MPI_INT, 0, MPI_COMM_WORLD, &q[4]);
    MPI_Iallgather(s, N_INTS, MPI_INT, out[5], N_INTS, MPI_INT, MPI_COMM_WORLD, &q[5]);
    MPI_Iscatter(s, N_INTS, MPI_INT, out[6], N_INTS, MPI_INT, 0, MPI_COMM_WORLD, &q[6]);
    MPI_Ialltoall(s, N_INTS, MPI_INT, out[7], N_INTS, MPI_INT, MPI_COMM_WORLD, &q[7]);
    MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
}

static int collectives(int rank, int size)
{
    static int s[N_INTS * MAX_RANKS], r[N_INTS * MAX_RANKS];
    if (size > MAX_RANKS) {
        return 0;
    }
    for (int i = 0; i < N_INTS * size; i++) {
        s[i] = rank + i * size;
    }
    const int bad = collectives_v(rank, size, s, r);
    collectives_nonblocking(s);
    return bad;
}

static int abort_job(int rank)
{
    char b = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    sleep(2);
    if (rank == 2) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Recv(&b, 1, MPI_BYTE, 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 1; /* never reached: the job ends with rank 2's abort */
}

int main(int argc, char **argv)
{
    static char buf[BYTES], in[BYTES];
    int rank = 0, size = 0, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "abort") == 0 && size > 2) {
        return abort_job(rank);
    }
    memset(buf, 0, sizeof buf);
    const int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (peer < size) {
        bad = pingpong(rank, peer, buf) | exchange(peer, buf, in) | completions(peer, buf, in) |
              send_modes(peer, buf, in) | persistent(peer, buf, in);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= collectives(rank, size);
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (total != 0 && rank == 0) {
        (void)fprintf(stderr, "mpi_pingpong: %d ranks saw wrong values\n", total);
    }
    return total != 0;
}
