! SPDX-License-Identifier: MIT
!
! mpi_pingpong.F90 - mpi_pingpong.c in Fortran, call for call: the same
! messages (tags, sizes, send modes, completion calls, probes), the same
! collectives with 4 integers a rank, the same `abort` mode, so that
! trace_mpi_test.py checks the traces of both alike.  Built twice: with
! `use mpi` (mpif.h's bindings, mpi_<name>_), and with -DF08 `use mpi_f08`
! (Open MPI's ompi_<name>_f entries): slog-trace must see every call
! through either.  Exit status 0, or 1 when a value is wrong.
#ifdef F08
#define PARTS pingpong_parts_f08
#define REQUEST type(MPI_Request)
#define STATUS type(MPI_Status)
#define SOURCE_OF(st) st%MPI_SOURCE
#define TAG_OF(st) st%MPI_TAG
#else
#define PARTS pingpong_parts
#define REQUEST integer
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define SOURCE_OF(st) st(MPI_SOURCE)
#define TAG_OF(st) st(MPI_TAG)
#endif

module PARTS
#ifdef F08
    use mpi_f08
    use, intrinsic :: iso_c_binding, only: c_ptr
#else
    use mpi
#endif
    implicit none
    integer, parameter :: ROUNDS = 10, NBYTES = 1024, N_INTS = 4, MAX_RANKS = 64
contains

    integer function pingpong(rank, peer, buf) result(bad)
        integer, intent(in) :: rank, peer
        character, intent(inout) :: buf(NBYTES)
        integer :: i, ierr
        bad = 0
        do i = 0, ROUNDS - 1
            if (mod(rank, 2) == 0) then
                buf(1) = achar(i)
                call MPI_Send(buf, NBYTES, MPI_BYTE, peer, 7, MPI_COMM_WORLD, ierr)
                call MPI_Recv(buf, NBYTES, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &
                              MPI_STATUS_IGNORE, ierr)
            else
                call MPI_Recv(buf, NBYTES, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &
                              MPI_STATUS_IGNORE, ierr)
                call MPI_Send(buf, NBYTES, MPI_BYTE, peer, 8, MPI_COMM_WORLD, ierr)
            end if
            if (iachar(buf(1)) /= i) bad = 1
        end do
    end function

    integer function exchange(peer, buf, in) result(bad)
        integer, intent(in) :: peer
        character, intent(inout) :: buf(NBYTES), in(NBYTES)
        REQUEST :: req(2)
        STATUS :: st
        integer :: ierr
        call MPI_Irecv(in, NBYTES, MPI_BYTE, peer, 9, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Isend(buf, NBYTES, MPI_BYTE, peer, 9, MPI_COMM_WORLD, req(2), ierr)
        call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
        call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
        call MPI_Sendrecv(buf, NBYTES, MPI_BYTE, peer, 10, in, NBYTES, MPI_BYTE, peer, 10, &
                          MPI_COMM_WORLD, st, ierr)
        bad = 1
        if (SOURCE_OF(st) == peer .and. TAG_OF(st) == 10) bad = 0
    end function

    subroutine post(peer, tag, buf, in, req)
        integer, intent(in) :: peer, tag
        character, intent(inout) :: buf(NBYTES), in(NBYTES)
        REQUEST, intent(out) :: req(2)
        integer :: ierr
        call MPI_Irecv(in, NBYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Isend(buf, NBYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, req(2), ierr)
    end subroutine

    integer function completions(peer, buf, in) result(bad)
        integer, intent(in) :: peer
        character, intent(inout) :: buf(NBYTES), in(NBYTES)
        REQUEST :: req(2)
        logical :: flag
        integer :: idx, done, k, at(2), ierr
        call post(peer, 11, buf, in, req)
        call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
        flag = .false.
        do while (.not. flag)
            call MPI_Test(req(1), flag, MPI_STATUS_IGNORE, ierr)
        end do
        call post(peer, 12, buf, in, req)
        call MPI_Waitany(2, req, idx, MPI_STATUS_IGNORE, ierr)
        call MPI_Waitany(2, req, idx, MPI_STATUS_IGNORE, ierr)
        call post(peer, 13, buf, in, req)
        done = 0
        do while (done < 2)
            call MPI_Waitsome(2, req, k, at, MPI_STATUSES_IGNORE, ierr)
            done = done + k
        end do
        call post(peer, 14, buf, in, req)
        flag = .false.
        do while (.not. flag)
            call MPI_Testall(2, req, flag, MPI_STATUSES_IGNORE, ierr)
        end do
        call post(peer, 15, buf, in, req)
        done = 0
        do while (done < 2)
            call MPI_Testany(2, req, idx, flag, MPI_STATUS_IGNORE, ierr)
            if (flag) done = done + 1
        end do
        call post(peer, 16, buf, in, req)
        done = 0
        do while (done < 2)
            call MPI_Testsome(2, req, k, at, MPI_STATUSES_IGNORE, ierr)
            done = done + k
        end do
        bad = 1
        if (req(1) == MPI_REQUEST_NULL .and. req(2) == MPI_REQUEST_NULL) bad = 0
    end function

    integer function send_modes(peer, buf, in) result(bad)
        integer, intent(in) :: peer
        character, intent(inout) :: buf(NBYTES), in(NBYTES)
        character, save :: pool(4 * (NBYTES + MPI_BSEND_OVERHEAD))
        character, save :: ins(NBYTES, 5)
        REQUEST :: rq(5), sq(3)
        STATUS :: st
        integer :: i, bsize, ierr
        logical :: flag
#ifdef F08
        type(c_ptr) :: old
#else
        integer :: old(1)
#endif
        call MPI_Buffer_attach(pool, size(pool), ierr)
        do i = 1, 5
            call MPI_Irecv(ins(:, i), NBYTES, MPI_BYTE, peer, 16 + i, MPI_COMM_WORLD, rq(i), ierr)
        end do
        call MPI_Sendrecv(buf, NBYTES, MPI_BYTE, peer, 22, in, NBYTES, MPI_BYTE, peer, 22, &
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Issend(buf, NBYTES, MPI_BYTE, peer, 17, MPI_COMM_WORLD, sq(1), ierr)
        call MPI_Bsend(buf, NBYTES, MPI_BYTE, peer, 18, MPI_COMM_WORLD, ierr)
        call MPI_Ibsend(buf, NBYTES, MPI_BYTE, peer, 19, MPI_COMM_WORLD, sq(2), ierr)
        call MPI_Rsend(buf, NBYTES, MPI_BYTE, peer, 20, MPI_COMM_WORLD, ierr)
        call MPI_Irsend(buf, NBYTES, MPI_BYTE, peer, 21, MPI_COMM_WORLD, sq(3), ierr)
        call MPI_Waitall(5, rq, MPI_STATUSES_IGNORE, ierr)
        call MPI_Waitall(3, sq, MPI_STATUSES_IGNORE, ierr)
        call MPI_Buffer_detach(old, bsize, ierr)
        call MPI_Sendrecv_replace(buf, NBYTES, MPI_BYTE, peer, 23, peer, 23, MPI_COMM_WORLD, &
                                  MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(buf, NBYTES, MPI_BYTE, peer, 24, MPI_COMM_WORLD, sq(1), ierr)
        call MPI_Probe(peer, 24, MPI_COMM_WORLD, st, ierr)
        call MPI_Recv(in, NBYTES, MPI_BYTE, peer, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Wait(sq(1), MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(buf, NBYTES, MPI_BYTE, peer, 25, MPI_COMM_WORLD, sq(1), ierr)
        flag = .false.
        do while (.not. flag)
            call MPI_Iprobe(peer, 25, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
        end do
        call MPI_Recv(in, NBYTES, MPI_BYTE, peer, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Wait(sq(1), MPI_STATUS_IGNORE, ierr)
        bad = 1
        if (SOURCE_OF(st) == peer .and. TAG_OF(st) == 24) bad = 0
    end function

    integer function persistent(peer, buf, in) result(bad)
        integer, intent(in) :: peer
        character, intent(inout) :: buf(NBYTES), in(NBYTES)
        REQUEST :: req(2)
        STATUS :: st
        integer :: i, ierr
        call MPI_Recv_init(in, NBYTES, MPI_BYTE, peer, 26, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Send_init(buf, NBYTES, MPI_BYTE, peer, 26, MPI_COMM_WORLD, req(2), ierr)
        do i = 1, 2
            call MPI_Startall(2, req, ierr)
            call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
        end do
        call MPI_Start(req(1), ierr)
        call MPI_Start(req(2), ierr)
        call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
        call MPI_Wait(req(1), st, ierr)
        call MPI_Request_free(req(1), ierr)
        call MPI_Request_free(req(2), ierr)
        bad = 1
        if (SOURCE_OF(st) == peer .and. TAG_OF(st) == 26 .and. req(1) == MPI_REQUEST_NULL) bad = 0
    end function

    integer function collectives_v(rank, nranks, s, r) result(bad)
        integer, intent(in) :: rank, nranks, s(:)
        integer, intent(inout) :: r(:)
        integer :: counts(MAX_RANKS), displs(MAX_RANKS), i, ierr
        do i = 1, nranks
            counts(i) = N_INTS
            displs(i) = (i - 1) * N_INTS
        end do
        call MPI_Gatherv(s, N_INTS, MPI_INTEGER, r, counts, displs, MPI_INTEGER, 0, &
                         MPI_COMM_WORLD, ierr)
        call MPI_Scatterv(s, counts, displs, MPI_INTEGER, r, N_INTS, MPI_INTEGER, 0, &
                          MPI_COMM_WORLD, ierr)
        call MPI_Allgatherv(s, N_INTS, MPI_INTEGER, r, counts, displs, MPI_INTEGER, &
                            MPI_COMM_WORLD, ierr)
        call MPI_Alltoallv(s, counts, displs, MPI_INTEGER, r, counts, displs, MPI_INTEGER, &
                           MPI_COMM_WORLD, ierr)
        call MPI_Reduce_scatter(s, r, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Reduce_scatter_block(s, r, N_INTS, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        call MPI_Scan(s, r, N_INTS, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        bad = 0
        if (r(1) /= rank * (rank + 1) / 2) bad = 1
        call MPI_Exscan(s, r, N_INTS, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        if (rank > 0 .and. r(1) /= (rank - 1) * rank / 2) bad = 1
    end function

    subroutine collectives_nonblocking(s)
        integer, intent(in) :: s(:)
        integer, save :: out(N_INTS * MAX_RANKS, 8)
        REQUEST :: q(8)
        integer :: ierr
        call MPI_Ibarrier(MPI_COMM_WORLD, q(1), ierr)
        call MPI_Ibcast(out(:, 2), N_INTS, MPI_INTEGER, 0, MPI_COMM_WORLD, q(2), ierr)
        call MPI_Ireduce(s, out(:, 3), N_INTS, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, q(3), ierr)
        call MPI_Iallreduce(s, out(:, 4), N_INTS, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q(4), ierr)
        call MPI_Igather(s, N_INTS, MPI_INTEGER, out(:, 5), N_INTS, MPI_INTEGER, 0, &
                         MPI_COMM_WORLD, q(5), ierr)
        call MPI_Iallgather(s, N_INTS, MPI_INTEGER, out(:, 6), N_INTS, MPI_INTEGER, &
                            MPI_COMM_WORLD, q(6), ierr)
        call MPI_Iscatter(s, N_INTS, MPI_INTEGER, out(:, 7), N_INTS, MPI_INTEGER, 0, &
                          MPI_COMM_WORLD, q(7), ierr)
        call MPI_Ialltoall(s, N_INTS, MPI_INTEGER, out(:, 8), N_INTS, MPI_INTEGER, &
                           MPI_COMM_WORLD, q(8), ierr)
        call MPI_Waitall(8, q, MPI_STATUSES_IGNORE, ierr)
    end subroutine

    integer function collectives(rank, nranks) result(bad)
        integer, intent(in) :: rank, nranks
        integer, save :: s(N_INTS * MAX_RANKS), r(N_INTS * MAX_RANKS)
        integer :: i
        bad = 0
        if (nranks > MAX_RANKS) return
        do i = 1, N_INTS * nranks
            s(i) = rank + (i - 1) * nranks
        end do
        bad = collectives_v(rank, nranks, s, r)
        call collectives_nonblocking(s)
    end function

    subroutine abort_job(rank)
        integer, intent(in) :: rank
        character :: b(1)
        integer :: ierr
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
        call sleep(2)
        if (rank == 2) call MPI_Abort(MPI_COMM_WORLD, 7, ierr)
        call MPI_Recv(b, 1, MPI_BYTE, 2, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end subroutine
end module

program mpi_pingpong
    use PARTS
    implicit none
    character, save :: buf(NBYTES), in(NBYTES)
    character(len=16) :: arg
    integer :: rank, nranks, peer, bad, total, ierr
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    call get_command_argument(1, arg)
    if (arg == "abort" .and. nranks > 2) then
        call abort_job(rank)
        stop 1
    end if
    buf = achar(0)
    bad = 0
    peer = rank + 1
    if (mod(rank, 2) == 1) peer = rank - 1
    if (peer < nranks) then
        bad = pingpong(rank, peer, buf) ! one call after the other, as every rank makes them
        bad = ior(bad, exchange(peer, buf, in))
        bad = ior(bad, completions(peer, buf, in))
        bad = ior(bad, send_modes(peer, buf, in))
        bad = ior(bad, persistent(peer, buf, in))
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    bad = ior(bad, collectives(rank, nranks))
    call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
    if (total /= 0) then
        if (rank == 0) write (0, '(a, i0, a)') "mpi_pingpong: ", total, " ranks saw wrong values"
        stop 1
    end if
end program
