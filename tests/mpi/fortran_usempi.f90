! fortran_usempi.f90 -- Fortran test program using the mpi module (use mpi).
! The program body (what is tested, the expectation file) is shared with
! fortran_mpif.f90 and lives in fortran_body.inc.
program fortran_usempi
  use mpi
  implicit none
  character(len=*), parameter :: progname = 'fortran_usempi'
  include 'fortran_body.inc'
end program fortran_usempi
