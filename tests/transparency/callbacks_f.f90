! callbacks_f.f90 -- Fortran error handlers (use mpi) see the program's
! handles (docs/virtual-world.md, "Callbacks"): a communicator handler on
! MPI_COMM_WORLD raised by the program (MPI_COMM_CALL_ERRHANDLER) and by the
! library (a send to an invalid rank), the same through MPI-1's
! MPI_ERRHANDLER_CREATE and MPI_ERRHANDLER_SET, and a file handler on a
! file opened on MPI_COMM_WORLD.  usage: callbacks_f DIR
! Rank 0 prints "RESULT size=S failures=F".
module callbacks_f_state
  implicit none
  integer :: ncomm = 0, gotcomm = -1, nfile = 0, gotfile = -1, failures = 0
end module callbacks_f_state

subroutine comm_handler(comm, code)
  use callbacks_f_state
  implicit none
  integer :: comm, code
  ncomm = ncomm + 1
  gotcomm = comm
  if (code == 0) failures = failures + 1
end subroutine comm_handler

subroutine file_handler(fh, code)
  use callbacks_f_state
  implicit none
  integer :: fh, code
  nfile = nfile + 1
  gotfile = fh
  if (code == 0) failures = failures + 1
end subroutine file_handler

subroutine check(ok, what)
  use callbacks_f_state
  implicit none
  logical :: ok
  character(len=*) :: what
  if (.not. ok) then
    failures = failures + 1
    write (0, '(a,a)') 'CHECK FAIL: ', what
  end if
end subroutine check

program callbacks_f
  use mpi
  use callbacks_f_state
  implicit none
  external comm_handler, file_handler
  integer :: ierr, rank, size, eh, oldeh, feh, fh, x, n, total
  character(len=4096) :: dir
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  call get_command_argument(1, dir)
  call MPI_COMM_CREATE_ERRHANDLER(comm_handler, eh, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, eh, ierr)
  n = ncomm
  call MPI_COMM_CALL_ERRHANDLER(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
  call check(ncomm == n + 1 .and. gotcomm == MPI_COMM_WORLD, 'comm handler raised by the program')
  n = ncomm
  x = 1
  call MPI_SEND(x, 1, MPI_INTEGER, size + 7, 0, MPI_COMM_WORLD, ierr)
  call check(ncomm == n + 1 .and. gotcomm == MPI_COMM_WORLD, 'comm handler raised by the library')
  ! MPI-1's names
  call MPI_ERRHANDLER_CREATE(comm_handler, oldeh, ierr)
  call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, oldeh, ierr)
  n = ncomm
  call MPI_COMM_CALL_ERRHANDLER(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
  call check(ncomm == n + 1 .and. gotcomm == MPI_COMM_WORLD, 'MPI_ERRHANDLER_CREATE''s handler')
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  ! a file on the world
  call MPI_FILE_CREATE_ERRHANDLER(file_handler, feh, ierr)
  call MPI_FILE_OPEN(MPI_COMM_WORLD, trim(dir) // '/cbf.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                     MPI_INFO_NULL, fh, ierr)
  call MPI_FILE_SET_ERRHANDLER(fh, feh, ierr)
  n = nfile
  call MPI_FILE_CALL_ERRHANDLER(fh, MPI_ERR_OTHER, ierr)
  call check(nfile == n + 1 .and. gotfile == fh, 'file handler raised by the program')
  call MPI_FILE_CLOSE(fh, ierr)
  call MPI_ERRHANDLER_FREE(eh, ierr)
  call MPI_ERRHANDLER_FREE(oldeh, ierr)
  call MPI_ERRHANDLER_FREE(feh, ierr)
  call MPI_ALLREDUCE(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,i0)') 'RESULT size=', size, ' failures=', total
  call MPI_FINALIZE(ierr)
end program callbacks_f
