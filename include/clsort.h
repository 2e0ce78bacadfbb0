/* clsort.h - portable sorting on OpenCL devices (GPUs and multicore CPUs).
 *
 * The one public header of libclsort. Everything goes through an opaque
 * clsort_context that holds one device, its queue, compiled programs and a
 * pool of temporary device memory.
 *
 * Conventions
 * - Every function that can fail returns a clsort_status: CLSORT_SUCCESS (0)
 *   or a negative code. OpenCL error codes (-1 ... -72, and vendor codes) are
 *   passed through unchanged; the library's own codes are CLSORT_ERROR_*
 *   (from -7000 down). clsort_status_string() names any of them, and
 *   clsort_context_last_error() gives the detailed message of the last
 *   failure (with the OpenCL build log when a kernel failed to build).
 * - On failure the caller's keys, values and indices are untouched and no
 *   output is half-written.
 * - The library never prints, aborts or exits.
 * - A context may be used by one thread at a time; distinct contexts are
 *   independent. Release functions accept NULL.
 * - Sorting is stable: keys that are equal over the sorted bits keep their
 *   input order, ascending and descending. The output is a permutation of
 *   the input, bit for bit.
 *
 * Key order
 * - Unsigned and signed integers: numeric order.
 * - Floats (F32, F64): -inf < negative numbers < -0.0 == +0.0 < positive
 *   numbers < +inf < NaN. -0.0 and +0.0 compare equal (input order kept);
 *   every NaN, whatever its sign bit or payload, sorts after +inf, NaNs in
 *   input order. Descending reverses the order of unequal keys (so NaNs come
 *   first) and still keeps equal keys in input order. Bit patterns are kept.
 * - Bit windows (clsort_options.begin_bit/end_bit) select bits of the key's
 *   order-preserving unsigned image, as NVIDIA CUB does: the key itself for
 *   unsigned types, the key with its sign bit flipped for signed types, and
 *   for floats the bits flipped as the order above requires (with -0.0 read
 *   as +0.0 and every NaN as all ones).
 */
#ifndef CLSORT_H
#define CLSORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: what this header declares
 * is all it exports. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

#define CLSORT_VERSION_MAJOR 0
#define CLSORT_VERSION_MINOR 1
#define CLSORT_VERSION_PATCH 0
#define CLSORT_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ status */

/* The library's own status codes: (name, value, message). Values are pinned
 * and never renumbered. */
#define CLSORT_STATUS_LIST(X)                                                            \
    X(CLSORT_SUCCESS, 0, "success")                                                      \
    X(CLSORT_ERROR_INVALID_ARGUMENT, -7001, "invalid argument")                          \
    X(CLSORT_ERROR_UNSUPPORTED_TYPE, -7002, "unsupported key or index type")             \
    X(CLSORT_ERROR_UNSUPPORTED_VALUE_SIZE, -7003, "unsupported value size")              \
    X(CLSORT_ERROR_INVALID_BITS, -7004, "bit range empty or outside the key")            \
    X(CLSORT_ERROR_TOO_LARGE, -7005, "input too large for the device or the index type") \
    X(CLSORT_ERROR_OUT_OF_HOST_MEMORY, -7006, "out of host memory")                      \
    X(CLSORT_ERROR_OUT_OF_DEVICE_MEMORY, -7007, "out of device memory")                  \
    X(CLSORT_ERROR_NO_PLATFORM, -7008, "no OpenCL platform found")                       \
    X(CLSORT_ERROR_DEVICE_NOT_FOUND, -7009, "no OpenCL device matches")                  \
    X(CLSORT_ERROR_BUILD_FAILED, -7010, "OpenCL kernel build failed")                    \
    X(CLSORT_ERROR_INVALID_OPTIONS, -7011, "invalid options")                            \
    X(CLSORT_ERROR_INVALID_BUFFER, -7012, "invalid device buffer")                       \
    X(CLSORT_ERROR_INVALID_TUNING, -7013, "invalid tuning specification")                \
    X(CLSORT_ERROR_DEVICE_UNSUPPORTED, -7014, "the device lacks a required feature")     \
    X(CLSORT_ERROR_INVALID_QUEUE, -7015, "invalid command queue")                        \
    X(CLSORT_ERROR_IO, -7016, "file input/output error")                                 \
    X(CLSORT_ERROR_REMOTE, -7017, "another MPI rank failed (clsort_mpi)")                \
    X(CLSORT_ERROR_INTERNAL, -7099, "internal error")

