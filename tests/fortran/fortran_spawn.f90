! fortran_spawn.f90 -- MPI_COMM_SPAWN from Fortran (use mpi).  The parents
! (every rank of MPI_COMM_WORLD, root 0) spawn 2 copies of this program with
! ARGV = ['worker', '  x y', blank]: the CHARACTER*(*) array with its hidden
! length, ended by a blank entry (MPI: leading and trailing blanks of each
! argument are stripped, the worker gets 'x y'), and collect the error codes.  Each worker
! checks its command-line arguments, sends (its rank, 1 if the arguments
! are right) to parent rank 0 over the intercommunicator from
! MPI_COMM_GET_PARENT and disconnects.  A second spawn passes MPI_ARGV_NULL
! and MPI_ERRCODES_IGNORE; its worker expects no arguments.  A third,
! MPI_COMM_SPAWN_MULTIPLE, starts one worker with the first ARGV and one with
! an empty one (a 2-D CHARACTER array, row i for command i); it runs only with
! FSPAWN_MULTIPLE=1 in the environment: Open MPI 4.1.4 hangs at random in a
! third spawn of one job without Ductile too (measured here, and mpi4py's
! spawn-multiple tests hang the same way), so the default run stops at two.  Rank 0 prints
! what it received; the parents write their expectation files
! (fortran_expect.inc), the workers none.
program fortran_spawn
  use mpi
  implicit none
  integer, parameter :: maxf = 32
  character(len=40) :: ex_name(maxf)
  integer(kind=8) :: ex_calls(maxf), ex_sent(maxf), ex_recv(maxf)
  integer :: ex_n
  integer :: ierr, rank, nprocs, parent, inter, i, errors, tot_err, msg(2), codes(2), n
  integer :: status(MPI_STATUS_SIZE)
  character(len=12) :: args(3), args2(2, 3)
  character(len=4096) :: cmds(2)
  integer :: maxp(2), infos(2), codes2(2)
  character(len=4096) :: self, a1, a2
  character(len=8) :: multiple
  integer(kind=8), parameter :: i4 = 4, z = 0

  ex_n = 0
  errors = 0
  call mpi_init(ierr)
  call mpi_comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
     ! a worker: which spawn am I from?  the argument count says
     call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
     n = command_argument_count()
     msg(1) = rank
     msg(2) = 0
     if (n == 2) then
        call get_command_argument(1, a1)
        call get_command_argument(2, a2)
        if (a1 == 'worker' .and. a2 == 'x y') msg(2) = 1
     else if (n == 0) then
        msg(2) = 2
     end if
     call mpi_send(msg, 2, MPI_INTEGER, 0, 5, parent, ierr)
     call mpi_comm_disconnect(parent, ierr)
     call mpi_finalize(ierr)
     stop
  end if

  call expect('MPI_Init', z, z)
  call expect('MPI_Comm_get_parent', z, z)
  call expect('MPI_Comm_rank', z, z)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect('MPI_Comm_size', z, z)
  call mpi_comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(0, self)

  args(1) = 'worker'
  args(2) = '  x y'
  args(3) = ' '
  codes = -1
  call expect('MPI_Comm_spawn', z, z)
  call mpi_comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes, ierr)
  if (ierr /= MPI_SUCCESS .or. any(codes /= MPI_SUCCESS)) errors = errors + 1
  if (rank == 0) then
     do i = 1, 2
        call expect('MPI_Recv', z, 2 * i4)
        call mpi_recv(msg, 2, MPI_INTEGER, i - 1, 5, inter, status, ierr)
        if (msg(2) /= 1) errors = errors + 1
        write(*, '(A,I0,A,I0)') 'worker ', msg(1), ' argv ok: ', msg(2)
     end do
  end if
  call expect('MPI_Comm_disconnect', z, z)
  call mpi_comm_disconnect(inter, ierr)

  call expect('MPI_Comm_spawn', z, z)
  call mpi_comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) errors = errors + 1
  if (rank == 0) then
     call expect('MPI_Recv', z, 2 * i4)
     call mpi_recv(msg, 2, MPI_INTEGER, 0, 5, inter, status, ierr)
     if (msg(2) /= 2) errors = errors + 1
     write(*, '(A,I0)') 'MPI_ARGV_NULL worker: no arguments: ', msg(2)
  end if
  call expect('MPI_Comm_disconnect', z, z)
  call mpi_comm_disconnect(inter, ierr)

  call get_environment_variable('FSPAWN_MULTIPLE', multiple)
  if (multiple == '1') then
  cmds(1) = self
  cmds(2) = self
  args2(1, :) = args
  args2(2, :) = ' '
  maxp = 1
  infos = MPI_INFO_NULL
  codes2 = -1
  call expect('MPI_Comm_spawn_multiple', z, z)
  call mpi_comm_spawn_multiple(2, cmds, args2, maxp, infos, 0, MPI_COMM_WORLD, inter, codes2, ierr)
  if (ierr /= MPI_SUCCESS .or. any(codes2 /= MPI_SUCCESS)) errors = errors + 1
  if (rank == 0) then
     do i = 1, 2
        call expect('MPI_Recv', z, 2 * i4)
        call mpi_recv(msg, 2, MPI_INTEGER, i - 1, 5, inter, status, ierr)
        if (msg(2) /= i) errors = errors + 1
        write(*, '(A,I0,A,I0)') 'spawn_multiple worker ', msg(1), ': ', msg(2)
     end do
  end if
  call expect('MPI_Comm_disconnect', z, z)
  call mpi_comm_disconnect(inter, ierr)
  end if

  if (rank == 0) then
     call expect('MPI_Reduce', i4, i4)
  else
     call expect('MPI_Reduce', i4, z)
  end if
  call mpi_reduce(errors, tot_err, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     write(*, '(A,I0,A,I0)') 'fortran_spawn: ', nprocs, ' ranks, errors=', tot_err
     errors = tot_err
  end if
  call expect('MPI_Finalize', z, z)
  call expect_write()
  call mpi_finalize(ierr)
  if (errors /= 0) stop 1

contains

  include 'fortran_expect.inc'
end program fortran_spawn
