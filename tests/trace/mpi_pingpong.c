/* SPDX-License-Identifier: MIT
 *
 * mpi_pingpong.c - the MPI program slog-trace's MPI test traces: ranks
 * pair up (0-1, 2-3, ...); in each pair the even rank sends ROUNDS
 * messages of 1 KiB (tag 7) that the odd rank returns (tag 8) with
 * MPI_Send/MPI_Recv, then one exchange each way with MPI_Isend/MPI_Irecv/
 * MPI_Wait (tag 9) and one with MPI_Sendrecv (tag 10), one each way
 * completed by each of MPI_Test, MPI_Waitany, MPI_Waitsome, MPI_Testall,
 * MPI_Testany and MPI_Testsome (tags 11-16), and everyone meets in an
 * MPI_Barrier and an MPI_Allreduce.  Per pair that is 2 * ROUNDS + 16
 * messages; the test expects exactly those arrows.  An odd last rank
 * only joins the collectives.  Exit status 0, or 1 when a value is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    static char buf[BYTES], in[BYTES];
    int rank = 0, size = 0, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 0, sizeof buf);
    const int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (peer < size) {
        bad = pingpong(rank, peer, buf) | exchange(peer, buf, in) | completions(peer, buf, in);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (total != 0 && rank == 0) {
        (void)fprintf(stderr, "mpi_pingpong: %d ranks saw wrong values\n", total);
    }
    return total != 0;
}