typedef int32_t clsort_status;

enum clsort_status_code {
#define CLSORT_STATUS_ENUM_(name, value, message) name = value,
    CLSORT_STATUS_LIST(CLSORT_STATUS_ENUM_)
#undef CLSORT_STATUS_ENUM_
};

/* A static string naming any status: the library's own with its meaning
 * ("CLSORT_ERROR_INVALID_BITS: bit range empty or outside the key"), an
 * OpenCL code's name ("CL_OUT_OF_RESOURCES") or "unknown status". Never
 * NULL. */
const char *clsort_status_string(clsort_status status);

/* -------------------------------------------------------------------- types */

/* Key, value-index and scan element types. Values are pinned. */
typedef enum clsort_type {
    CLSORT_U8 = 1,
    CLSORT_U16 = 2,
    CLSORT_U32 = 3,
    CLSORT_U64 = 4,
    CLSORT_I8 = 5,
    CLSORT_I16 = 6,
    CLSORT_I32 = 7,
    CLSORT_I64 = 8,
    CLSORT_F32 = 9,
    CLSORT_F64 = 10
} clsort_type;

/* Size in bytes of one element of the type, or 0 for an unknown type. */
size_t clsort_type_size(clsort_type type);
/* "u32", "f64", ... or NULL for an unknown type. */
const char *clsort_type_name(clsort_type type);
/* Parses "u8".."f64" (case-insensitive); returns 0 when unknown. */
clsort_type clsort_type_from_name(const char *name);

/* ------------------------------------------------------------------ context */

typedef struct clsort_context clsort_context;

/* Creation settings. Zero-initialise, then set what you need. */
typedef struct clsort_context_config {
    /* Device to use (see clsort_context_create); NULL: $CLSORT_DEVICE, else
     * the first GPU, else the first CPU. Ignored by create_from_queue. */
    const char *device;
    /* Folder of the on-disk program cache. NULL: $CLSORT_CACHE_DIR if set,
     * else $XDG_CACHE_HOME/clsort, else $HOME/.cache/clsort. An empty string
     * (here or in $CLSORT_CACHE_DIR) disables the disk cache. */
    const char *cache_dir;
    /* Tuning override, as for clsort_context_set_tuning; NULL: $CLSORT_TUNING
     * if set, else the tuned table. */
    const char *tuning;
    /* Bytes of device memory the context may use for a sort: the pool and
     * the device copies of host arrays. 0: $CLSORT_DEVICE_MEMORY if set
     * (suffixes K, M, G), else the device's global memory. Host arrays
     * larger than this are sorted in runs that fit and merged on the host;
     * sorts of device buffers that need more fail with
     * CLSORT_ERROR_TOO_LARGE. */
    uint64_t device_memory;
    /* Must be zero. Reserved so the struct can grow without breaking
     * callers. */
    uint32_t reserved[6];
} clsort_context_config;

/* Creates a context on one device. device selects it:
 *   NULL            $CLSORT_DEVICE if set, else the first GPU of any
 *                   platform, else the first CPU device (such as PoCL);
 *   "gpu" / "cpu"   the first device of that type;
 *   "P:D"           device D of platform P (indices as clsort info lists);
 *   anything else   the first device whose device or platform name contains
 *                   it, ignoring case.
 * An unknown name fails with CLSORT_ERROR_DEVICE_NOT_FOUND and a message
 * listing the devices present. On success *ctx owns an OpenCL context and an
 * in-order queue; release it with clsort_context_release. On failure *ctx is
 * NULL and clsort_context_last_error(NULL) tells why. Blocks. */
clsort_status clsort_context_create(clsort_context **ctx, const char *device);
clsort_status clsort_context_create_with_config(clsort_context **ctx,
                                                const clsort_context_config *config);

