! fortran_malleable.f90 -- a malleable Fortran program (use mpi_f08): it
! calls Ductile's C EMPI_* functions through bind(C) interfaces (a `use
! empi` module does not exist yet) and is resized by DUCTILE_SCHEDULE.
!
! usage: fortran_malleable ITERATIONS
! A vector of N doubles is registered distributed (EMPI_DISJOINT, memory
! from EMPI_malloc) and a replicated scalar iteration mark; every iteration
! writes val(g, it) = 1.5 g + it into my block, and after every control
! point (EMPI_Monitor_end: maybe a resize) every rank checks its block byte
! for byte, that MPI_COMM_WORLD -- through Ductile's Fortran bindings --
! has the size EMPI_Monitor_end returned, and that the blocks tile the
! vector (MPI_Allreduce over MPI_COMM_WORLD).  Spawned processes receive
! the data with EMPI_Get_shared and check it too.  Rank 0 ends with
!   FINAL size=<size> iterations=<n> failures=<count> type=<native|spawned>
! (the same line as tests/malleable/resize_app).  Open MPI only: the
! datatype handle is passed to C as MPI_Type_f2c's pointer.
program fortran_malleable
  use mpi_f08
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int), parameter :: N = 1000
  integer(c_int), parameter :: EMPI_DISJOINT = 674782, EMPI_REMOVED = 787634, EMPI_SPAWNED = 938594
  interface
     subroutine EMPI_Get_wsize(rank, size, dim, desp, count, vcounts, displs) bind(C, name='EMPI_Get_wsize')
       import :: c_int, c_ptr
       integer(c_int), value :: rank, size, dim
       integer(c_int) :: desp, count
       type(c_ptr), value :: vcounts, displs
     end subroutine EMPI_Get_wsize
     subroutine EMPI_Register_vector(id, addr, datatype, size, mapping) bind(C, name='EMPI_Register_vector')
       import :: c_char, c_ptr, c_int
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr, datatype
       integer(c_int), value :: size, mapping
     end subroutine EMPI_Register_vector
     function EMPI_Register_scalar(id, addr, datatype, count) bind(C, name='EMPI_Register_scalar')
       import :: c_char, c_ptr, c_int
       character(kind=c_char) :: id(*)
       type(c_ptr), value :: addr, datatype
       integer(c_int), value :: count
       integer(c_int) :: EMPI_Register_scalar
     end function EMPI_Register_scalar
     function EMPI_Get_addr(id) bind(C, name='EMPI_Get_addr')
       import :: c_char, c_ptr
       character(kind=c_char) :: id(*)
       type(c_ptr) :: EMPI_Get_addr
     end function EMPI_Get_addr
     function EMPI_malloc(n) bind(C, name='EMPI_malloc')
       import :: c_size_t, c_ptr
       integer(c_size_t), value :: n
       type(c_ptr) :: EMPI_malloc
     end function EMPI_malloc
     subroutine EMPI_Get_shared(it) bind(C, name='EMPI_Get_shared')
       import :: c_int
       integer(c_int) :: it
     end subroutine EMPI_Get_shared
     subroutine EMPI_Monitor_init() bind(C, name='ductile_empi_monitor_init0')
     end subroutine EMPI_Monitor_init
     subroutine EMPI_Monitor_end(rank, size, iter, maxiter, count, disp, vcount, vdisp, fc, argv, bin) &
          bind(C, name='EMPI_Monitor_end')
       import :: c_int, c_ptr
       integer(c_int) :: rank, size
       integer(c_int), value :: iter, maxiter
       type(c_ptr), value :: count, disp, vcount, vdisp, fc, argv, bin
     end subroutine EMPI_Monitor_end
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
     function MPI_Type_f2c(f) bind(C, name='MPI_Type_f2c')
       import :: c_int, c_ptr
       integer(c_int), value :: f
       type(c_ptr) :: MPI_Type_f2c
     end function MPI_Type_f2c
  end interface

  integer(c_int) :: rank, size, it, iters, status, ptype, desp, cnt, mark
  integer :: failures, total, fl, wsize, wrank
  integer(c_int), target :: mark_t
  character(len=32) :: arg
  real(c_double), pointer :: x(:)

  call MPI_Init()
  call get_command_argument(1, arg)
  iters = 10
  if (len_trim(arg) > 0) read(arg, *) iters
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  failures = 0
  status = 0

  call EMPI_Get_wsize(rank, size, N, desp, cnt, c_null_ptr, c_null_ptr)
  call EMPI_Register_vector('x' // c_null_char, EMPI_malloc(int(max(cnt, 1) * 8, c_size_t)), &
       MPI_Type_f2c(MPI_DOUBLE_PRECISION%MPI_VAL), N, EMPI_DISJOINT)
  mark_t = 0
  if (EMPI_Register_scalar('mark' // c_null_char, c_loc(mark_t), MPI_Type_f2c(MPI_INTEGER%MPI_VAL), 1) /= 0) &
       error stop 'EMPI_Register_scalar failed'

  it = 0
  call EMPI_Get_type(ptype)
  if (ptype == EMPI_SPAWNED) then
     call EMPI_Get_shared(it)
     call check(it - 1)
  end if

  do while (it < iters)
     call EMPI_Monitor_init()
     call fill(it)
     call EMPI_Monitor_end(rank, size, it, iters, c_null_ptr, c_null_ptr, c_null_ptr, c_null_ptr, &
          c_null_ptr, c_null_ptr, c_null_ptr)
     call EMPI_Get_status(status)
     if (status == EMPI_REMOVED) exit
     call EMPI_Get_iteration(it)
     call check(it)
     it = it + 1
  end do

  if (status /= EMPI_REMOVED) then
     call MPI_Allreduce(failures, fl, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
     if (rank == 0) then
        if (ptype == EMPI_SPAWNED) then
           write(*, '(A,I0,A,I0,A,I0,A)') 'FINAL size=', size, ' iterations=', it, ' failures=', fl, ' type=spawned'
        else
           write(*, '(A,I0,A,I0,A,I0,A)') 'FINAL size=', size, ' iterations=', it, ' failures=', fl, ' type=native'
        end if
     end if
  end if
  call MPI_Finalize()

contains

  real(c_double) function val(g, i)
    integer, intent(in) :: g, i
    val = 1.5d0 * g + i
  end function val

  subroutine block()
    call EMPI_Get_wsize(rank, size, N, desp, cnt, c_null_ptr, c_null_ptr)
    call c_f_pointer(EMPI_Get_addr('x' // c_null_char), x, [max(cnt, 1)])
  end subroutine block

  subroutine fill(i)
    integer(c_int), intent(in) :: i
    integer :: k
    call block()
    do k = 1, cnt
       x(k) = val(desp + k - 1, i)
    end do
    mark_t = 3 * i + 1
  end subroutine fill

  subroutine check(i)
    integer(c_int), intent(in) :: i
    integer :: k
    integer(c_int), pointer :: m
    call block()
    do k = 1, cnt
       if (x(k) /= val(desp + k - 1, i)) then
          if (failures < 5) write(0, '(A,I0,A,I0,A,I0,A,I0)') 'CHECK FAIL rank ', rank, '/', size, ' it ', i, &
               ' element ', desp + k - 1
          failures = failures + 1
       end if
    end do
    call c_f_pointer(EMPI_Get_addr('mark' // c_null_char), m)
    if (m /= 3 * i + 1) failures = failures + 1
    ! the Fortran MPI_COMM_WORLD is Ductile's current world
    call MPI_Comm_size(MPI_COMM_WORLD, wsize)
    call MPI_Comm_rank(MPI_COMM_WORLD, wrank)
    if (wsize /= size .or. wrank /= rank) then
       write(0, '(A,I0,A,I0,A,I0,A,I0)') 'CHECK FAIL MPI_COMM_WORLD is ', wrank, '/', wsize, ', EMPI says ', rank, '/', size
       failures = failures + 1
    end if
    call MPI_Allreduce(cnt, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (total /= N) failures = failures + 1
  end subroutine check
end program fortran_malleable
