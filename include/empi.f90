! empi.f90 -- the Fortran EMPI module (`use empi`), Ductile's FlexMPI-compatible
! malleability API for Fortran programs.  Compile this file with your program
! (it needs mpi_f08) and link with -lductile:
!
!   mpif90 -c $(pkg-config --variable=includedir ductile)/empi.f90
!   mpif90 prog.f90 empi.o -lductile
!
! Same calls and meanings as include/empi.h (docs/malleability.md); names are
! the C ones.  Ids are Fortran strings (trailing blanks ignored), buffers are
! passed as c_loc(...) (type(c_ptr)) and EMPI_Get_addr returns a type(c_ptr)
! for c_f_pointer; datatypes are mpi_f08's type(MPI_Datatype).
! EMPI_Monitor_end(rank, size, iter, maxiter, count, disp) returns the
! blocks of the first distributed item (call EMPI_Get_wsize for everybody's);
! EMPI_Monitor_end64 and EMPI_Get_wsize64 the same with integer(c_int64_t)
! counts and displacements (EMPI_Monitor_end gives MPI_UNDEFINED for a value
! past an int's range, include/empi.h).
module empi
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Datatype
  implicit none
  private :: cstr
  integer(c_int), parameter :: EMPI_DISJOINT = 674782, EMPI_SHARED = 617828, EMPI_ACTIVE = 776765, &
       EMPI_REMOVED = 787634, EMPI_SPAWNED = 938594, EMPI_NATIVE = 941490, EMPI_VARIABLE = 0, EMPI_CONSTANT = 1, &
       EMPI_STATIC = 324542, EMPI_DYNAMIC = 325765, EMPI_ROWS = 748838, EMPI_NNZ = 782891, &
       EMPI_LBALANCE = 357831, EMPI_MALLEABILITY = 341219, EMPI_EFFICIENCY = 312341, EMPI_COST = 391021, &
       EMPI_MALLEABILITY_COND = 391000, EMPI_MALLEABILITY_TRIG = 391050, EMPI_MONITORDBG = 303891

  interface
     subroutine EMPI_Get_wsize_c(rank, size, dim, desp, count, vcounts, displs) bind(C, name='EMPI_Get_wsize')
       import :: c_int, c_ptr
       integer(c_int), value :: rank, size, dim
       integer(c_int) :: desp, count
       type(c_ptr), value :: vcounts, displs
     end subroutine EMPI_Get_wsize_c
     subroutine c_register_dense(id, addr, dt, size, mapping) bind(C, name='EMPI_F_Register_dense')
       import :: c_char, c_ptr, c_int
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr
       integer(c_int), value :: dt, size, mapping
     end subroutine c_register_dense
     subroutine c_register_vector(id, addr, dt, size, mapping) bind(C, name='EMPI_F_Register_vector')
       import :: c_char, c_ptr, c_int
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr
       integer(c_int), value :: dt, size, mapping
     end subroutine c_register_vector
     function c_register_scalar(id, addr, dt, count) bind(C, name='EMPI_F_Register_scalar')
       import :: c_char, c_ptr, c_int
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr
       integer(c_int), value :: dt, count
       integer(c_int) :: c_register_scalar
     end function c_register_scalar
     function c_register_array(id, addr, dt, rows, row_elems, mapping, flags) bind(C, name='EMPI_F_Register_array')
       import :: c_char, c_ptr, c_int, c_int64_t
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr
       integer(c_int), value :: dt, mapping, flags
       integer(c_int64_t), value :: rows, row_elems
       integer(c_int) :: c_register_array
     end function c_register_array
     subroutine c_register_size(size) bind(C, name='EMPI_Register_size')
       import :: c_int
       integer(c_int), value :: size
     end subroutine c_register_size
     function c_set_buffer_rows(id, rows) bind(C, name='EMPI_Set_buffer_rows')
       import :: c_char, c_int, c_int64_t
       character(kind=c_char) :: id(*)
       integer(c_int64_t), value :: rows
       integer(c_int) :: c_set_buffer_rows
     end function c_set_buffer_rows
     function c_set_flags(id, flags) bind(C, name='EMPI_Set_flags')
       import :: c_char, c_int
       character(kind=c_char) :: id(*)
       integer(c_int), value :: flags
       integer(c_int) :: c_set_flags
     end function c_set_flags
     subroutine c_deregister(id) bind(C, name='EMPI_Deregister_shared')
       import :: c_char
       character(kind=c_char) :: id(*)
     end subroutine c_deregister
     function c_get_addr(id) bind(C, name='EMPI_Get_addr')
       import :: c_char, c_ptr
       character(kind=c_char) :: id(*)
       type(c_ptr) :: c_get_addr
     end function c_get_addr
     subroutine EMPI_Get_shared(it) bind(C, name='EMPI_Get_shared')
       import :: c_int
       integer(c_int) :: it
     end subroutine EMPI_Get_shared
     subroutine EMPI_Monitor_init() bind(C, name='EMPI_F_Monitor_init')
     end subroutine EMPI_Monitor_init
     subroutine EMPI_Monitor_end(rank, size, iter, maxiter, count, disp) bind(C, name='EMPI_F_Monitor_end')
       import :: c_int
       integer(c_int) :: rank, size, count, disp
       integer(c_int), value :: iter, maxiter
     end subroutine EMPI_Monitor_end
     subroutine EMPI_Monitor_end64(rank, size, iter, maxiter, count, disp) bind(C, name='EMPI_F_Monitor_end64')
       import :: c_int, c_int64_t
       integer(c_int) :: rank, size
       integer(c_int64_t) :: count, disp
       integer(c_int), value :: iter, maxiter
     end subroutine EMPI_Monitor_end64
     subroutine EMPI_Get_wsize64(rank, size, n, desp, count) bind(C, name='EMPI_Get_wsize64')
       import :: c_int, c_int64_t
       integer(c_int), value :: rank, size
       integer(c_int64_t), value :: n
       integer(c_int64_t) :: desp, count
     end subroutine EMPI_Get_wsize64
     subroutine EMPI_Get_status(status) bind(C, name='EMPI_Get_status')
       import :: c_int
       integer(c_int) :: status
     end subroutine EMPI_Get_status
     subroutine EMPI_Get_type(type) bind(C, name='EMPI_Get_type')
       import :: c_int
       integer(c_int) :: type
     end subroutine EMPI_Get_type
     subroutine EMPI_Get_iteration(it) bind(C, name='EMPI_Get_iteration')
       import :: c_int
       integer(c_int) :: it
     end subroutine EMPI_Get_iteration
     subroutine EMPI_Set_policy(policy) bind(C, name='EMPI_Set_policy')
       import :: c_int
       integer(c_int), value :: policy
     end subroutine EMPI_Set_policy
     subroutine EMPI_Get_aggregated_tcomp(t) bind(C, name='EMPI_Get_aggregated_tcomp')
       import :: c_double
       real(c_double) :: t
     end subroutine EMPI_Get_aggregated_tcomp
     subroutine EMPI_Get_aggregated_tcomm(t) bind(C, name='EMPI_Get_aggregated_tcomm')
       import :: c_double
       real(c_double) :: t
     end subroutine EMPI_Get_aggregated_tcomm
     function EMPI_malloc(n) bind(C, name='EMPI_malloc')
       import :: c_size_t, c_ptr
       integer(c_size_t), value :: n
       type(c_ptr) :: EMPI_malloc
     end function EMPI_malloc
     subroutine c_free(addr, id) bind(C, name='EMPI_free')
       import :: c_ptr, c_char
       type(c_ptr), value :: addr
       character(kind=c_char) :: id(*)
     end subroutine c_free
  end interface

contains

  function cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function cstr

  ! my block of dim rows; vcounts / displs (optional) get everybody's
  subroutine EMPI_Get_wsize(rank, size, dim, desp, count, vcounts, displs)
    integer(c_int), intent(in) :: rank, size, dim
    integer(c_int), intent(out) :: desp, count
    integer(c_int), intent(out), optional, target :: vcounts(*), displs(*)
    type(c_ptr) :: pv, pd
    pv = c_null_ptr
    pd = c_null_ptr
    if (present(vcounts)) pv = c_loc(vcounts(1))
    if (present(displs)) pd = c_loc(displs(1))
    call EMPI_Get_wsize_c(rank, size, dim, desp, count, pv, pd)
  end subroutine EMPI_Get_wsize

  subroutine EMPI_Register_dense(id, addr, datatype, size, mapping)
    character(len=*), intent(in) :: id
    type(c_ptr), intent(in) :: addr
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int), intent(in) :: size, mapping
    call c_register_dense(cstr(id), addr, datatype%MPI_VAL, size, mapping)
  end subroutine EMPI_Register_dense

  subroutine EMPI_Register_vector(id, addr, datatype, size, mapping)
    character(len=*), intent(in) :: id
    type(c_ptr), intent(in) :: addr
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int), intent(in) :: size, mapping
    call c_register_vector(cstr(id), addr, datatype%MPI_VAL, size, mapping)
  end subroutine EMPI_Register_vector

  integer(c_int) function EMPI_Register_scalar(id, addr, datatype, count)
    character(len=*), intent(in) :: id
    type(c_ptr), intent(in) :: addr
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int), intent(in) :: count
    EMPI_Register_scalar = c_register_scalar(cstr(id), addr, datatype%MPI_VAL, count)
  end function EMPI_Register_scalar

  integer(c_int) function EMPI_Register_array(id, addr, datatype, rows, row_elems, mapping, flags)
    character(len=*), intent(in) :: id
    type(c_ptr), intent(in) :: addr
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int64_t), intent(in) :: rows, row_elems
    integer(c_int), intent(in) :: mapping, flags
    EMPI_Register_array = c_register_array(cstr(id), addr, datatype%MPI_VAL, rows, row_elems, mapping, flags)
  end function EMPI_Register_array

  subroutine EMPI_Register_size(size)
    integer(c_int), intent(in) :: size
    call c_register_size(size)
  end subroutine EMPI_Register_size

  integer(c_int) function EMPI_Set_buffer_rows(id, rows)
    character(len=*), intent(in) :: id
    integer(c_int64_t), intent(in) :: rows
    EMPI_Set_buffer_rows = c_set_buffer_rows(cstr(id), rows)
  end function EMPI_Set_buffer_rows

  integer(c_int) function EMPI_Set_flags(id, flags)
    character(len=*), intent(in) :: id
    integer(c_int), intent(in) :: flags
    EMPI_Set_flags = c_set_flags(cstr(id), flags)
  end function EMPI_Set_flags

  subroutine EMPI_Deregister_shared(id)
    character(len=*), intent(in) :: id
    call c_deregister(cstr(id))
  end subroutine EMPI_Deregister_shared

  type(c_ptr) function EMPI_Get_addr(id)
    character(len=*), intent(in) :: id
    EMPI_Get_addr = c_get_addr(cstr(id))
  end function EMPI_Get_addr

  subroutine EMPI_free(addr, id)
    type(c_ptr), intent(in) :: addr
    character(len=*), intent(in) :: id
    call c_free(addr, cstr(id))
  end subroutine EMPI_free
end module empi