/* Creates a context that runs on the caller's in-order queue (and so on its
 * cl_context and device, and its buffers). The queue is retained, not
 * owned: the caller keeps its own reference. config may be NULL. */
clsort_status clsort_context_create_from_queue(clsort_context **ctx, cl_command_queue queue,
                                               const clsort_context_config *config);

/* Releases the context, its programs, pool and (if it created them) its
 * OpenCL context and queue, after the queue has finished and a build of
 * the host tier has stopped (see "caches and first use"). Accepts NULL. */
void clsort_context_release(clsort_context *ctx);

/* The detailed message of the context's last failure ("" if none). With
 * ctx NULL: the message of the last failed context creation on this thread.
 * Valid until the next call on the context (or creation on the thread). */
const char *clsort_context_last_error(const clsort_context *ctx);

/* Records a failure as the library's own calls do: message becomes what
 * clsort_context_last_error(ctx) returns (ctx NULL: this thread's creation
 * message). Returns status. For code built on clsort whose failures belong
 * to the context, such as the distributed sort of clsort_mpi.h. */
clsort_status clsort_context_set_error(clsort_context *ctx, clsort_status status,
                                       const char *message);

/* The context's OpenCL objects (owned by the context; do not release). */
cl_command_queue clsort_context_queue(const clsort_context *ctx);
cl_context clsort_context_cl_context(const clsort_context *ctx);
cl_device_id clsort_context_device(const clsort_context *ctx);

/* The log of the last kernel program this context built from source, with
 * the compiler's remarks ("" when none was built; programs loaded from the
 * cache have no log). $CLSORT_BUILD_OPTIONS, read at creation, adds options
 * to every build (e.g. -cl-nv-verbose for NVIDIA's register report). */
const char *clsort_context_build_log(const clsort_context *ctx);

/* ------------------------------------------------- caches and first use
 *
 * Kernels are compiled on first use and kept in caches: the driver's own
 * (PoCL: $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/kcache, else
 * ~/.cache/pocl/kcache) and, where the driver keeps none, clsort's folder
 * (clsort_context_config.cache_dir). Through PoCL a program's first build
 * takes seconds (see the README); clsort_context_warmup pays it ahead.
 *
 * The host tier: a sort of host arrays (clsort_sort_keys, _keys_copy,
 * _pairs, clsort_argsort) whose kernels are not yet built and warm on the
 * device, of at most the tuning's tier_max elements (0 in every row: off;
 * a caller opts in with a tuning spec such as "tier_max=33554432", as the
 * Python module does on CPU devices) and with options that leave algorithm and
 * radix_bits at 0, runs a radix sort on the calling thread, with results
 * identical to the device's byte for byte, while a background thread
 * builds that kind of sort's kernels as clsort_context_warmup does. Later
 * calls sort on the host too until that build has ended (they never wait
 * for it), then on the device. A kind is warm once this context has built
 * it, or when the cache folder holds the mark that a build of it (or
 * clsort_context_warmup) left for this library, device, driver and tuning:
 * with warm caches a new process goes straight to the device. A build
 * that fails in the background is reported by the next call on the
 * context (with the build log), and the tier is off for the context from
 * then on. clsort_context_release stops the build at its next step (one
 * sort of the warmup) and waits for it; a later process goes on from the
 * driver's cache. A caller that turns the tier on must release its
 * contexts before the process exits: an exit during a background build may
 * end in a crash inside the driver's compiler (seen with PoCL 3.1), whose
 * own exit-time destructors run under it.
 * $CLSORT_HOST_TIER=0 turns the tier off in every context of the process
 * (the test suite and benchmarks). */

/* What clsort_context_warmup prepares besides sorts of keys alone. */
#define CLSORT_WARMUP_PAIRS 1u   /* (key, value) pairs with 4-byte values */
#define CLSORT_WARMUP_ARGSORT 2u /* argsorts with 32-bit indices */

