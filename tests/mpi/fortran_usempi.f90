! fortran_usempi.f90 -- Fortran test program using the mpi module (use mpi).
! The program body (what is tested, the expectation file) is shared with
! fortran_mpif.f90 and fortran_f08.f90 and lives in fortran_body.inc.
program fortran_usempi
  use mpi
  implicit none
  character(len=*), parameter :: progname = 'fortran_usempi'
  integer :: status(MPI_STATUS_SIZE), types(16), dup, info
  include 'fortran_body.inc'

  integer function source_of(st)
    integer, intent(in) :: st(MPI_STATUS_SIZE)
    source_of = st(MPI_SOURCE)
  end function source_of

  subroutine world_barrier()
    call mpi_barrier(MPI_COMM_WORLD, ierr)   ! expected by the caller (fortran_body.inc)
  end subroutine world_barrier
end program fortran_usempi
