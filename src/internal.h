/* internal.h - what the library's host files share; not installed. */
#ifndef CLSORT_INTERNAL_H
#define CLSORT_INTERNAL_H

#include "clsort.h"
#include "kernels/layout.h"
#include "tuning_keys.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a / b rounded up, and the least power of two >= x (1 for 0) */
static inline size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }
static inline size_t pow2_ceil(size_t x)
{
    size_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* An element's bits (1, 2, 4 or 8 bytes), zero-extended, and back. */
static inline uint64_t clsort_load_bits(const char *p, unsigned bytes)
{
    switch (bytes) {
    case 1: return *(const uint8_t *)p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void clsort_store_bits(char *p, uint64_t u, unsigned bytes)
{
    switch (bytes) {
    case 1: *(uint8_t *)p = (uint8_t)u; break;
    case 2: { uint16_t v = (uint16_t)u; memcpy(p, &v, 2); } break;
    case 4: { uint32_t v = (uint32_t)u; memcpy(p, &v, 4); } break;
    default: memcpy(p, &u, 8); break;
    }
}

/* A key's order-preserving unsigned image (clsort.h, "Key order") from its
 * bits: the key itself for unsigned types, the sign bit flipped for signed
 * ones; for floats -0.0 reads as +0.0, every NaN as all ones, and the bits
 * are flipped as the order requires. kind: 0 unsigned, 1 signed, 2 float. */
static inline uint64_t clsort_key_image(uint64_t u, unsigned bytes, unsigned kind)
{
    const unsigned bits = bytes * 8;
    const uint64_t sign = (uint64_t)1 << (bits - 1);
    const uint64_t all = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    if (kind == 1)
        return u ^ sign;
    if (kind != 2)
        return u;
    const uint64_t expo = bits == 32 ? 0x7f800000u : 0x7ff0000000000000ull;
    const uint64_t mant = bits == 32 ? 0x007fffffu : 0x000fffffffffffffull;
    if ((u & ~sign) == 0)
        u = 0; /* -0.0 reads as +0.0 */
    if ((u & expo) == expo && (u & mant))
        return all; /* every NaN as all ones */
    return (u & sign) ? (~u & all) : (u | sign);
}

/* ------------------------------------------------------------ device facts */

typedef enum clsort_vendor {
    CLSORT_VENDOR_OTHER = 0,
    CLSORT_VENDOR_NVIDIA,
    CLSORT_VENDOR_AMD,
    CLSORT_VENDOR_INTEL,
    CLSORT_VENDOR_POCL
} clsort_vendor;

typedef struct clsort_device_facts {
    clsort_vendor vendor;
    bool is_gpu, is_cpu;
    unsigned compute_units;
    size_t max_work_group_size;
    uint64_t local_mem_bytes, global_mem_bytes, max_alloc_bytes;
    unsigned mem_base_align_bytes;
    unsigned nv_cc_major; /* NVIDIA: the compute capability's major number (0: unknown) */
    bool host_unified; /* CL_DEVICE_HOST_UNIFIED_MEMORY: sorts host arrays where they are */
    char platform_name[128], platform_version[128];
    char device_name[128], device_vendor[128], driver_version[128], device_version[128];
} clsort_device_facts;

/* ------------------------------------------------------------------ tuning */

enum {
    CLSORT_RANK_SERIAL = 0,
    CLSORT_RANK_LOCAL = 1,
    CLSORT_RANK_MATCH = 2, /* removed (match.any): a spec naming it is refused */
    CLSORT_RANK_BALLOT = 3,
    CLSORT_RANK_ATOMIC_OR = 4,
    CLSORT_RANK_COUNT
};
/* this and above: NVIDIA's warp rankings */
#define CLSORT_RANK_WARP CLSORT_RANK_BALLOT

/* Every tuned number of the library: a field per key of tuning_keys.h,
 * whose lists say what each means (and docs/TUNING.md, generated from
 * them); tuning.c holds the table of values by device. */
typedef struct clsort_tuning {
#define CLSORT_TUNING_FIELD(key, kind, lo, hi, follows, help) unsigned key;
    CLSORT_TUNING_KEYS(CLSORT_TUNING_FIELD)
#undef CLSORT_TUNING_FIELD
} clsort_tuning;

/* The keys as data, in the order of CLSORT_TUNING_KEYS (tuning.c). */
typedef struct clsort_tuning_key {
    const char *key;
    size_t offset;             /* of the field in clsort_tuning */
    unsigned lo, hi;           /* the numbers accepted */
    const char *const *names;  /* the kind's names by value (an entry NULL: no name) */
    unsigned nnames;
    int follows;               /* the index of the key it follows, -1: none */
    const char *help;
} clsort_tuning_key;
const clsort_tuning_key *clsort_tuning_key_list(size_t *count);
/* The removed keys (CLSORT_TUNING_REMOVED). */
typedef struct clsort_tuning_removed_key {
    const char *key;
    unsigned noop;
    const char *why, *instead;
} clsort_tuning_removed_key;
const clsort_tuning_removed_key *clsort_tuning_removed_list(size_t *count);
/* The table's rows, in order (the last is the default). */
typedef struct clsort_tuning_row {
    const char *what;      /* what the row is */
    const char *see;       /* where its values' measurements are */
    int gpu;               /* 1 GPU, 0 CPU, -1 any */
    clsort_vendor vendor;  /* CLSORT_VENDOR_OTHER: any vendor */
    const char *name_part; /* NULL: any name */
    unsigned min_cus;      /* at least this many compute units (0: any) */
    clsort_tuning t;
} clsort_tuning_row;
const clsort_tuning_row *clsort_tuning_rows(size_t *count);

/* The digit width the tuning gives a radix sort of n keys over `bits` bits
 * with the given strategy (its shape decides whether wide digits run). */
unsigned clsort_tuned_radix_bits(const clsort_tuning *t, size_t n, unsigned bits,
                                 unsigned algorithm);
/* Local memory of the onesweep kernel for a shape (radix.c). */
size_t clsort_onesweep_local_bytes(unsigned rank, unsigned wg, unsigned items, size_t radix,
                                   size_t key_bytes, size_t val_bytes, size_t idx_bytes,
                                   bool float_keys);

/* The tuned row for a device (table, then the cache file, then $CLSORT_TUNING
 * or the config's spec). */
void clsort_tuning_for_device(const clsort_device_facts *facts, clsort_tuning *out);
/* Applies a spec string to *t; on error leaves *t unchanged and writes a
 * message to err. A key the spec does not name is set to 0 where it sets
 * the key that one follows (tuning_keys.h). */
clsort_status clsort_tuning_apply(clsort_tuning *t, const char *spec, char *err, size_t errsize);
/* The same for a tuning saved in the cache folder: removed keys at the
 * value at which they did nothing are skipped. */
clsort_status clsort_tuning_apply_saved(clsort_tuning *t, const char *spec, char *err,
                                        size_t errsize);
/* Writes every key as a spec that clsort_tuning_apply reads back to *t,
 * stem after stem; returns the length it needs (excluding the NUL). */
size_t clsort_tuning_format(const clsort_tuning *t, char *buf, size_t size);
/* Checks a tuning against the device (work-group limits, vendor needs). */
clsort_status clsort_tuning_check(const clsort_tuning *t, const clsort_device_facts *f,
                                  char *err, size_t errsize);

/* ---------------------------------------------------------------- programs */

typedef struct clsort_program clsort_program;

/* The embedded kernel sources (generated at build time). */
typedef struct clsort_embedded_file {
    const char *name;
    const char *data;
    size_t size;
    const char *sha256;
} clsort_embedded_file;
extern const clsort_embedded_file clsort_embedded_files[];
extern const size_t clsort_embedded_file_count;

/* Gets (building or loading from the caches) the program made of the named
 * source files, in order, built with options. */
clsort_status clsort_program_get(clsort_context *ctx, const char *const *files, size_t nfiles,
                                 const char *options, clsort_program **out);
/* A kernel of the program (created once, then reused). */
clsort_status clsort_program_kernel(clsort_context *ctx, clsort_program *prog, const char *name,
                                    cl_kernel *out);
void clsort_programs_release(clsort_context *ctx);

/* The disk cache (cache.c). load returns true and a binary it allocated
 * (free it) when a valid entry exists; a damaged entry is removed. */
bool clsort_cache_load(const char *dir, const char *key, unsigned char **bin, size_t *len);
void clsort_cache_store(const char *dir, const char *key, const unsigned char *bin, size_t len);
void clsort_cache_remove(const char *dir, const char *key);
uint64_t clsort_hash64(const void *data, size_t len, uint64_t seed);
/* Default folder ($CLSORT_CACHE_DIR, $XDG_CACHE_HOME/clsort,
 * $HOME/.cache/clsort); NULL if disabled or unknown. Allocated. */
char *clsort_cache_default_dir(void);
/* Reads and writes small text files in the cache folder (tuning). */
char *clsort_cache_read_text(const char *dir, const char *name);
bool clsort_cache_write_text(const char *dir, const char *name, const char *text);

/* mkdir -p; false when the folder cannot be made. */
bool clsort_cache_make_dirs(const char *dir);

/* The guard against crashes inside the driver (guard.c). */
typedef struct clsort_guard clsort_guard;
/* Finds the marks of processes that died in the driver (then sets
 * ctx->recovered and a new salt) and starts the context's guard. */
void clsort_guard_setup(clsort_context *ctx);
void clsort_guard_release(clsort_context *ctx);
/* Around a build: the mark exists from the first enter to the last leave. */
void clsort_guard_enter(clsort_context *ctx);
void clsort_guard_leave(clsort_context *ctx);
/* A kernel just created: its first launch is guarded until it completes. */
void clsort_guard_new_kernel(clsort_context *ctx, cl_kernel k);
/* Before a launch: true for a fresh kernel's first (the mark is up); then
 * after it, with its event (NULL: not enqueued). */
bool clsort_guard_before_launch(clsort_context *ctx, cl_kernel k);
void clsort_guard_after_launch(clsort_context *ctx, cl_event ev);

/* -------------------------------------------------------------------- pool */

typedef enum clsort_slot {
    CLSORT_SLOT_KEYS_A,
    CLSORT_SLOT_KEYS_B,
    CLSORT_SLOT_VALS_A,
    CLSORT_SLOT_VALS_B,
    CLSORT_SLOT_SCRATCH,   /* uint words: counts, tile counters, look-back */
    CLSORT_SLOT_BASES,     /* index words: digit offsets */
    CLSORT_SLOT_STATE,     /* the plan */
    CLSORT_SLOT_KEYS_COPY, /* argsort's copy of the keys */
    CLSORT_SLOT_PERM,      /* permutation for records of other sizes */
    CLSORT_SLOT_RECORDS,   /* gathered records */
    CLSORT_SLOT_HOST_KEYS, /* device copies of host arrays */
    CLSORT_SLOT_HOST_VALS,
    CLSORT_SLOT_BT_KEYS,     /* bitonic: padded order keys (or packed radix keys) */
    CLSORT_SLOT_BT_INDEX,    /* bitonic: indices (or the radix permutation) */
    CLSORT_SLOT_BT_OUT_KEYS, /* gathered keys before the copy back */
    CLSORT_SLOT_BT_OUT_VALS,
    CLSORT_SLOT_SEG_OFFSETS, /* device copy of host segment offsets */
    CLSORT_SLOT_SCAN_SUMS,   /* scan: block sums of every level */
    CLSORT_SLOT_SCAN_STATE,  /* scan: the single pass's tile counter and records */
    CLSORT_SLOT_SYNC,        /* radix: the counts and the fused start's counter, zero
                                between sorts */
    CLSORT_SLOT_COUNT
} clsort_slot;

/* A device buffer of at least bytes in the slot (grows it if needed; an old,
 * smaller buffer is released once pending work is done). */
clsort_status clsort_pool_get(clsort_context *ctx, clsort_slot slot, size_t bytes, cl_mem *out);
/* The same, but a buffer it allocates is all zero (for kernels that leave
 * it zero again after each use). */
clsort_status clsort_pool_get_zeroed(clsort_context *ctx, clsort_slot slot, size_t bytes,
                                     cl_mem *out);
void clsort_pool_drop(clsort_context *ctx, clsort_slot slot);
void clsort_pool_release(clsort_context *ctx);
size_t clsort_pool_bytes(const clsort_context *ctx);

/* ----------------------------------------------------------------- context */

/* How host arrays reach the device ($CLSORT_HOST_PATH: auto, copy, staged,
 * mapped). */
enum {
    CLSORT_HOST_AUTO = 0, /* mapped where the device shares host memory, else staged */
    CLSORT_HOST_COPY,     /* the driver's copies from the caller's pages */
    CLSORT_HOST_STAGED,   /* pinned chunks copied by host threads (host.c) */
    CLSORT_HOST_MAPPED    /* the caller's arrays as CL_MEM_USE_HOST_PTR buffers */
};
#define CLSORT_STAGE_SLOTS 4
#define CLSORT_HOST_CHUNK_DEFAULT ((size_t)8 << 20)
#define CLSORT_HOST_MAX_THREADS 64

struct clsort_program {
    char *key;
    cl_program program;
    size_t nkernels;
    struct {
        char *name;
        cl_kernel kernel;
    } kernels[16];
    clsort_program *next;
};

struct clsort_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    cl_command_queue aux_queue; /* ours: touches new pool buffers without
                                   waiting for work on the caller's queue */
    bool owns_cl; /* created the cl_context and queue */
    clsort_device_facts facts;
    char *cache_dir; /* NULL: disk cache off */
    bool store_binaries; /* program binaries in cache_dir (not where PoCL
                            keeps its own kernel cache) */
    clsort_tuning tuned; /* the device's tuned row */
    clsort_tuning tuning; /* in use (tuned + overrides) */
    clsort_program *programs;
    cl_mem pool[CLSORT_SLOT_COUNT];
    size_t pool_size[CLSORT_SLOT_COUNT];
    unsigned scan_epoch; /* the last single-pass scan's number (scan.c) */
    uint64_t mem_cap;    /* device memory the context may use (config, else the device's) */
    /* host arrays (host.c) */
    unsigned host_path;    /* CLSORT_HOST_* */
    unsigned host_threads; /* 0: the host's CPUs, at most 8 */
    size_t host_chunk;     /* bytes of each pinned chunk (0: the default) */
    size_t stage_min;      /* host copies from this many bytes go through the chunks */
    cl_mem stage[CLSORT_STAGE_SLOTS];
    void *stage_ptr[CLSORT_STAGE_SLOTS];
    size_t stage_bytes;
    char *error;
    size_t error_cap;
    char *build_log;     /* of the last program built from source */
    clsort_guard *guard; /* NULL: crashes in the driver are not watched */
    unsigned salt;       /* -DCLSORT_CACHE_SALT for every build (0: none) */
    bool recovered;      /* a process died in the driver: programs built afresh */
    cl_kernel fresh[64]; /* kernels not launched yet (guarded) */
    size_t nfresh;
    char *extra_options; /* $CLSORT_BUILD_OPTIONS */
    bool profiling;
    struct clsort_prof_rec {
        const char *name; /* static */
        cl_event event;
    } *prof;
    size_t nprof, prof_cap;
    /* the host tier (tier.c) */
    struct clsort_tier_job *tier_job; /* the background build (NULL: none) */
    uint32_t tier_warm[64];           /* kinds of sort known warm here */
    size_t ntier_warm;
    bool tier_off;    /* a background build failed: every sort on the device */
    bool tier_bypass; /* a warmup runs: its sorts take the device */
    int tier_force;   /* tests (clsort_tier_force) */
    int tier_last;    /* the last host-array sort: 1 on the host tier */
};

/* Records a command's event when profiling (takes the reference). */
void clsort_profile_add(clsort_context *ctx, const char *name, cl_event ev);
void clsort_profile_clear(clsort_context *ctx);

/* Records a failure: message "<what>: <details>" (printf-style) in the
 * context (or the thread's creation message when ctx is NULL). Returns
 * status, so `return clsort_fail(ctx, s, ...)` reads well. */
clsort_status clsort_fail(clsort_context *ctx, clsort_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Appends text to the context's current message. */
void clsort_fail_append(clsort_context *ctx, const char *text);
void clsort_clear_error(clsort_context *ctx);

/* Fails with the OpenCL code and what was being done when err != CL_SUCCESS. */
#define CLSORT_CL(ctx, call, what)                                                      \
    do {                                                                                \
        cl_int clsort_err_ = (call);                                                    \
        if (clsort_err_ != CL_SUCCESS)                                                  \
            return clsort_fail((ctx), clsort_err_, "%s failed: %s", (what),              \
                               clsort_status_string(clsort_err_));                      \
    } while (0)

#define CLSORT_TRY(call)                       \
    do {                                       \
        clsort_status clsort_st_ = (call);     \
        if (clsort_st_ != CLSORT_SUCCESS)      \
            return clsort_st_;                 \
    } while (0)

/* Name of the cache file holding this device's saved tuning. */
void clsort_tuning_file_name(const clsort_context *ctx, char *name, size_t size);

/* Queries the device facts. */
clsort_status clsort_query_facts(cl_platform_id platform, cl_device_id device,
                                 clsort_device_facts *f);

/* A kernel argument: its size and where its value is (0 size: not set). */
typedef struct clsort_arg {
    size_t size;
    const void *ptr;
} clsort_arg;
#define CLSORT_ARG(x) ((clsort_arg){sizeof(x), &(x)})
/* Sets every argument of a kernel by the names of its parameters in its
 * list (kernels/layout.h), in designated initializers:
 *     CLSORT_SET_ARGS(ctx, k, clsort_iota, .v = CLSORT_ARG(v), .v_off = CLSORT_ARG(off),
 *                     .n = idx_of(s, &a_n, n))
 * A name that is not a parameter does not compile; a parameter left out
 * fails with CLSORT_ERROR_INTERNAL naming it, as does a list whose length
 * is not the kernel's number of arguments. Returns the first error. */
#define CLSORT_SET_ARGS(ctx, k, kernel_name, ...)                                           \
    clsort_set_args((ctx), (k), #kernel_name,                                               \
                    &(struct {                                                              \
                        CLSORT_ARGS_##kernel_name(CLSORT_ARG_FIELD_, CLSORT_ARG_FIELD_)     \
                    }){__VA_ARGS__},                                                        \
                    CLSORT_ARG_NAMES_(kernel_name),                                         \
                    sizeof(CLSORT_ARG_NAMES_(kernel_name)) / sizeof(const char *))
#define CLSORT_ARG_FIELD_(type, name) clsort_arg name;
#define CLSORT_ARG_NAME_(type, name) #name,
#define CLSORT_ARG_NAMES_(kernel_name) \
    ((const char *const[]){CLSORT_ARGS_##kernel_name(CLSORT_ARG_NAME_, CLSORT_ARG_NAME_)})
/* args: nargs clsort_arg in a row (CLSORT_SET_ARGS's struct); names: the
 * parameters' */
clsort_status clsort_set_args(clsort_context *ctx, cl_kernel k, const char *name, const void *args,
                              const char *const *names, size_t nargs);

/* The caller's wait list, consumed by the first command enqueued. The queue
 * is in order, so later commands follow by themselves. */
typedef struct clsort_seq {
    cl_uint nwait;
    const cl_event *wait;
} clsort_seq;
/* Takes the pending wait list (and clears it). */
static inline cl_uint clsort_seq_take(clsort_seq *q, const cl_event **wait)
{
    cl_uint n = q->nwait;
    *wait = n ? q->wait : NULL;
    q->nwait = 0;
    q->wait = NULL;
    return n;
}
/* Enqueues a 1-D kernel (local 0: the runtime chooses). */
clsort_status clsort_launch(clsort_context *ctx, cl_kernel k, const char *name, size_t global,
                            size_t local, clsort_seq *seq);
clsort_status clsort_fill(clsort_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                          clsort_seq *seq);
clsort_status clsort_copy(clsort_context *ctx, cl_mem src, size_t src_off, cl_mem dst,
                          size_t dst_off, size_t bytes, clsort_seq *seq);
/* Ends a sequence: an event for the caller when event is not NULL (a marker
 * that also carries a wait list nothing consumed). */
clsort_status clsort_seq_finish(clsort_context *ctx, clsort_seq *seq, cl_event *event);

/* ------------------------------------------------------------------- radix */

/* Key types as the kernels see them. */
typedef struct clsort_key_kind {
    unsigned bytes; /* 1, 2, 4, 8 */
    unsigned kind;  /* 0 unsigned, 1 signed, 2 float */
} clsort_key_kind;
bool clsort_key_kind_of(clsort_type type, clsort_key_kind *out);

/* One radix sort of device buffers, in place over [off, off + n). vals NULL
 * for keys only; val_bytes 1, 2, 4, 8 or 16. gen_index: vals receive the
 * sorting permutation (val_bytes 4 or 8) instead of being carried. */
typedef struct clsort_radix_job {
    clsort_key_kind key;
    cl_mem keys;
    size_t keys_off;
    cl_mem vals;
    size_t vals_off;
    unsigned val_bytes;
    bool gen_index;
    size_t n;
    unsigned begin_bit, end_bit;
    bool descending;
    unsigned algorithm;  /* resolved: ONESWEEP or CLASSIC */
    unsigned radix_bits; /* 0: the tuning's width for this job (clsort_tuned_radix_bits) */
} clsort_radix_job;

clsort_status clsort_radix_sort(clsort_context *ctx, const clsort_radix_job *job,
                                clsort_seq *seq);
/* Bytes of pool memory the job needs. */
clsort_status clsort_radix_temp_bytes(clsort_context *ctx, const clsort_radix_job *job,
                                      size_t *bytes);
/* Tests: 1 where the context's last radix sort took MSD order from tiles
 * (clsort_radix_tiles: the plan's ST_TILED word, read back; blocks), 2
 * from tiles by the sample's map (TILED_MAPPED), 0 where not, -1 where
 * there is none to read. */
int clsort_radix_last_tiled(clsort_context *ctx);
/* Tests: 1 where the context's last radix sort took MSD order (the plan's
 * ST_MSD word; blocks), 0 where not, -1 where there is none to read. */
int clsort_radix_last_msd(clsort_context *ctx);
/* The number of keys the context's last radix sort wrote from its few
 * keys' table (0: the passes sorted; -1: no state to read). Tests. */
int clsort_radix_last_fill(clsort_context *ctx);
/* The check the plan of the context's last radix sort asked for (ST_FILL:
 * p + 1 by pass p's digits, FILL_SET by the set of keys, 0 none; -1 no
 * state to read). Tests. */
int clsort_radix_last_fill_check(clsort_context *ctx);
/* 1 where the sample's keys looked few and the check by the set, run
 * before any count, refused them (ST_FEW_REFUSED); 0 otherwise, -1 no
 * state to read. Tests. */
int clsort_radix_last_few_refused(clsort_context *ctx);
/* How many buckets of MSD order the context's last radix sort split by
 * their common key (ST_COMMON; -1 no state to read). Tests. */
int clsort_radix_last_common(clsort_context *ctx);
/* How many buckets of MSD order the context's last radix sort sorted by
 * their set of keys (ST_BY_SET; -1 no state to read). Tests. */
int clsort_radix_last_by_set(clsort_context *ctx);
/* How many buckets of MSD order the context's last radix sort sorted by
 * their keys' ranks (ST_BY_RANKS; -1 no state to read). Tests. */
int clsort_radix_last_by_ranks(clsort_context *ctx);
/* How many buckets of MSD order the context's last radix sort sorted by
 * every work-item, chunk by chunk (ST_SHARED; -1 no state to read). Tests. */
int clsort_radix_last_shared(clsort_context *ctx);
/* Tests: what the plan of the context's last radix sort made of the order
 * check (blocks): 1 no pass ran (keys in order, or every digit constant),
 * 2 pass 0 reversed the keys, 0 neither, -1 nothing to read. */
int clsort_radix_last_order(clsort_context *ctx);
/* Allocates every pool slot the job needs (and the records' slots). */
clsort_status clsort_radix_reserve(clsort_context *ctx, const clsort_radix_job *job,
                                   size_t records_bytes, size_t perm_bytes);
/* Writes 0..n-1 into v (indices of the job's value type). */
clsort_status clsort_radix_iota(clsort_context *ctx, const clsort_radix_job *job, cl_mem v,
                                clsort_seq *seq);
/* Moves records of rec_bytes by the permutation a gen_index job left in
 * perm: dst[i] = src[perm[i]]. */
/* Builds the gather's program ahead, so that a build failure comes before
 * any data moves. */
clsort_status clsort_radix_gather_prepare(clsort_context *ctx, const clsort_radix_job *sort_job);
clsort_status clsort_radix_gather(clsort_context *ctx, const clsort_radix_job *job, cl_mem src,
                                  size_t src_off_bytes, cl_mem dst, cl_mem perm, size_t rec_bytes,
                                  clsort_seq *seq);

/* ------------------------------------------------- comparison sorts */

/* Segments of one array for the segmented sorts: CSR offsets (relative to
 * the keys' element 0) in a device buffer of cl_ulong, or count segments of
 * seg_len elements from first. base0/covered: the range they span. */
typedef struct clsort_seg_desc {
    bool use_offsets;
    cl_mem offsets;
    size_t offsets_off;
    const uint64_t *host_offsets; /* the same offsets on the host, when known */
    size_t count, seg_len, first;
    size_t base0, covered, maxlen;
} clsort_seg_desc;

#define CLSORT_SELECTION_MAX (1u << 20)

size_t clsort_bitonic_capacity(const clsort_context *ctx, unsigned key_bytes, bool stable);
/* The comparison sorts' program (bitonic.cl and selection.cl) for a job:
 * its capacity and work-group size (fit_len > 0: a lone segment of that
 * many elements may get a program of its own size). */
typedef struct clsort_bt_variant {
    unsigned cap, wg;
    bool stable;
} clsort_bt_variant;
clsort_status clsort_bitonic_program(clsort_context *ctx, const clsort_radix_job *job,
                                     bool stable, size_t fit_len, clsort_bt_variant *v,
                                     clsort_program **prog);
/* The order keys' arguments: first bit, window mask (key-sized), direction. */
typedef struct clsort_order_args {
    cl_uint begin;
    uint64_t wmask;
    cl_uint desc;
    unsigned kb;
} clsort_order_args;
clsort_order_args clsort_order_of(const clsort_radix_job *job);
clsort_status clsort_bitonic_run(clsort_context *ctx, const clsort_radix_job *job,
                                 const clsort_seg_desc *seg, bool plain, clsort_seq *seq);
/* selection.c */
clsort_status clsort_selection_run(clsort_context *ctx, const clsort_radix_job *job,
                                   bool local, clsort_seq *seq);
clsort_status clsort_segments_radix(clsort_context *ctx, const clsort_radix_job *job,
                                    const clsort_seg_desc *seg, clsort_seq *seq);
bool clsort_segments_packable(const clsort_radix_job *job, const clsort_seg_desc *seg);
/* Segments sorted by a radix work-group each (radix.c): the longest segment
 * that fits one tile of the shape for segments up to maxlen (0: the shape
 * does not fit the device), and the sort, for segments of at most that. */
size_t clsort_radix_segment_tile(clsort_context *ctx, const clsort_radix_job *job, size_t maxlen);
clsort_status clsort_radix_segments_wg(clsort_context *ctx, const clsort_radix_job *job,
                                       const clsort_seg_desc *seg, clsort_seq *seq);

/* --------------------------------------------------------- host arrays */

/* A team of host threads for copies and merges (the caller's included). */
typedef struct clsort_team clsort_team;
unsigned clsort_host_threads(const clsort_context *ctx);
clsort_team *clsort_team_start(unsigned want); /* NULL: out of memory (work on one thread) */
unsigned clsort_team_size(const clsort_team *t);
void clsort_team_run(clsort_team *t, void (*fn)(void *arg, unsigned j, unsigned n), void *arg);
void clsort_team_stop(clsort_team *t); /* accepts NULL */
/* memcpy by the team's threads. */
void clsort_host_copy(clsort_team *t, void *dst, const void *src, size_t bytes);

/* Copies between host memory and a device buffer through the pinned
 * chunks where clsort_host_staged says so, else by the driver's copy.
 * Block. */
clsort_status clsort_host_upload(clsort_context *ctx, clsort_team *t, cl_mem dst, size_t dst_off,
                                 const void *src, size_t bytes);
clsort_status clsort_host_download(clsort_context *ctx, clsort_team *t, cl_mem src,
                                   size_t src_off, void *dst, size_t bytes);
/* The same through the buffer mapped into host memory (to_buffer: host to
 * buffer), copied by the team. Blocks. */
clsort_status clsort_host_map_copy(clsort_context *ctx, clsort_team *t, cl_mem buf, size_t off,
                                   void *host, size_t bytes, bool to_buffer);
size_t clsort_stage_chunk(const clsort_context *ctx);
/* Whether a copy of this many bytes goes through the chunks (else the
 * driver's own copy: small ones, or $CLSORT_HOST_PATH=copy). */
bool clsort_host_staged(const clsort_context *ctx, size_t bytes);
void clsort_stage_release(clsort_context *ctx);
/* A CL_MEM_USE_HOST_PTR buffer over the caller's array, and the map and
 * unmap that make its host copy current after a sort. */
clsort_status clsort_host_wrap(clsort_context *ctx, void *ptr, size_t bytes, bool read_only,
                               cl_mem *out);
cl_int clsort_host_sync(clsort_context *ctx, cl_mem m, size_t bytes);

/* Sorted runs of host arrays to merge (keys with values of value_bytes, or
 * argsort positions of index_bytes into keys_base). */
typedef struct clsort_merge {
    unsigned key_bytes, key_kind; /* as clsort_key_kind */
    unsigned begin_bit, end_bit;
    bool descending;
    bool by_index;          /* merge indices[], comparing keys_base[index] */
    const char *keys_base;  /* by_index */
    unsigned index_bytes;   /* by_index: 4 or 8 */
    char *keys, *values, *indices;
    size_t value_bytes;     /* 0: keys alone */
    char *scratch_keys, *scratch_vals; /* as large as keys and values (or indices) */
    bool runs_in_scratch;   /* the sorted runs are in the scratch arrays */
    size_t nruns;
    size_t *starts;         /* nruns + 1 run boundaries; overwritten */
} clsort_merge;
void clsort_host_merge(clsort_team *t, const clsort_merge *m);

/* ------------------------------------------------------------ the host tier */

/* A sort of host arrays on the calling thread (host_radix.c), with the
 * device's results byte for byte: keys_in to keys_out (the same array, or
 * NULL for an argsort), values (value_size bytes each) moved with the keys
 * in place, or the sorting permutation written to indices (index_bytes 4
 * or 8). Fails only for host memory, before any array is written. */
typedef struct clsort_host_radix_job {
    clsort_key_kind key;
    unsigned begin_bit, end_bit;
    bool descending;
    size_t n;
    const void *keys_in;
    void *keys_out;
    void *values;
    size_t value_size;
    void *indices;
    unsigned index_bytes;
} clsort_host_radix_job;
clsort_status clsort_host_radix_sort(clsort_context *ctx, const char *fn,
                                     const clsort_host_radix_job *job);

/* What a host-array sort asks of the tier (tier.c): its kind of data, which
 * decides the programs it takes, and whether it takes the tuned route. */
typedef struct clsort_tier_request {
    clsort_type key_type;
    unsigned mode;        /* 0 keys, 1 pairs, 2 argsort */
    size_t value_size;    /* pairs */
    unsigned index_bytes; /* argsort: 4 or 8 */
    size_t n;
    bool tuned_route;     /* options ask for AUTO and the tuned digit width */
} clsort_tier_request;
/* Where a host-array sort runs: *on_host true when its programs are not
 * yet built and warm on this device (then they start building in the
 * background, if nothing builds yet). First joins a background build that
 * has ended: its failure is returned (and the tier is off from then on). */
clsort_status clsort_tier_route(clsort_context *ctx, const clsort_tier_request *rq,
                                bool *on_host);
/* Joins an ended background build (a failure is returned); with wait, one
 * still running too. */
clsort_status clsort_tier_join(clsort_context *ctx, bool wait);
/* Stops the background build at its next step and joins it (release). */
void clsort_tier_release(clsort_context *ctx);
/* Records that a warmup prepared these programs (warmup.c): this process
 * and, through the cache folder, later ones run them on the device. */
void clsort_tier_mark_warm(clsort_context *ctx, const clsort_tier_request *rq);
/* Sorts small random arrays of the request's kind at each size where the
 * tuning changes the route (warmup.c); stops early, successfully, when
 * *cancel becomes true. */
clsort_status clsort_warm_kind(clsort_context *ctx, const clsort_tier_request *rq,
                               const _Atomic bool *cancel);
/* Tests: 1 on the host for every host-array sort the tier may take, never
 * building in the background; 0 as tuned. */
void clsort_tier_force(clsort_context *ctx, int on);
/* Tests: 1 when the context's last host-array sort ran on the host tier, 0
 * on the device; whether a background build is running. */
int clsort_tier_last(const clsort_context *ctx);
int clsort_tier_running(const clsort_context *ctx);

#endif /* CLSORT_INTERNAL_H */