/* Compiles, or loads from the caches, the kernels that sorts of the given
 * key types take on the context's device, so that later sorts, in this
 * process or (through the caches) in others, start at once: it sorts
 * small random arrays at each size where the tuning changes the route or
 * the digit width (up to 8M keys). Keys alone, plus what flags adds.
 * types NULL with ntypes 0: the ten key types. Segmented sorts and scans
 * are not prepared. Each kind it prepares is marked warm for the host
 * tier. Blocks; through PoCL with empty caches it takes seconds per key
 * type (see the README). */
clsort_status clsort_context_warmup(clsort_context *ctx, const clsort_type *types, size_t ntypes,
                                    unsigned flags);

/* Whether this context found, in its cache folder, the mark of a process
 * that died while the driver (PoCL) compiled or loaded clsort's kernels,
 * as a damaged PoCL kernel cache makes it do. Such a context, and every
 * later one, builds its programs under new driver cache entries, never
 * reading the damaged ones; the application may tell the user, and
 * suggest clsort_cache_clear (`clsort cache --clear`). 1 yes, 0 no (and
 * for NULL). */
int clsort_context_recovered(const clsort_context *ctx);

/* Removes the marks (see clsort_context_recovered) that process pid left
 * in cache_dir (NULL: the default folder): for a supervisor that ended the
 * process on purpose (a signal it sent or passed on), so that the next
 * context does not take that end for a crash inside the driver. */
void clsort_cache_forget_process(const char *cache_dir, long pid);

/* Empties clsort's cache folder cache_dir (NULL: the default folder, as
 * for a context; saved tunings stay) and, with driver_cache non-zero,
 * PoCL's kernel cache folder, which other applications share: their
 * kernels are compiled again on their next use. Call it with no context
 * alive in the process. Succeeds when there is nothing to remove;
 * CLSORT_ERROR_IO (with the message in clsort_context_last_error(NULL))
 * when a file cannot be removed. */
clsort_status clsort_cache_clear(const char *cache_dir, int driver_cache);

/* Profiling. With on non-zero, and a queue created with
 * CL_QUEUE_PROFILING_ENABLE (see clsort_context_create_from_queue), the
 * context keeps an event for every command it enqueues. clsort_context_profile
 * waits for them, writes one line per kernel ("name count total_ms") to buf
 * (NUL-terminated, truncated to size), clears the records and returns the
 * length it needed. Blocks. With $CLSORT_PROFILE_LAUNCHES=1 it also writes
 * every command on a line of its own, with the gap since the one before. */
clsort_status clsort_context_set_profiling(clsort_context *ctx, int on);
size_t clsort_context_profile(clsort_context *ctx, char *buf, size_t size);

/* ------------------------------------------------------------------ devices */

typedef struct clsort_device_info {
    unsigned platform_index, device_index;
    char platform_name[128];
    char platform_version[128];
    char device_name[128];
    char vendor[128];
    char driver_version[128];
    char device_version[128];
    int is_gpu, is_cpu;
    int is_default; /* the device a NULL device string picks ($CLSORT_DEVICE's, if set) */
    uint64_t global_mem_bytes, max_alloc_bytes, local_mem_bytes;
    unsigned compute_units, max_work_group_size, max_clock_mhz;
} clsort_device_info;

/* Fills up to capacity entries (devices may be NULL when capacity is 0) and
 * sets *count to the number of devices present. CLSORT_ERROR_NO_PLATFORM
 * when there is no OpenCL platform at all. */
clsort_status clsort_device_list(clsort_device_info *devices, size_t capacity, size_t *count);

/* The context's device. */
clsort_status clsort_context_device_info(const clsort_context *ctx, clsort_device_info *info);

/* ------------------------------------------------------------------ options */

