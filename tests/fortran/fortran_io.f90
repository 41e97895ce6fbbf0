! fortran_io.f90 -- MPI-IO from Fortran (use mpi): every rank writes 8
! INTEGERs at offset 32*rank of "$TMPDIR/fortran_io.dat" (MPI_File_open with
! a blank-padded CHARACTER file name, MPI_File_write_at_all with
! INTEGER(KIND=MPI_OFFSET_KIND) offsets), closes it, reopens it read-only,
! reads the whole file back (MPI_File_read_at_all), checks MPI_File_get_size
! and the contents, and rank 0 also reads the file with plain Fortran stream
! I/O before MPI_File_delete removes it.  Rank 0 prints the results; every
! rank writes its expectation file (fortran_expect.inc).
! tests/fortran/io.sh runs it with and without Ductile and checks the
! report's "io" section (bytes written and read for the file).
program fortran_io
  use mpi
  implicit none
  integer, parameter :: maxf = 32
  character(len=40) :: ex_name(maxf)
  integer(kind=8) :: ex_calls(maxf), ex_sent(maxf), ex_recv(maxf)
  integer :: ex_n
  integer :: ierr, rank, nprocs, fh, i, errors, tot_err, plen, stat, u
  integer :: mine(8), status(MPI_STATUS_SIZE)
  integer, allocatable :: whole(:), plain(:)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  integer(kind=8), parameter :: i4 = 4, z = 0
  character(len=4096) :: dir
  character(len=4200) :: path

  ex_n = 0
  errors = 0
  call expect('MPI_Init', z, z)
  call mpi_init(ierr)
  call expect('MPI_Comm_rank', z, z)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect('MPI_Comm_size', z, z)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call get_environment_variable('TMPDIR', dir, plen, stat)
  if (stat /= 0 .or. plen == 0) then
     dir = '/tmp'
     plen = 4
  end if
  path = dir(1:plen) // '/fortran_io.dat'     ! blank-padded to 4200

  do i = 1, 8
     mine(i) = 1000 * rank + i
  end do
  call expect('MPI_File_open', z, z)
  call mpi_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail('open for writing')
  off = 32 * rank
  call expect('MPI_File_write_at_all', 8 * i4, z)
  call mpi_file_write_at_all(fh, off, mine, 8, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) call fail('write_at_all')
  call expect('MPI_File_close', z, z)
  call mpi_file_close(fh, ierr)

  allocate(whole(8 * nprocs), plain(8 * nprocs))
  whole = -1
  call expect('MPI_File_open', z, z)
  call mpi_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail('open for reading')
  call expect('MPI_File_get_size', z, z)
  call mpi_file_get_size(fh, fsize, ierr)
  if (fsize /= 32 * nprocs) errors = errors + 1
  off = 0
  call expect('MPI_File_read_at_all', z, 8 * nprocs * i4)
  call mpi_file_read_at_all(fh, off, whole, 8 * nprocs, MPI_INTEGER, status, ierr)
  if (ierr /= MPI_SUCCESS) call fail('read_at_all')
  call expect('MPI_File_close', z, z)
  call mpi_file_close(fh, ierr)
  do i = 1, 8 * nprocs
     if (whole(i) /= 1000 * ((i - 1) / 8) + mod(i - 1, 8) + 1) errors = errors + 1
  end do

  call expect('MPI_Barrier', z, z)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     ! the file as the file system has it, without MPI
     open(newunit=u, file=trim(path), access='stream', form='unformatted', status='old', action='read')
     read(u) plain
     close(u)
     if (any(plain /= whole)) errors = errors + 1
     call expect('MPI_File_delete', z, z)
     call mpi_file_delete(path, MPI_INFO_NULL, ierr)
     if (ierr /= MPI_SUCCESS) call fail('delete')
  end if

  if (rank == 0) then
     call expect('MPI_Reduce', i4, i4)
  else
     call expect('MPI_Reduce', i4, z)
  end if
  call mpi_reduce(errors, tot_err, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     write(*, '(A,I0)') 'file size: ', fsize
     write(*, '(A,8(1X,I0))') 'last rank wrote:', whole(8 * nprocs - 7:)
     write(*, '(A,I0)') 'sum: ', sum(whole)
     write(*, '(A,I0,A,I0)') 'fortran_io: ', nprocs, ' ranks, errors=', tot_err
     errors = tot_err
  end if
  deallocate(whole, plain)
  call expect('MPI_Finalize', z, z)
  call expect_write()
  call mpi_finalize(ierr)
  if (errors /= 0) stop 1

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write(0, '(A,I0,A,A,A,I0)') 'fortran_io: rank ', rank, ': ', what, ' failed, ierr=', ierr
    errors = errors + 1
  end subroutine fail

  include 'fortran_expect.inc'
end program fortran_io
