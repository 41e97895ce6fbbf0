! fortran_usempi.f90 -- Fortran test program using the mpi module (use mpi).
!
! Comm_rank/Comm_size, Bcast, Allreduce (also MPI_IN_PLACE), a Send/Recv
! ring, Barrier, Reduce, Gather.  Rank 0 prints the results.
! When TEST_EXPECT_PREFIX (or DUCTILE_TEST_EXPECT) is set, every rank writes
! the expectation file "$TEST_EXPECT_PREFIX.<rank>" (as tests/mpi/expect.h), listing
! the calls under their C names (MPI_Init, MPI_Send, ...).
! Byte counts: MPI_INTEGER = 4 bytes, MPI_DOUBLE_PRECISION = 8 bytes.
program fortran_usempi
  use mpi
  implicit none
  integer, parameter :: maxf = 32
  character(len=40) :: ex_name(maxf)
  integer(kind=8) :: ex_calls(maxf), ex_sent(maxf), ex_recv(maxf)
  integer :: ex_n
  integer :: ierr, rank, nprocs, left, right, i, errors, tot_err, bsum
  integer :: ibuf(8), isum(8), token(4), status(MPI_STATUS_SIZE)
  double precision :: dmax(3)
  integer, allocatable :: all(:)
  integer(kind=8), parameter :: i4 = 4, d8 = 8, z = 0

  ex_n = 0
  errors = 0

  call expect('MPI_Init', z, z)
  call mpi_init(ierr)
  call expect('MPI_Comm_rank', z, z)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect('MPI_Comm_size', z, z)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  if (nprocs < 2) then
     write(0, *) 'fortran_usempi: needs at least 2 ranks'
     call expect('MPI_Abort', z, z)
     call mpi_abort(MPI_COMM_WORLD, 2, ierr)
  end if

  ! Bcast 8 integers from rank 0
  do i = 1, 8
     if (rank == 0) then
        ibuf(i) = 3 * i
     else
        ibuf(i) = -1
     end if
  end do
  if (rank == 0) then
     call expect('MPI_Bcast', 8 * i4, z)
  else
     call expect('MPI_Bcast', z, 8 * i4)
  end if
  call mpi_bcast(ibuf, 8, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, 8
     if (ibuf(i) /= 3 * i) errors = errors + 1
  end do
  bsum = sum(ibuf)

  ! Allreduce: 8 integers SUM, then 3 doubles MAX in place
  do i = 1, 8
     ibuf(i) = rank * i
  end do
  call expect('MPI_Allreduce', 8 * i4, 8 * i4)
  call mpi_allreduce(ibuf, isum, 8, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 8
     if (isum(i) /= i * nprocs * (nprocs - 1) / 2) errors = errors + 1
  end do
  do i = 1, 3
     dmax(i) = dble(rank) + 0.5d0 * i
  end do
  call expect('MPI_Allreduce', 3 * d8, 3 * d8)
  call mpi_allreduce(MPI_IN_PLACE, dmax, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  do i = 1, 3
     if (abs(dmax(i) - (dble(nprocs - 1) + 0.5d0 * i)) > 1.0d-12) errors = errors + 1
  end do

  ! ring: rank 0 sends first; receive into room for 4, 3 are sent
  token = -1
  if (rank == 0) then
     token(1:3) = (/ 1, 2, 3 /)
     call expect('MPI_Send', 3 * i4, z)
     call mpi_send(token, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
     call expect('MPI_Recv', z, 4 * i4)
     call mpi_recv(token, 4, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
  else
     call expect('MPI_Recv', z, 4 * i4)
     call mpi_recv(token, 4, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
     token(1:3) = token(1:3) + 10
     call expect('MPI_Send', 3 * i4, z)
     call mpi_send(token, 3, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  end if
  if (status(MPI_SOURCE) /= left) errors = errors + 1

  call expect('MPI_Barrier', z, z)
  call mpi_barrier(MPI_COMM_WORLD, ierr)

  ! results: Gather the token's first element, Reduce the error count
  allocate(all(nprocs))
  if (rank == 0) then
     call expect('MPI_Gather', i4, nprocs * i4)
  else
     call expect('MPI_Gather', i4, z)
  end if
  call mpi_gather(token(1), 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     call expect('MPI_Reduce', i4, i4)
  else
     call expect('MPI_Reduce', i4, z)
  end if
  call mpi_reduce(errors, tot_err, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)

  if (rank == 0) then
     write(*, '(A,1X,I0)') 'bcast sum:', bsum
     write(*, '(A,8(1X,I0))') 'allreduce sum:', isum
     write(*, '(A,3(1X,F6.2))') 'allreduce max:', dmax
     write(*, '(A,3(1X,I0))') 'ring token:', token(1:3)
     write(*, '(A,100(1X,I0))') 'gathered:', all
     write(*, '(A,I0,A,I0)') 'fortran_usempi: ', nprocs, ' ranks, errors=', tot_err
     errors = tot_err
  end if
  deallocate(all)

  call expect('MPI_Finalize', z, z)
  call expect_write()
  call mpi_finalize(ierr)
  if (errors /= 0) stop 1

contains

  subroutine expect(name, sent, recv)
    character(len=*), intent(in) :: name
    integer(kind=8), intent(in) :: sent, recv
    integer :: k
    do k = 1, ex_n
       if (ex_name(k) == name) then
          ex_calls(k) = ex_calls(k) + 1
          ex_sent(k) = ex_sent(k) + sent
          ex_recv(k) = ex_recv(k) + recv
          return
       end if
    end do
    if (ex_n == maxf) stop 'expect: table full'
    ex_n = ex_n + 1
    ex_name(ex_n) = name
    ex_calls(ex_n) = 1
    ex_sent(ex_n) = sent
    ex_recv(ex_n) = recv
  end subroutine expect

  subroutine expect_write()
    character(len=4096) :: prefix
    character(len=16) :: rstr
    integer :: plen, stat, k, u
    call get_environment_variable('TEST_EXPECT_PREFIX', prefix, plen, stat)
    if (stat /= 0 .or. plen == 0) then
       call get_environment_variable('DUCTILE_TEST_EXPECT', prefix, plen, stat)
       if (stat /= 0 .or. plen == 0) return
    end if
    write(rstr, '(I0)') rank
    open(newunit=u, file=prefix(1:plen)//'.'//trim(rstr), status='replace', action='write')
    do k = 1, ex_n
       write(u, '(A,3(1X,I0))') trim(ex_name(k)), ex_calls(k), ex_sent(k), ex_recv(k)
    end do
    close(u)
  end subroutine expect_write

end program fortran_usempi