/* Algorithms. Every one is stable and follows the same key order. */
typedef enum clsort_algorithm {
    CLSORT_ALGORITHM_AUTO = 0,      /* the tuned choice for the device and n: a
                                       bitonic work-group up to the tuning's
                                       small_max, else the tuned radix sort */
    CLSORT_ALGORITHM_ONESWEEP = 1,  /* radix, one kernel per pass, look-back */
    CLSORT_ALGORITHM_CLASSIC = 2,   /* radix, histogram + scan + scatter per pass */
    CLSORT_ALGORITHM_BITONIC = 3,   /* bitonic network, local memory where the
                                       distance fits a work-group (Zucchi) */
    CLSORT_ALGORITHM_BITONIC_GLOBAL = 4, /* bitonic network, every step in global
                                       memory (the seed's plain version) */
    CLSORT_ALGORITHM_SELECTION = 5, /* parallel selection sort (Bainville), n^2
                                       work: at most 2^20 elements */
    CLSORT_ALGORITHM_SELECTION_LOCAL = 6 /* the same, keys staged in local memory */
} clsort_algorithm;

/* Sort options. NULL, or a zero-initialised struct, means: ascending, over
 * every bit of the key, the tuned algorithm and digit width. */
typedef struct clsort_options {
    /* Sort on bits [begin_bit, end_bit) of the key's order-preserving image
     * (see "Key order" above); end_bit 0 means the key width. */
    unsigned begin_bit, end_bit;
    int descending;              /* non-zero: largest first (still stable) */
    clsort_algorithm algorithm;  /* CLSORT_ALGORITHM_AUTO by default */
    unsigned radix_bits;         /* digit width r, 1..8 (1..12 on CPU shapes); 0: tuned */
    uint32_t reserved[8];        /* must be zero */
} clsort_options;

/* ------------------------------------------------------ sorting host arrays */

/* Sorts keys[0..n) of type key_type in place; blocks until done.
 *
 * Host arrays reach the device the fastest way it allows: on a device that
 * shares host memory (CPUs through PoCL, integrated GPUs) the arrays are
 * sorted where they lie (a CL_MEM_USE_HOST_PTR buffer; arrays not aligned
 * to their elements are copied); on a discrete GPU they travel through the
 * context's pinned chunks, copied by up to 16 host threads while the chunks
 * before are in flight ($CLSORT_HOST_THREADS and $CLSORT_HOST_CHUNK change
 * that for measurements). Arrays larger than the device memory the context
 * may use (clsort_context_config.device_memory) are sorted in runs that
 * fit and merged on the host, with temporary host memory as large as the
 * arrays. Failures found before the sort starts (arguments, memory,
 * kernel builds) leave the arrays unchanged; after a device fault during
 * the sort or the copy back (an error status from the driver) their
 * contents are undefined. */
clsort_status clsort_sort_keys(clsort_context *ctx, clsort_type key_type, void *keys, size_t n,
                               const clsort_options *options);

/* Writes the sorted keys[0..n) to sorted[0..n); keys are not changed (they
 * may be read-only memory, such as a mapped file). sorted may be keys
 * itself (then as clsort_sort_keys) but must not overlap it otherwise. The
 * copy travels with the sort: no extra pass over the keys on a GPU, one
 * copy by host threads where the device sorts host memory in place. On
 * failure sorted is unchanged. Blocks until done. */
clsort_status clsort_sort_keys_copy(clsort_context *ctx, clsort_type key_type, const void *keys,
                                    void *sorted, size_t n, const clsort_options *options);

/* Sorts keys[0..n) and carries values[0..n) (value_size bytes each) along.
 * Fast value sizes: 1, 2, 4, 8 and 16 bytes, carried through every pass.
 * Any other size from 1 to 65536 bytes is correct too: the keys are sorted
 * with their indices and the records are moved once by the permutation.
 * Blocks until done. */
clsort_status clsort_sort_pairs(clsort_context *ctx, clsort_type key_type, void *keys,
                                void *values, size_t value_size, size_t n,
                                const clsort_options *options);

/* Writes to indices[0..n) the stable sorting permutation of keys[0..n):
 * keys[indices[0]] is the first key in sorted order. keys are not changed.
 * index_type is CLSORT_U32 (n < 2^32) or CLSORT_U64. Blocks until done. */
clsort_status clsort_argsort(clsort_context *ctx, clsort_type key_type, const void *keys,
                             size_t n, clsort_type index_type, void *indices,
                             const clsort_options *options);

