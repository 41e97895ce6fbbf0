/* world_threads.c -- the world swap is safe while another thread is inside
 * MPI: under MPI_THREAD_MULTIPLE a second thread calls MPI on MPI_COMM_WORLD
 * without pause (size, rank, name, attribute, error handler, MPI_Iprobe)
 * while the main thread goes through resizes at its control points.  The
 * attribute and name must be the program's at every call.
 *
 * usage: world_threads ITERATIONS   Rank 0 prints "RESULT size=S failures=F". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <empi.h>

static int failures, rank = -1;
static int value = 5, kv;
static volatile int stop;
static long calls, thread_failures;

static void *hammer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        int s = 0, r = -1, flag = 0, len = 0;
        void *v = NULL;
        char name[MPI_MAX_OBJECT_NAME];
        MPI_Comm_size(MPI_COMM_WORLD, &s);
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
        MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag);
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
        MPI_Errhandler_free(&eh);
        int msg = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
        if (s < 1 || r < 0 || r >= s || strcmp(name, "threads-world") != 0 || !flag || v != &value || msg) {
            if (thread_failures++ < 3)
                fprintf(stderr, "CHECK FAIL (rank %d): thread saw size %d rank %d name '%s' attr %d/%d\n", rank, s, r,
                        name, flag, v == &value);
        }
        calls++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int iters = argc > 1 ? atoi(argv[1]) : 4, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("SKIP: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_name(MPI_COMM_WORLD, "threads-world");
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &value);
    long long token = 1;
    EMPI_Register_scalar("token", &token, MPI_LONG_LONG, 1);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    pthread_t th;
    pthread_create(&th, NULL, hammer, NULL);
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        EMPI_Monitor_end(&rank, &size, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    if (thread_failures) failures++;
    if (calls == 0) {
        failures++;
        fprintf(stderr, "CHECK FAIL (rank %d): the second thread made no call\n", rank);
    }
    if (status != EMPI_REMOVED) {
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        long total = 0;
        MPI_Reduce(&calls, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("second threads made %ld calls\nRESULT size=%d failures=%d\n", total, size, failures);
    }
    MPI_Comm_free_keyval(&kv);
    MPI_Finalize();
    return 0;
}
