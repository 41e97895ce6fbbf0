! fortran_mpif.f90 -- Fortran test program using include 'mpif.h'.
! The program body (what is tested, the expectation file) is shared with
! fortran_usempi.f90 and lives in fortran_body.inc.
program fortran_mpif
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: progname = 'fortran_mpif'
  include 'fortran_body.inc'
end program fortran_mpif