/* --------------------------------------------------- sorting device buffers
 *
 * These sort cl_mem buffers of the context's cl_context in place, without a
 * round trip to the host: elements [offset, offset + n) (offsets count
 * elements, not bytes). They enqueue on the context's queue after the
 * events in wait_list and return without waiting; *event (if not NULL)
 * receives an event that completes when the sort has, which the caller
 * releases. Temporary device memory comes from the context's pool, which
 * grows as needed and is reused by later calls (clsort_context_reserve
 * allocates it ahead; clsort_temp_size tells how much a sort needs). On
 * failure nothing was enqueued that changes the caller's buffers. */

clsort_status clsort_sort_keys_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                      size_t offset, size_t n, const clsort_options *options,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list, cl_event *event);

clsort_status clsort_sort_pairs_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                       size_t keys_offset, cl_mem values, size_t values_offset,
                                       size_t value_size, size_t n, const clsort_options *options,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event);

/* indices[indices_offset + i] receives the position (relative to
 * keys_offset) of the i-th key in sorted order; keys are not changed. */
clsort_status clsort_argsort_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                    size_t keys_offset, size_t n, clsort_type index_type,
                                    cl_mem indices, size_t indices_offset,
                                    const clsort_options *options,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event);

/* Copies bytes between host memory and a buffer of the context's
 * cl_context (offset in bytes) the way the host-array sorts move their
 * arrays: on a discrete device through the context's pinned chunks, copied
 * by several host threads while the device reads or writes the chunks
 * before (several times the driver's rate from pageable memory); where the
 * device shares host memory, through the mapped buffer. After the work
 * already on the context's queue; blocks until the copy is done. For code
 * that keeps its data on the device between sorts. A failure found before
 * the copy starts (arguments, pinned memory) writes nothing; a device fault
 * during the copy may leave its destination (dst, or the buffer's range)
 * partly written. */
clsort_status clsort_buffer_write(clsort_context *ctx, cl_mem buffer, size_t offset,
                                  const void *src, size_t bytes);
clsort_status clsort_buffer_read(clsort_context *ctx, cl_mem buffer, size_t offset, void *dst,
                                 size_t bytes);

/* ------------------------------------------------------- segmented sorts
 *
 * Many independent segments of one array sorted at once, each on its own,
 * with the same types, options, order and stability as the plain sorts.
 * Segments are given either by a fixed length (count segments of length
 * elements, back to back from element 0) or CSR-style by count + 1
 * non-decreasing offsets (segment s is [offsets[s], offsets[s+1]); segments
 * may be empty; offsets[count] <= n). Elements outside every segment are
 * left as they are. AUTO chooses by the longest segment: one radix sort of
 * (segment, key) where it is at most the tuning's seg_packed_max; a radix
 * sort per segment in one work-group each (one launch) where it is at least
 * the tuning's seg_radix_min and fits one onesweep tile; else a bitonic network
 * in one work-group each where it fits a work-group's local memory; else
 * one radix sort of (segment, key), with the permutation.
 * options->algorithm may force CLSORT_ALGORITHM_BITONIC (local memory),
 * _BITONIC_GLOBAL, _ONESWEEP (the work-group per segment where the longest
 * fits a tile, else (segment, key)) or _CLASSIC ((segment, key)). */
typedef struct clsort_segments {
    size_t count;   /* number of segments */
    size_t length;  /* fixed form: elements per segment (offsets NULL) */
    /* CSR form for host arrays: count + 1 offsets, or NULL */
    const uint64_t *offsets;
    /* CSR form for device buffers: count + 1 cl_ulong offsets in a buffer of
     * the context, from element offsets_offset on; or NULL */
    cl_mem offsets_buffer;
    size_t offsets_offset;
    /* with offsets_buffer: the longest segment if the caller knows it; 0
     * makes the library read the offsets back (that call then blocks). A
     * segment longer than this may be left partly unsorted (never written
     * outside itself) */
    size_t max_length;
    uint32_t reserved[4]; /* must be zero */
} clsort_segments;

/* Sorts each segment of keys[0..n) in place. Blocks. */
clsort_status clsort_sort_segments(clsort_context *ctx, clsort_type key_type, void *keys, size_t n,
                                   const clsort_segments *segments, const clsort_options *options);

