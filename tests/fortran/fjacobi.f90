! fjacobi.f90 -- a malleable Jacobi in Fortran with the EMPI module (`use
! empi`, include/empi.f90) and mpi_f08: the matrix is registered distributed
! by rows (each local column is a global row), x replicated; resized by
! DUCTILE_SCHEDULE.  Rank 0 prints the bits of the checksum (bit-identical
! to a static run) and the final size:
!   checksum <16 hex digits> on <size> processes
! usage: fjacobi DIM ITERS
program fjacobi
  use mpi_f08
  use empi
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int) :: dim, itmax, rank, size, desp, count, typ, status, it, i, j, g
  integer(c_int), allocatable :: vcounts(:), displs(:)
  real(c_double), pointer :: A(:, :), x_old(:)
  real(c_double), allocatable :: x_new(:)
  real(c_double) :: s, sum
  type(c_ptr) :: pa, px
  character(len=32) :: arg

  call MPI_Init()
  call get_command_argument(1, arg)
  read (arg, *) dim
  call get_command_argument(2, arg)
  read (arg, *) itmax
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  it = 0
  status = EMPI_ACTIVE
  call EMPI_Set_policy(EMPI_MALLEABILITY)
  call EMPI_Get_wsize(rank, size, dim, desp, count)
  pa = EMPI_malloc(int(max(count, 1), c_size_t) * int(dim, c_size_t) * 8_c_size_t)
  px = EMPI_malloc(int(dim, c_size_t) * 8_c_size_t)
  call EMPI_Register_dense('matrix', pa, MPI_DOUBLE_PRECISION, dim, EMPI_DISJOINT)
  call EMPI_Register_vector('x_old', px, MPI_DOUBLE_PRECISION, dim, EMPI_SHARED)
  call c_f_pointer(pa, A, [dim, max(count, 1)])
  call c_f_pointer(px, x_old, [dim])
  allocate (x_new(dim))
  call EMPI_Get_type(typ)
  if (typ == EMPI_NATIVE) then
     do i = 1, count
        g = desp + i - 1
        do j = 0, dim - 1
           if (g == j) then
              A(j + 1, i) = 2.0d0 * dim
           else
              A(j + 1, i) = 1.0d0 / (1.0d0 + mod(g * 7 + j * 13, 17))
           end if
        end do
     end do
     x_old = 0
  else
     call EMPI_Get_shared(it)
  end if
  do while (it < itmax)
     call EMPI_Monitor_init()
     call EMPI_Get_wsize(rank, size, dim, desp, count)
     call c_f_pointer(EMPI_Get_addr('matrix'), A, [dim, max(count, 1)])
     call c_f_pointer(EMPI_Get_addr('x_old'), x_old, [dim])
     allocate (vcounts(size), displs(size))
     call EMPI_Get_wsize(rank, size, dim, desp, count, vcounts, displs)
     do i = 1, count
        g = desp + i - 1
        s = g + 1.0d0
        do j = 0, dim - 1
           if (j /= g) s = s - A(j + 1, i) * x_old(j + 1)
        end do
        x_new(g + 1) = s / A(g + 1, i)
     end do
     call MPI_Allgatherv(x_new(desp + 1:desp + max(count, 0)), count, MPI_DOUBLE_PRECISION, x_old, vcounts, displs, &
          MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
     deallocate (vcounts, displs)
     call EMPI_Monitor_end(rank, size, it, itmax, count, desp)
     call EMPI_Get_status(status)
     if (status == EMPI_REMOVED) exit
     it = it + 1
  end do
  if (status /= EMPI_REMOVED) then
     call c_f_pointer(EMPI_Get_addr('x_old'), x_old, [dim])
     sum = 0
     do j = 1, dim
        sum = sum + x_old(j) * j
     end do
     if (rank == 0) write (*, '(A,Z16.16,A,I0,A)') 'checksum ', transfer(sum, 0_c_int64_t), ' on ', size, ' processes'
  end if
  call MPI_Finalize()
end program fjacobi
