! SPDX-License-Identifier: MIT
!
! mpi_io.F90 - mpi_io.c in Fortran, call for call (the same MPI-IO calls
! on one shared file, argument 1, with the same counts and offsets), so
! that trace_mpiio_test.py checks the traces of both alike.  Built with
! `use mpi` and with -DF08 `use mpi_f08`.  Exit status 0, or 1 when a
! value read back or a count is wrong.
#ifdef F08
#define PARTS mpi_io_parts_f08
#define FILE_T type(MPI_File)
#define REQUEST type(MPI_Request)
#define STATUS type(MPI_Status)
#else
#define PARTS mpi_io_parts
#define FILE_T integer
#define REQUEST integer
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#endif

module PARTS
#ifdef F08
    use mpi_f08
#else
    use mpi
#endif
    implicit none
    integer, parameter :: KIB = 1024
contains

    integer function write_all_kinds(fh, rank, n, buf) result(bad)
        FILE_T, intent(inout) :: fh
        integer, intent(in) :: rank, n
        character, intent(inout) :: buf(KIB)
        STATUS :: st
        REQUEST :: req
        integer :: got, ierr
        integer(kind=MPI_OFFSET_KIND) :: off
        off = int(rank, MPI_OFFSET_KIND) * KIB
        call MPI_File_write_at(fh, off, buf, KIB, MPI_BYTE, st, ierr)
        call MPI_Get_count(st, MPI_BYTE, got, ierr)
        off = int(n + rank, MPI_OFFSET_KIND) * KIB
        call MPI_File_write_at_all(fh, off, buf, KIB / 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        off = int(2 * n, MPI_OFFSET_KIND) * KIB + rank * 512
        call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
        call MPI_File_write(fh, buf, 512, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
        off = int(3 * n, MPI_OFFSET_KIND) * KIB + rank * 100
        call MPI_File_iwrite_at(fh, off, buf, 100, MPI_BYTE, req, ierr)
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
        bad = 1
        if (got == KIB) bad = 0
    end function

    integer function read_back(fh, rank, n, buf) result(bad)
        FILE_T, intent(inout) :: fh
        integer, intent(in) :: rank, n
        character, intent(in) :: buf(KIB)
        character :: in(KIB)
        STATUS :: st
        integer :: got, ierr
        integer(kind=MPI_OFFSET_KIND) :: off, fend
        call MPI_File_sync(fh, ierr)
        off = int(rank, MPI_OFFSET_KIND) * KIB
        call MPI_File_read_at_all(fh, off, in, KIB, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
        bad = 0
        if (any(in /= buf)) bad = 1
        fend = int(3 * n, MPI_OFFSET_KIND) * KIB + int(n, MPI_OFFSET_KIND) * 100
        call MPI_File_read_at(fh, fend - 24, in, KIB, MPI_BYTE, st, ierr)
        call MPI_Get_count(st, MPI_BYTE, got, ierr)
        if (got /= 24) bad = 1
    end function
end module

program mpi_io_check
    use PARTS
    implicit none
    character :: buf(KIB)
    character(len=4096) :: path
    FILE_T :: fh
    integer :: rank, n, i, bad, ierr
    integer(kind=MPI_OFFSET_KIND) :: zero, size
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    do i = 1, KIB
        buf(i) = achar(mod(rank * 31 + i - 1, 256))
    end do
    bad = 1
    if (command_argument_count() >= 1) then
        call get_command_argument(1, path)
        call MPI_File_open(MPI_COMM_WORLD, trim(path), ior(MPI_MODE_CREATE, MPI_MODE_RDWR), &
                           MPI_INFO_NULL, fh, ierr)
        if (ierr == MPI_SUCCESS) bad = 0
    end if
    if (bad == 0) then
        bad = write_all_kinds(fh, rank, n, buf)
        bad = ior(bad, read_back(fh, rank, n, buf))
        call MPI_File_write_ordered(fh, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
        zero = 0
        call MPI_File_set_view(fh, zero, MPI_INTEGER, MPI_INTEGER, "native", MPI_INFO_NULL, ierr)
        size = int(8 * n, MPI_OFFSET_KIND) * KIB
        call MPI_File_set_size(fh, size, ierr)
        call MPI_File_close(fh, ierr)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. bad == 0) call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr)
    call MPI_Finalize(ierr)
    if (bad /= 0) stop 1
end program
