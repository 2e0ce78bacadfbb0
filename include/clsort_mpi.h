/* clsort_mpi.h - distributed sorting over MPI with clsort, one rank per
 * device (a GPU, or a CPU socket through PoCL).
 *
 * A separate library (libclsort_mpi) so that libclsort itself does not
 * depend on MPI. Link with -lclsort_mpi -lclsort and MPI's C library
 * (mpicc does the latter).
 *
 * The distributed array is the concatenation of the ranks' local arrays in
 * rank order. A sort leaves on each rank as many elements as it passed, and
 * the concatenation sorted and stable: equal keys keep rank order, then
 * local order. The key order, bit windows and descending are those of
 * clsort.h ("Key order").
 *
 * How it works (docs/DESIGN.md, "Distributed sort"): each rank sorts a copy
 * of its keys with clsort on its own device; the ranks then find, by a
 * search over the keys' order-preserving images, 4 bits per round and one
 * MPI_Allreduce per round, exactly which of their sorted elements go to which
 * rank (ties split by rank, then local index, so that every rank gets back
 * its own count); where every rank of comm runs on one node, the sorted
 * copies live in an MPI-3 shared-memory window and each rank reads its runs
 * in its peers' copies, else ($CLSORT_MPI_EXCHANGE=mpi, or ranks on several
 * nodes) MPI_Alltoallw moves the keys, then the values (64-bit counts
 * through derived datatypes); each rank merges its sorted runs
 * into the caller's arrays, with host threads ($CLSORT_MPI_THREADS, default:
 * a CPU device's compute units, else the node's processors per rank, at
 * most 16), or with a second clsort sort ($CLSORT_MPI_MERGE=sort or host
 * chooses; by default the sort on CPU devices with more than 8 ranks).
 * Ranks on discrete GPUs keep their sorted elements on the device instead:
 * only the runs that change rank go through host memory, and each rank
 * sorts its runs on its device and reads the result back once
 * ($CLSORT_MPI_RESIDENT=1 or 0 forces this on or off; it needs about twice
 * the local elements in device memory, besides the sort's temporaries;
 * where a rank's card has no room after all, every rank sorts through host
 * memory instead).
 *
 * Errors are collective. Every rank takes part in every collective step even
 * when its own arguments are bad, so nobody hangs; when any rank fails, every
 * rank returns an error: the failing rank its own code, the others
 * CLSORT_ERROR_REMOTE, each with a message naming the rank in
 * clsort_context_last_error(ctx). Arguments that decide the order (key type,
 * pairs or keys, value_size, begin_bit, end_bit, descending) must agree on
 * every rank; when they do not, every rank returns
 * CLSORT_ERROR_INVALID_ARGUMENT with a message naming the ranks that differ.
 * On any failure the caller's keys and values are unchanged on every rank,
 * except a device fault while a rank copies its result back (after the
 * last agreement), which may leave that rank's arrays partly written.
 * (A failure inside MPI itself follows the communicator's error handler,
 * which by default aborts the job.) comm must be a valid intracommunicator
 * and MPI must be initialised; with comm == MPI_COMM_NULL or MPI not
 * initialised the call fails at once on that rank, without communicating.
 *
 * The library never prints, aborts or exits. The functions block until the
 * sort is done on this rank. Only the calling thread calls MPI (the merge's
 * helper threads do not), so any MPI thread level will do. Temporary host
 * memory: about twice the local keys and values, kept by the process for
 * the next call (whose pages are then mapped already) and freed by
 * MPI_Finalize; a call made while another thread's call holds them
 * allocates its own. On one node, a third copy: the shared window, kept
 * on comm (an attribute) for the next call on comm, grown when a rank's
 * elements outgrow its part, and freed when comm is freed (MPI_Comm_free
 * then frees the window too, which waits for every rank of comm) or left
 * to MPI_Finalize. The window lives where MPI keeps shared memory (Open
 * MPI: its session directory, under /tmp or /dev/shm): where that is too
 * small, the allocation fails and comm falls back to MPI_Alltoallw, or set
 * $CLSORT_MPI_EXCHANGE=mpi. Calls on one communicator from several threads
 * at once are not supported.
 */
#ifndef CLSORT_MPI_H
#define CLSORT_MPI_H

#include <mpi.h>

#include <clsort.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/* Collective over comm. Each rank passes its n local keys (n may differ
 * between ranks and may be 0). On return each rank holds as many keys as it
 * passed, and the keys of rank 0, then rank 1, ... are the stable sort of the
 * keys of rank 0, then rank 1, ... (ties keep rank order, then local order).
 * ctx is this rank's context (its own device). Options as for
 * clsort_sort_keys (algorithm and radix_bits only steer the local sorts and
 * may differ between ranks). Returns CLSORT_SUCCESS or an error (see above). */
clsort_status clsort_mpi_sort_keys(clsort_context *ctx, MPI_Comm comm, clsort_type key_type,
                                   void *keys, size_t n, const clsort_options *options);

/* The same, carrying values (value_size bytes each, any size as for
 * clsort_sort_pairs: 1 to 65536). */
clsort_status clsort_mpi_sort_pairs(clsort_context *ctx, MPI_Comm comm, clsort_type key_type,
                                    void *keys, void *values, size_t value_size, size_t n,
                                    const clsort_options *options);

/* Where the last clsort_mpi_* call on this thread spent its time (seconds
 * of MPI_Wtime on this rank), for benchmarks; the library never prints
 * them. Filled on success and on failure (the steps not reached are 0). */
typedef struct clsort_mpi_times {
    double check;      /* arguments checked and agreed (an MPI_Allreduce, an MPI_Allgather) */
    double local_sort; /* the copy of the local keys sorted with clsort */
    double splitters;  /* exact splitting: the bitwise search, tie counts, send counts */
    double exchange;   /* the MPI_Alltoallw of keys and values (none when shared) */
    double merge;      /* the received runs merged, the result copied out */
    double total;      /* the whole call */
    uint64_t sent, received; /* elements that go to and come from other ranks */
    unsigned rounds;   /* MPI_Allreduce rounds of the search */
    int merge_by_sort; /* 1: the runs were merged by a clsort sort, 0: on the host */
    int shared;        /* 1: every rank on one node, the runs read in the peers' sorted
                          copies through an MPI-3 shared-memory window, not exchanged */
    int resident;      /* 1: the elements stayed on the devices between the steps (GPU
                          ranks): only the runs that change rank went through host memory */
} clsort_mpi_times;

void clsort_mpi_last_times(clsort_mpi_times *times);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CLSORT_MPI_H */