/* The same, carrying values (value_size bytes each, any size as for
 * clsort_sort_pairs). Blocks. */
clsort_status clsort_sort_segments_pairs(clsort_context *ctx, clsort_type key_type, void *keys,
                                         void *values, size_t value_size, size_t n,
                                         const clsort_segments *segments,
                                         const clsort_options *options);

/* Device buffers: elements [offset, offset + n) of keys (and of values
 * unless values is NULL), segments relative to keys_offset; offsets in
 * segments->offsets_buffer (the host offsets field must be NULL). Enqueues
 * like the other buffer calls (blocks only to read the offsets back when
 * max_length is 0). */
clsort_status clsort_sort_segments_buffer(clsort_context *ctx, clsort_type key_type, cl_mem keys,
                                          size_t keys_offset, cl_mem values,
                                          size_t values_offset, size_t value_size, size_t n,
                                          const clsort_segments *segments,
                                          const clsort_options *options,
                                          cl_uint num_events_in_wait_list,
                                          const cl_event *event_wait_list, cl_event *event);

/* ------------------------------------------------------------------- scans
 *
 * Prefix sums of CLSORT_U32, U64, I32, I64, F32 or F64 elements: out[i] =
 * in[0] + ... + in[i-1] (exclusive) or + in[i] (inclusive). Integer sums
 * wrap around; floating-point sums are added in a tree order, so they may
 * differ from a left-to-right sum by rounding. In and out may be the same
 * array (in place). The radix sort's kernels use the same work-group scan
 * (Blelloch's, with bank-conflict padding). */
clsort_status clsort_scan(clsort_context *ctx, clsort_type type, const void *in, void *out,
                          size_t n, int inclusive);
clsort_status clsort_scan_buffer(clsort_context *ctx, clsort_type type, cl_mem in,
                                 size_t in_offset, cl_mem out, size_t out_offset, size_t n,
                                 int inclusive, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event);

/* Bytes of temporary device memory a sort of this shape needs (value_size
 * 0 for keys only). */
clsort_status clsort_temp_size(clsort_context *ctx, clsort_type key_type, size_t value_size,
                               size_t n, const clsort_options *options, size_t *bytes);

/* Allocates the pool ahead for sorts of this shape (keys, or pairs with
 * value_size bytes), so later sorts of up to n elements from device buffers
 * allocate nothing. Argsorts of device buffers also copy the keys into pool
 * memory that this does not allocate. Blocks. */
clsort_status clsort_context_reserve(clsort_context *ctx, clsort_type key_type,
                                     size_t value_size, size_t n, const clsort_options *options);

/* Frees the pool (after pending work finishes) and returns its size. */
clsort_status clsort_context_trim(clsort_context *ctx, size_t *freed_bytes);

/* ------------------------------------------------------------------- tuning
 *
 * Kernel shapes come from a table whose rows match the device type (GPU or
 * CPU), the vendor and optionally part of the device name, with a default
 * row; a row saved by clsort_context_save_tuning (`clsort tune --save`) in
 * the cache folder for this device and driver comes first. A spec string
 * overrides fields: comma-separated key=value pairs, e.g.
 * "algorithm=classic,radix_bits=4,os_wg=64". clsort_tuning_keys() lists the
 * keys with a line on each. */

/* Applies spec on top of the context's current tuning. An unknown key or a
 * value out of range fails with CLSORT_ERROR_INVALID_TUNING and changes
 * nothing. spec NULL or "" restores the device's tuned values. */
clsort_status clsort_context_set_tuning(clsort_context *ctx, const char *spec);

/* Writes the context's current tuning as a spec string (NUL-terminated,
 * truncated to size). Returns the length it needs, excluding the NUL. */
size_t clsort_context_get_tuning(const clsort_context *ctx, char *buf, size_t size);

/* Stores the current tuning in the cache folder as this device's tuned row,
 * used by later contexts on the same device and driver. */
clsort_status clsort_context_save_tuning(clsort_context *ctx);

/* The tuning keys with their meaning, one per line. Static. */
const char *clsort_tuning_keys(void);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* CLSORT_H */
