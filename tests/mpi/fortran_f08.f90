! fortran_f08.f90 -- Fortran test program using the mpi_f08 module (use
! mpi_f08): derived-type handles and status, OPTIONAL ierror.  The program
! body (what is tested, the expectation file) is shared with fortran_mpif.f90
! and fortran_usempi.f90 and lives in fortran_body.inc.
program fortran_f08
  use mpi_f08
  implicit none
  character(len=*), parameter :: progname = 'fortran_f08'
  type(MPI_Status) :: status
  type(MPI_Datatype) :: types(16)
  type(MPI_Comm) :: dup
  type(MPI_Info) :: info
  include 'fortran_body.inc'

  integer function source_of(st)
    type(MPI_Status), intent(in) :: st
    source_of = st%MPI_SOURCE
  end function source_of

  subroutine world_barrier()
    call MPI_Barrier(MPI_COMM_WORLD)   ! ierror absent: Ductile gets NULL; expected by the caller (fortran_body.inc)
  end subroutine world_barrier
end program fortran_f08
