/* mpi_sort.c - the distributed sort over MPI (include/clsort_mpi.h).
 *
 * Steps, each collective over the communicator (docs/DESIGN.md,
 * "Distributed sort over MPI"):
 *  1. check: every rank checks its own arguments and allocates its
 *     temporary memory; the statuses are agreed (one fixed-size
 *     MPI_Allreduce), so any failure ends the call everywhere; then one
 *     MPI_Allgather gives every rank the n's and the arguments that must
 *     agree; on a communicator's first call its shared-memory state is made
 *     (a duplicate, MPI_Comm_split_type, MPI_Allreduce), and where all
 *     ranks share a node the window of sorted copies is allocated or grown
 *     (MPI_Win_allocate_shared, MPI_Allreduce);
 *  2. local sort: the local keys (and values) sorted by clsort's host-array
 *     path into a sorted copy (in the window, or the send buffer); the
 *     statuses are agreed (MPI_Allreduce);
 *  3. splitters: output rank r gets the global sorted positions
 *     [P_r, P_r + n_r), P_r the prefix of the n's. With ties broken by
 *     (key, rank, local index) every element has one position, so the key
 *     at each boundary P_r is found 4 bits at a time over the keys' sort
 *     images (one MPI_Allreduce of counts per round, for every boundary at
 *     once), and its ties are split in rank order (MPI_Allreduce and
 *     MPI_Exscan of the tie counts); the send counts follow, and
 *     MPI_Alltoall gives the receive counts (and, with the window, a second
 *     one where each peer's run for this rank starts);
 *  4. exchange: with the window, none (the merge reads the peers' copies);
 *     else one MPI_Alltoallw of the keys and one of the values, a struct
 *     datatype per peer over absolute addresses (MPI_BOTTOM), so counts and
 *     offsets are 64-bit whatever MPI's int arguments;
 *  5. merge: the runs (sorted, in rank order) merged on the host
 *     into the caller's arrays by a tree of branch-free pairwise merges,
 *     the output cut into one piece per thread; or (on CPU devices with
 *     more than 8 ranks, or with $CLSORT_MPI_MERGE=sort) sorted again by
 *     clsort (stable, so ties keep rank order) and read back after a last
 *     agreement.
 * GPU ranks (every rank's device with memory of its own and room) keep the
 * elements on the device instead: the split reads the sorted keys there,
 * only the runs that leave are read back (into the window or the send
 * buffer), and each rank gathers its runs on the device, sorts them there
 * and reads the result back once (the device-resident steps below).
 *
 * Only the public API: messages reach the context through
 * clsort_context_set_error. Never prints.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>

#include <clsort_mpi.h>

/* Records a failure in the context (ctx NULL: the thread's message), as the
 * core's own calls do; returns status. */
__attribute__((format(printf, 3, 4))) static clsort_status clsort_fail(clsort_context *ctx,
                                                                      clsort_status status,
                                                                      const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return clsort_context_set_error(ctx, status, buf);
}

static _Thread_local clsort_mpi_times last_times;

void clsort_mpi_last_times(clsort_mpi_times *times)
{
    if (times)
        *times = last_times;
}

#if defined(__GNUC__)
#define CLSORT_INLINE static inline __attribute__((always_inline))
#else
#define CLSORT_INLINE static inline
#endif

/* ------------------------------------------------------------- key images */

/* The key's sort image: the order-preserving unsigned image of clsort.h,
 * restricted to the bit window, complemented for descending order. Sorting
 * by it (stably) is clsort's order. */
typedef struct order {
    unsigned bytes;
    int kind; /* 0 unsigned, 1 signed, 2 float */
    unsigned begin, width;
    uint64_t mask;
    int descending;
} order;

static inline uint64_t load(const unsigned char *p, unsigned bytes)
{
    switch (bytes) {
    case 1:
        return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

CLSORT_INLINE uint64_t key_image_kb(const order *o, const unsigned char *p, size_t bytes)
{
    uint64_t v = load(p, (unsigned)bytes);
    unsigned bits = (unsigned)bytes * 8;
    uint64_t sign = 1ull << (bits - 1);
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (o->kind == 1) {
        v ^= sign;
    } else if (o->kind == 2) {
        uint64_t expo = bytes == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
        uint64_t mant = bytes == 4 ? 0x007fffffull : 0x000fffffffffffffull;
        if ((v & expo) == expo && (v & mant))
            v = all; /* every NaN */
        else {
            if (v == sign)
                v = 0; /* -0.0 reads as +0.0 */
            v = (v & sign) ? (~v & all) : (v | sign);
        }
    }
    v = (v >> o->begin) & o->mask;
    return o->descending ? (~v & o->mask) : v;
}

static inline uint64_t key_image(const order *o, const unsigned char *p)
{
    return key_image_kb(o, p, o->bytes);
}

static order make_order(clsort_type type, const clsort_options *opt)
{
    order o = {.bytes = (unsigned)clsort_type_size(type)};
    o.kind = (type == CLSORT_I8 || type == CLSORT_I16 || type == CLSORT_I32 || type == CLSORT_I64)
                 ? 1
                 : (type == CLSORT_F32 || type == CLSORT_F64) ? 2 : 0;
    unsigned end = opt && opt->end_bit ? opt->end_bit : o.bytes * 8;
    o.begin = opt ? opt->begin_bit : 0;
    o.width = end - o.begin;
    o.mask = o.width == 64 ? ~0ull : (1ull << o.width) - 1;
    o.descending = opt && opt->descending;
    return o;
}

/* First index in [lo, hi) of the sorted keys whose image exceeds v. */
static size_t upper_bound(const order *o, const unsigned char *keys, size_t lo, size_t hi,
                          uint64_t v)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_image(o, keys + mid * o->bytes) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* -------------------------------------------------------------- the call */

/* What every rank tells the others in step 1. */
typedef struct agreement {
    int32_t status;
    int32_t key_type;
    int32_t pairs;
    int32_t descending;
    uint32_t begin_bit, end_bit;
    int32_t merge_by_sort; /* this rank's preference */
    int32_t exchange_mpi;  /* this rank's preference: MPI_Alltoallw even on one node */
    int32_t node_new;      /* the communicator has no shared-memory state here yet */
    int32_t resident;      /* this rank's preference: keep its elements on the device */
    uint64_t value_size;
    uint64_t n;
} agreement;

typedef struct job {
    const char *fn;
    clsort_context *ctx;
    MPI_Comm comm;
    int rank, size;
    clsort_type type;
    const clsort_options *options;
    int pairs;
    unsigned char *keys, *values; /* the caller's */
    size_t kb, vb, n;
    unsigned char *sk, *sv, *rk, *rv; /* sorted copy (sent from), received */
    unsigned char *own[4]; /* the temporaries take_temps gave (sk, rk, sv, rv) */
    int spare;  /* sk .. rv are the process's spare set (take_temps) */
    int fresh;  /* some of them newly allocated: their pages not yet touched */
    /* Per-rank counters, allocated before the first collective step (a
     * rank that cannot allocate them still takes part in the first
     * MPI_Allreduce, with its failure). */
    agreement *all;
    uint64_t *ns;   /* every rank's n */
    uint64_t *cut;  /* size + 1: where each destination's elements start */
    uint64_t *recv; /* elements received from each rank */
    uint64_t *send; /* elements sent to each rank */
    uint64_t *search; /* SEARCH_WORDS x size: the split's search state */
    int *ints;      /* 4 x size: the exchange's counts and displacements */
    MPI_Datatype *types; /* 2 x size: the exchange's datatypes */
    uint64_t *pos;       /* 2 x size: the host merge's run positions */
    /* Where the merge reads each source rank's run: elements src_at[r] ..
     * src_at[r] + recv[r] of src_k[r] (and src_v[r]): the receive buffer,
     * or the peer's sorted copy in the node's shared memory. */
    const unsigned char **src_k, **src_v;
    uint64_t *src_at;
    unsigned char *scratch_k, *scratch_v; /* the merge's other buffer */
    struct node_win *node; /* the communicator's shared-memory state */
    int node_new;          /* node allocated by this call, not yet attached */
    int shared;            /* the exchange through the node's shared memory */
    int attach;            /* every rank's node is new: attach them (collective) */
    order ord;
    int merge_by_sort;
    /* Device-resident steps (every rank agreed): the sorted elements stay
     * in dk, dv; only the runs that leave are read back (into sk, sv), the
     * arriving runs are written into ok, ov beside this rank's own run and
     * sorted there, and the result read back into the caller's arrays. */
    int resident;
    cl_mem dk, dv, ok, ov;
    struct probe *probe; /* the split's reads of device-resident keys */
    uint64_t *queries;   /* the split's searches of them */
} job;

/* ------------------------------------------------- temporary host memory */

/* The temporaries (sorted copy and receive buffers of keys and values) of
 * one sort are kept for the next: a code that sorts every step (a
 * particle-in-cell code) finds their pages mapped already, where fresh
 * blocks (glibc maps large ones anew on every call) fault every 4 KiB in
 * the local sort, the exchange and the merge. One set per process, taken
 * by one call at a time (a call that finds it taken, from another thread,
 * allocates its own); freed when MPI is finalised (MPI_Finalize deletes
 * MPI_COMM_SELF's attributes first), or by a call that fails to grow it. */
static struct {
    pthread_mutex_t lock;
    int taken, keyval;
    unsigned char *p[4];
    size_t cap[4];
} spares = {PTHREAD_MUTEX_INITIALIZER, 0, MPI_KEYVAL_INVALID, {NULL}, {0}};

static void free_spares(void)
{
    for (int i = 0; i < 4; i++) {
        free(spares.p[i]);
        spares.p[i] = NULL;
        spares.cap[i] = 0;
    }
}

static void release_nodes(void);

static int spares_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&spares.lock);
    free_spares();
    pthread_mutex_unlock(&spares.lock);
    release_nodes();
    return MPI_SUCCESS;
}

/* sk, rk (n keys each) and sv, rv (n values each, pairs): the spare set
 * grown to fit, or blocks of their own. Returns 0 without memory. */
static int take_temps(job *j)
{
    const size_t m = j->n ? j->n : 1;
    const size_t need[4] = {m * j->kb, m * j->kb, j->pairs ? m * j->vb : 0,
                            j->pairs ? m * j->vb : 0};
    unsigned char **dst[4] = {&j->sk, &j->rk, &j->sv, &j->rv};
    pthread_mutex_lock(&spares.lock);
    j->spare = !spares.taken;
    if (j->spare) {
        spares.taken = 1;
        if (spares.keyval == MPI_KEYVAL_INVALID &&
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, spares_at_finalize, &spares.keyval,
                                   NULL) == MPI_SUCCESS)
            MPI_Comm_set_attr(MPI_COMM_SELF, spares.keyval, NULL);
    }
    pthread_mutex_unlock(&spares.lock);
    int ok = 1;
    for (int i = 0; i < 4; i++) {
        if (!need[i])
            continue;
        if (!j->spare) {
            *dst[i] = malloc(need[i]);
            j->fresh = 1;
        } else {
            if (spares.cap[i] < need[i]) {
                free(spares.p[i]);
                spares.p[i] = malloc(need[i]);
                spares.cap[i] = spares.p[i] ? need[i] : 0;
                j->fresh = 1;
            }
            *dst[i] = spares.p[i];
        }
        ok &= *dst[i] != NULL;
        j->own[i] = *dst[i];
    }
    if (!ok && j->spare)
        free_spares(); /* (taken: no other call uses them) */
    return ok;
}

static void give_temps(job *j)
{
    if (!j->spare) {
        for (int i = 0; i < 4; i++)
            free(j->own[i]);
        return;
    }
    pthread_mutex_lock(&spares.lock);
    spares.taken = 0;
    pthread_mutex_unlock(&spares.lock);
}

/* ------------------------------------------------- the node's shared memory */

/* Where every rank of the communicator runs on one node, the sorted copies
 * live in an MPI-3 shared-memory window (MPI_Win_allocate_shared) and each
 * rank merges its share straight from its peers' copies: no exchange
 * through MPI at all ($CLSORT_MPI_EXCHANGE=mpi keeps MPI_Alltoallw). The
 * state is cached on the caller's communicator (an attribute) and the
 * window kept for the next sort, grown when a rank's elements outgrow its
 * part; freed with the communicator, or at MPI_Finalize. */
typedef struct node_win {
    MPI_Comm comm;        /* a duplicate of the caller's, errors returned */
    int shared;           /* every rank of comm on this node */
    int size, rank;
    MPI_Win win;          /* MPI_WIN_NULL until a sort needs it */
    size_t *caps;         /* size: each rank's part, bytes */
    unsigned char **base; /* size: each rank's part, mapped in this process */
    struct node_win *next;
} node_win;

static struct {
    pthread_mutex_t lock;
    int keyval;
    node_win *list; /* in creation order, for MPI_Finalize */
} nodes = {PTHREAD_MUTEX_INITIALIZER, MPI_KEYVAL_INVALID, NULL};

static void free_window(node_win *w)
{
    if (w->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(w->win);
        MPI_Win_free(&w->win);
        w->win = MPI_WIN_NULL;
    }
    for (int r = 0; r < w->size; r++) {
        w->caps[r] = 0;
        w->base[r] = NULL;
    }
}

/* At MPI_Finalize (MPI_COMM_SELF's attributes go first): the windows and
 * duplicates still alive are left to MPI_Finalize, not freed here (freeing
 * is collective, and ranks whose threads created windows in different
 * orders would wait on each other); the states forget them, so that a
 * delete callback run later by MPI_Finalize calls no MPI function. */
static void release_nodes(void)
{
    pthread_mutex_lock(&nodes.lock);
    for (node_win *w = nodes.list; w; w = w->next) {
        w->win = MPI_WIN_NULL;
        w->comm = MPI_COMM_NULL;
        w->shared = 0;
    }
    pthread_mutex_unlock(&nodes.lock);
}

static void free_node(node_win *w)
{
    if (!w)
        return;
    free(w->caps);
    free(w->base);
    free(w);
}

/* The attribute's delete callback: the caller's communicator is freed
 * (collectively, by every rank of it), and the window and duplicate with
 * it. */
static int node_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    node_win *w = value;
    pthread_mutex_lock(&nodes.lock);
    for (node_win **at = &nodes.list; *at; at = &(*at)->next)
        if (*at == w) {
            *at = w->next;
            break;
        }
    pthread_mutex_unlock(&nodes.lock);
    free_window(w);
    if (w->comm != MPI_COMM_NULL)
        MPI_Comm_free(&w->comm);
    free_node(w);
    return MPI_SUCCESS;
}

/* Step 1: the communicator's state, or a new one to attach once every rank
 * has passed its checks (attach_node). Returns 0 without memory. */
static int find_node(job *j)
{
    pthread_mutex_lock(&nodes.lock);
    if (nodes.keyval == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, node_delete, &nodes.keyval, NULL);
    pthread_mutex_unlock(&nodes.lock);
    void *value = NULL;
    int found = 0;
    if (nodes.keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_get_attr(j->comm, nodes.keyval, &value, &found);
    if (found) {
        j->node = value;
        return 1;
    }
    node_win *w = calloc(1, sizeof *w);
    if (w) {
        w->caps = calloc((size_t)j->size, sizeof *w->caps);
        w->base = calloc((size_t)j->size, sizeof *w->base);
    }
    if (!w || !w->caps || !w->base) {
        free_node(w);
        return 0;
    }
    w->comm = MPI_COMM_NULL;
    w->win = MPI_WIN_NULL;
    w->size = j->size;
    w->rank = j->rank;
    j->node = w;
    j->node_new = 1;
    return 1;
}

/* After step 1, on every rank at once, where no rank had a state for the
 * communicator: the new one learns whether the ranks share a node, and is
 * attached to the caller's communicator. The ranks agree on the outcome
 * (one MPI_Allreduce), so that a rank whose duplicate, split or attribute
 * failed makes every rank skip the window; the states then stay without
 * one for good (the duplicate freed). */
static void attach_node(job *j)
{
    node_win *w = j->node;
    MPI_Comm node = MPI_COMM_NULL;
    int nsize = 0, attached = 0;
    if (MPI_Comm_dup(j->comm, &w->comm) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
        if (MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
            MPI_SUCCESS) {
            MPI_Comm_size(node, &nsize);
            MPI_Comm_free(&node);
        }
    } else {
        w->comm = MPI_COMM_NULL;
    }
    /* $CLSORT_MPI_FAIL_ATTACH=r: rank r fails here, as if MPI_Comm_set_attr
     * had (the tests' way to this path) */
    const char *fail = getenv("CLSORT_MPI_FAIL_ATTACH");
    if (nodes.keyval != MPI_KEYVAL_INVALID && !(fail && *fail && atoi(fail) == j->rank) &&
        MPI_Comm_set_attr(j->comm, nodes.keyval, w) == MPI_SUCCESS) {
        pthread_mutex_lock(&nodes.lock);
        node_win **at = &nodes.list;
        while (*at)
            at = &(*at)->next;
        *at = w;
        pthread_mutex_unlock(&nodes.lock);
        j->node_new = 0;
        attached = 1;
    }
    int mine = attached && w->comm != MPI_COMM_NULL && nsize == j->size, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, j->comm);
    w->shared = all;
    if (!all) { /* the duplicate freed (collectively) where every rank has one */
        int has = w->comm != MPI_COMM_NULL, every = 0;
        MPI_Allreduce(&has, &every, 1, MPI_INT, MPI_MIN, j->comm);
        if (every)
            MPI_Comm_free(&w->comm);
    }
}

/* Bytes of a rank's part for n elements: keys, then values at a 64-byte
 * boundary. */
static size_t part_bytes(const job *j, uint64_t n, size_t *values_at)
{
    size_t at = ((size_t)n * j->kb + 63) & ~(size_t)63;
    if (values_at)
        *values_at = at;
    return at + (j->pairs ? (size_t)n * j->vb : 0);
}

/* Before step 2, on every rank at once: the window holding every rank's
 * sorted copy, grown (freed and allocated again, collectively) when a
 * rank's elements outgrow its part, with an eighth to spare. Every rank
 * computes every rank's part from the agreed n's, so all take the same
 * decision. On a failure that every rank agrees on, this communicator
 * falls back to MPI_Alltoallw for good. Sets sk, sv into the window. */
static void take_window(job *j)
{
    node_win *w = j->node;
    int fits = w->win != MPI_WIN_NULL;
    for (int r = 0; r < j->size && fits; r++)
        fits = part_bytes(j, j->ns[r], NULL) <= w->caps[r];
    if (!fits) {
        free_window(w);
        for (int r = 0; r < j->size; r++) {
            size_t need = part_bytes(j, j->ns[r], NULL);
            need += need / 8;
            w->caps[r] = (need + 4095) & ~(size_t)4095;
        }
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        unsigned char *mine = NULL;
        int mpi = MPI_Win_allocate_shared((MPI_Aint)w->caps[j->rank], 1, info, w->comm, &mine,
                                          &w->win);
        MPI_Info_free(&info);
        int ok = mpi == MPI_SUCCESS, all = 0;
        if (ok)
            ok = MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win) == MPI_SUCCESS;
        for (int r = 0; ok && r < j->size; r++) {
            MPI_Aint bytes = 0;
            int unit = 1;
            void *at = NULL;
            ok = MPI_Win_shared_query(w->win, r, &bytes, &unit, &at) == MPI_SUCCESS &&
                 (size_t)bytes >= w->caps[r] && (at || !bytes);
            w->base[r] = at;
        }
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, j->comm);
        if (!all) {
            /* a window that some rank lacks cannot be freed collectively:
             * left to MPI_Finalize, and this communicator exchanges
             * through MPI_Alltoallw from now on */
            w->win = MPI_WIN_NULL;
            w->shared = 0;
            j->shared = 0;
            return;
        }
    }
    size_t vat = 0;
    part_bytes(j, j->n, &vat);
    j->sk = w->base[j->rank];
    j->sv = j->pairs ? j->sk + vat : NULL;
}

/* Orders this process's accesses to the window before and after the
 * collective that separates a rank's writes from its peers' reads. */
static void window_sync(const job *j)
{
    if (j->shared)
        MPI_Win_sync(j->node->win);
}

struct probe;
static void probe_free(struct probe *pr);

/* The device-resident steps' buffers, released and forgotten. */
static void release_device(job *j)
{
    cl_mem *bufs[4] = {&j->dk, &j->dv, &j->ok, &j->ov};
    for (int i = 0; i < 4; i++) {
        if (*bufs[i])
            clReleaseMemObject(*bufs[i]);
        *bufs[i] = NULL;
    }
}

static void free_job(job *j)
{
    if (j->node_new)
        free_node(j->node);
    give_temps(j);
    free(j->all);
    free(j->ns);
    free(j->cut);
    free(j->recv);
    free(j->send);
    free(j->search);
    free(j->ints);
    free(j->types);
    free(j->pos);
    free(j->src_k);
    free(j->src_at);
    probe_free(j->probe);
    free(j->queries);
    release_device(j);
}

static int ranges_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

/* Runs above which a CPU device's ranks merge by a second clsort sort: the
 * host merge makes ceil(log2 runs) passes over the keys, and on the PoCL
 * machine one pass cost a quarter to a half of a sort of the same keys on
 * the same thread (docs/PERFORMANCE.md, "Distributed sort over MPI"). */
#define CPU_HOST_MERGE_MAX_RUNS 8

/* The merge on the host or by a second clsort sort: $CLSORT_MPI_MERGE
 * ("host" or "sort"), else the host merge, except on CPU devices with more
 * than CPU_HOST_MERGE_MAX_RUNS ranks. On a GPU the second sort would carry
 * the keys over the bus both ways again. The ranks agree: one that prefers
 * the sort makes every rank sort. */
static int prefers_sort_merge(clsort_context *ctx, MPI_Comm comm)
{
    const char *e = getenv("CLSORT_MPI_MERGE");
    if (e && strcmp(e, "sort") == 0)
        return 1;
    if (e && strcmp(e, "host") == 0)
        return 0;
    int size = 1;
    MPI_Comm_size(comm, &size);
    clsort_device_info info;
    return size > CPU_HOST_MERGE_MAX_RUNS && ctx &&
           clsort_context_device_info(ctx, &info) == CLSORT_SUCCESS && info.is_cpu;
}

/* $CLSORT_MPI_EXCHANGE=mpi: the exchange through MPI_Alltoallw even where
 * the ranks share a node (the ranks agree: one such rank decides). */
static int prefers_mpi_exchange(void)
{
    const char *e = getenv("CLSORT_MPI_EXCHANGE");
    return e && strcmp(e, "mpi") == 0;
}

/* Whether this rank would keep its elements on its device between the
 * steps: on a device with memory of its own (a discrete GPU), when the
 * sorted copy, the output and the sort's temporary memory fit in three
 * quarters of it ($CLSORT_MPI_RESIDENT=1 or 0 forces it on or off, where
 * the buffers fit). The ranks agree: all or none. */
static int wants_resident(const job *j)
{
    const char *e = getenv("CLSORT_MPI_RESIDENT");
    int forced = e && *e ? strcmp(e, "0") != 0 : -1;
    if (forced == 0 || !j->ctx)
        return 0;
    clsort_device_info info;
    cl_bool unified = CL_TRUE;
    if (clsort_context_device_info(j->ctx, &info) != CLSORT_SUCCESS ||
        clGetDeviceInfo(clsort_context_device(j->ctx), CL_DEVICE_HOST_UNIFIED_MEMORY,
                        sizeof unified, &unified, NULL) != CL_SUCCESS)
        return 0;
    if (forced < 0 && (unified || !info.is_gpu))
        return 0;
    size_t temp = 0, elem = j->pairs && j->vb > j->kb ? j->vb : j->kb;
    if (clsort_temp_size(j->ctx, j->type, j->pairs ? j->vb : 0, j->n, j->options, &temp) !=
        CLSORT_SUCCESS)
        return 0;
    uint64_t need = 2 * (uint64_t)j->n * (j->kb + (j->pairs ? j->vb : 0)) + temp;
    return (uint64_t)j->n * elem <= info.max_alloc_bytes && need <= info.global_mem_bytes / 4 * 3;
}

/* Step 1 on this rank: arguments and temporary memory. */
static clsort_status check_local(job *j)
{
    const char *fn = j->fn;
    if (!j->ctx)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT, "%s: ctx is NULL", fn);
    /* The core checks the type, options and value size with a sort of 0 keys. */
    clsort_status s = j->pairs ? clsort_sort_pairs(j->ctx, j->type, j->keys, j->values, j->vb, 0,
                                                   j->options)
                               : clsort_sort_keys(j->ctx, j->type, j->keys, 0, j->options);
    if (s != CLSORT_SUCCESS)
        return s;
    j->kb = clsort_type_size(j->type);
    if (j->n > 0 && !j->keys)
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys is NULL", fn);
    if (j->pairs && j->n > 0 && !j->values)
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: values is NULL", fn);
    if (j->n > SIZE_MAX / 8 / (j->vb > 8 ? j->vb : 8))
        return clsort_fail(j->ctx, CLSORT_ERROR_TOO_LARGE, "%s: n = %zu is too large", fn, j->n);
    if (j->pairs && ranges_overlap(j->keys, j->n * j->kb, j->values, j->n * j->vb))
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: keys and values overlap",
                           fn);
    if (!take_temps(j) || !find_node(j))
        return clsort_fail(j->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                           "%s: no host memory for the temporary copies of %zu elements", fn, j->n);
    return CLSORT_SUCCESS;
}

/* Another rank's failure as this rank's status and message. */
static clsort_status remote_failure(job *j, int who, clsort_status theirs)
{
    return clsort_fail(j->ctx, CLSORT_ERROR_REMOTE, "%s: rank %d failed with %s", j->fn, who,
                       clsort_status_string(theirs));
}

static const char *mismatch(const agreement *a, const agreement *b)
{
    if (a->pairs != b->pairs)
        return "call (keys or pairs)";
    if (a->key_type != b->key_type)
        return "key type";
    if (a->pairs && a->value_size != b->value_size)
        return "value size";
    if (a->begin_bit != b->begin_bit || a->end_bit != b->end_bit)
        return "bit window";
    if (a->descending != b->descending)
        return "direction (descending)";
    return NULL;
}

/* Step 1 across ranks, once every rank's own checks passed: everyone's n
 * and the arguments that decide the order, which must agree. */
static clsort_status agree(job *j)
{
    const clsort_options *o = j->options;
    unsigned kbits = (unsigned)clsort_type_size(j->type) * 8;
    agreement me = {
        .status = CLSORT_SUCCESS,
        .key_type = (int32_t)j->type,
        .pairs = j->pairs,
        .descending = o && o->descending ? 1 : 0,
        .begin_bit = o ? o->begin_bit : 0,
        .end_bit = o && o->end_bit ? o->end_bit : kbits,
        .merge_by_sort = j->merge_by_sort,
        .exchange_mpi = prefers_mpi_exchange(),
        .node_new = j->node_new,
        .resident = wants_resident(j),
        .value_size = j->pairs ? j->vb : 0,
        .n = j->n,
    };
    agreement *all = j->all;
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, j->comm);
    for (int r = 1; r < j->size; r++) {
        const char *what = mismatch(&all[0], &all[r]);
        if (what)
            return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                               "%s: the %s differs between ranks 0 and %d "
                               "(type %s/%s, value size %llu/%llu, bits [%u,%u)/[%u,%u), "
                               "descending %d/%d)",
                               j->fn, what, r, clsort_type_name((clsort_type)all[0].key_type),
                               clsort_type_name((clsort_type)all[r].key_type),
                               (unsigned long long)all[0].value_size,
                               (unsigned long long)all[r].value_size, all[0].begin_bit,
                               all[0].end_bit, all[r].begin_bit, all[r].end_bit,
                               all[0].descending, all[r].descending);
    }
    j->merge_by_sort = 0;
    j->shared = 1;
    j->resident = 1;
    int fresh = 0;
    for (int r = 0; r < j->size; r++) {
        j->merge_by_sort |= all[r].merge_by_sort;
        j->resident &= all[r].resident != 0;
        j->shared &= !all[r].exchange_mpi;
        fresh += all[r].node_new != 0;
    }
    /* the communicator's state: new on every rank (attached in run), or
     * there on every rank; else (a rank failed to attach it before) the
     * exchange goes through MPI_Alltoallw for good */
    j->attach = j->shared && fresh == j->size;
    if (fresh != 0 && fresh != j->size)
        j->shared = 0;
    return CLSORT_SUCCESS;
}

/* A status agreed by every rank after a local step (MPI_MINLOC: the most
 * negative code, from the lowest rank that has it, names the failure). */
static clsort_status agree_status_as(job *j, clsort_status mine, int *agreed)
{
    struct {
        int status, rank;
    } in = {mine, j->rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, j->comm);
    if (agreed)
        *agreed = out.status;
    if (mine != CLSORT_SUCCESS || out.status == CLSORT_SUCCESS)
        return mine;
    return remote_failure(j, out.rank, out.status);
}

static clsort_status agree_status(job *j, clsort_status mine)
{
    return agree_status_as(j, mine, NULL);
}

/* The split's search: bits of the boundary keys found per round, and the
 * words of state per boundary (target, prefix, lo, hi, the candidates'
 * local and global counts). */
#define SPLIT_BITS 4
#define SPLIT_CANDIDATES ((1 << SPLIT_BITS) - 1)
#define SEARCH_WORDS (4 + 2 * SPLIT_CANDIDATES)

/* The split's view of device-resident sorted keys (dk): the last key of
 * every bracket of `stride` keys, read at once (one rectangular read), and
 * brackets read whole as the searches need them, kept for the later rounds
 * (whose candidates fall into fewer and fewer brackets). Since the keys are
 * sorted, a search over [lo, hi) is the search over all keys clamped to
 * [lo, hi), so a bracket outside the range needs no read. */
typedef struct probe {
    size_t stride, brackets; /* brackets = ceil(n / stride) */
    unsigned char *last;     /* the last key of brackets 0 .. brackets - 2 */
    unsigned char **keys;    /* the brackets read (NULL: not read) */
    size_t held, hold;       /* bytes of them, and the most kept between rounds */
    size_t *want;            /* the bracket each query needs (SIZE_MAX: none) */
} probe;

/* Brackets of the sample: n / 16384 (a small read from pageable memory
 * costs about its size), at least 8192 and at most 65536 (rows of the
 * rectangular read); or $CLSORT_MPI_PROBES for the tests, which then also
 * keep at most two brackets read from one round to the next (the drop
 * beyond PROBE_HOLD bytes). */
#define PROBE_HOLD ((size_t)64 << 20)
static size_t probe_brackets(size_t n, int *told)
{
    const char *e = getenv("CLSORT_MPI_PROBES");
    long long v = e ? atoll(e) : 0;
    *told = v >= 1 && v <= (1 << 20);
    if (*told)
        return (size_t)v;
    size_t want = n / 16384;
    return want < 8192 ? 8192 : want > 65536 ? 65536 : want;
}

static void probe_free(probe *pr)
{
    if (!pr)
        return;
    for (size_t b = 0; pr->keys && b < pr->brackets; b++)
        free(pr->keys[b]);
    free(pr->keys);
    free(pr->last);
    free(pr->want);
    free(pr);
}

/* The sample of the sorted keys for `queries` searches a round; NULL
 * without memory or when the read fails. */
static probe *probe_open(job *j, size_t queries)
{
    probe *pr = calloc(1, sizeof *pr);
    if (!pr)
        return NULL;
    int told = 0;
    size_t kb = j->kb, want = probe_brackets(j->n, &told);
    pr->stride = j->n > want ? (j->n + want - 1) / want : 1;
    pr->hold = told ? 2 * pr->stride * kb : PROBE_HOLD;
    pr->brackets = j->n ? (j->n + pr->stride - 1) / pr->stride : 0;
    pr->keys = calloc(pr->brackets + 1, sizeof *pr->keys);
    pr->last = malloc(pr->brackets * kb + 1);
    pr->want = malloc((queries + 1) * sizeof *pr->want);
    if (!pr->keys || !pr->last || !pr->want) {
        probe_free(pr);
        return NULL;
    }
    if (pr->brackets > 1) {
        /* keys stride - 1 + b stride: rows of one key, stride keys apart */
        size_t rows = pr->brackets - 1, s = pr->stride;
        size_t origin[3] = {(s - 1) * kb, 0, 0}, host[3] = {0, 0, 0}, region[3] = {kb, rows, 1};
        cl_int err = clEnqueueReadBufferRect(clsort_context_queue(j->ctx), j->dk, CL_TRUE, origin,
                                             host, region, s * kb, 0, kb, 0, pr->last, 0, NULL,
                                             NULL);
        if (err != CL_SUCCESS) {
            probe_free(pr);
            return NULL;
        }
    }
    return pr;
}

/* For each query i: the first index in [lo[i], hi[i]) of the sorted keys
 * whose image exceeds v[i] (hi[i] if none), into out[i]. The brackets this
 * round needs and has not read are read together, then searched. Returns 0
 * if a read failed. */
static int probe_bounds(job *j, probe *pr, size_t queries, const uint64_t *lo,
                        const uint64_t *hi, const uint64_t *v, uint64_t *out)
{
    const order *o = &j->ord;
    const size_t kb = j->kb, s = pr->stride;
    size_t fresh = 0;
    for (size_t i = 0; i < queries; i++) {
        pr->want[i] = SIZE_MAX;
        if (lo[i] >= hi[i]) {
            out[i] = lo[i];
            continue;
        }
        /* the bound over all keys lies in bracket b: [b s, min(n, b s + s)] */
        size_t b = upper_bound(o, pr->last, 0, pr->brackets - 1, v[i]);
        uint64_t from = (uint64_t)b * s, to = from + s < j->n ? from + s : j->n;
        if (from >= hi[i])
            out[i] = hi[i];
        else if (to <= lo[i])
            out[i] = lo[i];
        else {
            pr->want[i] = b;
            if (!pr->keys[b])
                fresh += (size_t)(to - from) * kb;
        }
    }
    if (fresh > 0 && pr->held + fresh > pr->hold) { /* drop what this round does not need */
        for (size_t b = 0; b < pr->brackets; b++) {
            int needed = 0;
            for (size_t i = 0; i < queries && !needed && pr->keys[b]; i++)
                needed = pr->want[i] == b;
            if (pr->keys[b] && !needed) {
                free(pr->keys[b]);
                pr->keys[b] = NULL;
                pr->held -= s * kb;
            }
        }
    }
    cl_command_queue q = clsort_context_queue(j->ctx);
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < queries && err == CL_SUCCESS; i++) {
        size_t b = pr->want[i];
        if (b == SIZE_MAX || pr->keys[b])
            continue;
        size_t from = b * s, count = from + s < j->n ? s : j->n - from;
        pr->keys[b] = malloc(s * kb);
        if (!pr->keys[b]) {
            err = CL_OUT_OF_HOST_MEMORY; /* (the reads queued so far finish first) */
            break;
        }
        pr->held += s * kb;
        err = clEnqueueReadBuffer(q, j->dk, CL_FALSE, from * kb, count * kb, pr->keys[b], 0, NULL,
                                  NULL);
    }
    cl_int fin = clFinish(q);
    if (err != CL_SUCCESS || fin != CL_SUCCESS)
        return 0;
    for (size_t i = 0; i < queries; i++) {
        size_t b = pr->want[i];
        if (b == SIZE_MAX)
            continue;
        size_t from = b * s, count = from + s < j->n ? s : j->n - from;
        uint64_t at = from + upper_bound(o, pr->keys[b], 0, count, v[i]);
        out[i] = at < lo[i] ? lo[i] : at > hi[i] ? hi[i] : at;
    }
    return 1;
}

/* Step 3: j->cut[r] .. j->cut[r + 1] are the local sorted elements that go
 * to rank r; j->recv[i] the number that come from rank i. */
static clsort_status split(job *j, unsigned *rounds)
{
    int p = j->size;
    uint64_t total = 0;
    for (int r = 0; r < p; r++)
        total += j->ns[r];
    /* Boundaries P_r strictly inside (0, total): the others cut at 0 or n. */
    size_t nb = 0;
    uint64_t pr = 0;
    for (int r = 1; r < p; r++) {
        pr += j->ns[r - 1];
        if (pr > 0 && pr < total)
            nb++;
    }
    uint64_t *buf = j->search;
    memset(buf, 0, nb * SEARCH_WORDS * sizeof *buf);
    uint64_t *target = buf, *prefix = buf + nb, *lo = buf + 2 * nb, *hi = buf + 3 * nb,
             *cnt = buf + 4 * nb, *glob = cnt + SPLIT_CANDIDATES * nb;
    size_t b = 0;
    pr = 0;
    for (int r = 1; r < p; r++) {
        pr += j->ns[r - 1];
        if (pr > 0 && pr < total) {
            target[b] = pr;
            lo[b] = 0;
            hi[b] = j->n;
            b++;
        }
    }
    const order *o = &j->ord;
    int mpi = MPI_SUCCESS, read_ok = 1;
    /* device-resident keys: every candidate a query of probe_bounds */
    size_t queries = nb * SPLIT_CANDIDATES;
    uint64_t *qlo = NULL, *qhi = NULL, *qv = NULL, *qout = NULL;
    if (j->resident && nb > 0) {
        j->probe = probe_open(j, queries);
        j->queries = malloc(4 * queries * sizeof *qlo);
        read_ok = j->probe && j->queries;
        if (read_ok) {
            qlo = j->queries;
            qhi = qlo + queries;
            qv = qhi + queries;
            qout = qv + queries;
        }
    }
    /* The image of the element at each target position, SPLIT_BITS bits per
     * round: the smallest v with count(image <= v) > target. [lo, hi) holds
     * the local elements whose image agrees with prefix on the bits fixed so
     * far; each round counts the elements up to each value of the next
     * digit (2^d - 1 candidates per boundary, one MPI_Allreduce for all). */
    for (int top = (int)o->width; nb > 0 && top > 0;) {
        int d = top < SPLIT_BITS ? top : SPLIT_BITS, shift = top - d, cands = (1 << d) - 1;
        if (j->resident) { /* (a rank that failed still takes part in every round) */
            for (b = 0; b < nb && read_ok; b++)
                for (int m = 0; m < cands; m++) {
                    size_t i = b * (size_t)cands + (size_t)m;
                    qlo[i] = lo[b];
                    qhi[i] = hi[b];
                    qv[i] = prefix[b] | ((((uint64_t)m + 1) << shift) - 1);
                }
            if (read_ok)
                read_ok = probe_bounds(j, j->probe, nb * (size_t)cands, qlo, qhi, qv, qout);
            for (b = 0; b < nb; b++)
                for (int m = 0; m < cands; m++)
                    cnt[b * SPLIT_CANDIDATES + m] =
                        read_ok ? qout[b * (size_t)cands + (size_t)m] : lo[b];
        } else
            for (b = 0; b < nb; b++) {
                uint64_t *c = cnt + b * SPLIT_CANDIDATES, from = lo[b];
                for (int m = 0; m < cands; m++) {
                    uint64_t cand = prefix[b] | ((((uint64_t)m + 1) << shift) - 1);
                    c[m] = from = upper_bound(o, j->sk, (size_t)from, (size_t)hi[b], cand);
                }
            }
        mpi |= MPI_Allreduce(cnt, glob, (int)(nb * SPLIT_CANDIDATES), MPI_UINT64_T, MPI_SUM,
                             j->comm);
        for (b = 0; b < nb; b++) {
            const uint64_t *c = cnt + b * SPLIT_CANDIDATES, *g = glob + b * SPLIT_CANDIDATES;
            int digit = cands;
            for (int m = 0; m < cands; m++)
                if (g[m] > target[b]) {
                    digit = m;
                    break;
                }
            if (digit > 0)
                lo[b] = c[digit - 1];
            if (digit < cands)
                hi[b] = c[digit];
            prefix[b] |= (uint64_t)digit << shift;
        }
        top -= d;
        ++*rounds;
    }
    /* Now [lo, hi) are the local elements equal to the boundary's key: the
     * ranks before take the first ones, in rank order. */
    uint64_t *eq = cnt, *less = glob, *eq_before = prefix;
    for (b = 0; b < nb; b++)
        eq[b] = hi[b] - lo[b];
    if (nb > 0) {
        mpi |= MPI_Allreduce(lo, less, (int)nb, MPI_UINT64_T, MPI_SUM, j->comm);
        mpi |= MPI_Exscan(eq, eq_before, (int)nb, MPI_UINT64_T, MPI_SUM, j->comm);
        if (j->rank == 0)
            memset(eq_before, 0, nb * sizeof *eq_before);
    }
    j->cut[0] = 0;
    b = 0;
    pr = 0;
    for (int r = 1; r < p; r++) {
        pr += j->ns[r - 1];
        if (pr == 0)
            j->cut[r] = 0;
        else if (pr >= total)
            j->cut[r] = j->n;
        else {
            uint64_t need = target[b] - less[b]; /* ties before the boundary */
            uint64_t take = need > eq_before[b] ? need - eq_before[b] : 0;
            j->cut[r] = lo[b] + (take < eq[b] ? take : eq[b]);
            b++;
        }
    }
    j->cut[p] = j->n;
    uint64_t *send = j->send;
    for (int r = 0; r < p; r++)
        send[r] = j->cut[r + 1] - j->cut[r];
    mpi |= MPI_Alltoall(send, 1, MPI_UINT64_T, j->recv, 1, MPI_UINT64_T, j->comm);
    if (j->shared) /* where each peer's run for this rank starts in its copy */
        mpi |= MPI_Alltoall(j->cut, 1, MPI_UINT64_T, j->src_at, 1, MPI_UINT64_T, j->comm);
    probe_free(j->probe); /* (its reads are done) */
    j->probe = NULL;
    uint64_t got = 0;
    for (int r = 0; r < p; r++)
        got += j->recv[r];
    if (mpi != MPI_SUCCESS)
        return clsort_fail(j->ctx, CLSORT_ERROR_INTERNAL, "%s: an MPI call failed in the split",
                           j->fn);
    if (!read_ok)
        return clsort_fail(j->ctx, CLSORT_ERROR_INTERNAL,
                           "%s: reading the sorted keys on the device for the split failed "
                           "(or no host memory for them)",
                           j->fn);
    if (got != j->n)
        return clsort_fail(j->ctx, CLSORT_ERROR_INTERNAL,
                           "%s: rank %d would receive %llu elements for its %zu", j->fn, j->rank,
                           (unsigned long long)got, j->n);
    return CLSORT_SUCCESS;
}

/* Elements per chunk of the exchange's datatypes, elements of the given
 * size: 1 GiB at most, so that no count and no datatype size reaches 2^31
 * inside MPI; $CLSORT_MPI_CHUNK (elements) makes it smaller, for the tests. */
static uint64_t chunk_elements(size_t bytes)
{
    uint64_t most = ((uint64_t)1 << 30) / bytes;
    const char *e = getenv("CLSORT_MPI_CHUNK");
    long long c = e ? atoll(e) : 0;
    most = most ? most : 1;
    return c > 0 && (uint64_t)c <= most ? (uint64_t)c : most;
}

typedef struct blocks {
    int count;
    int len[2];
    MPI_Aint disp[2];
    MPI_Datatype type[2];
} blocks;

/* count elements of bytes each at address p: whole chunks, then the rest. */
static void add_run(blocks *bl, const unsigned char *p, uint64_t count, size_t bytes,
                    uint64_t chunk, MPI_Datatype elem, MPI_Datatype chunk_type)
{
    if (count >= chunk) {
        MPI_Get_address(p, &bl->disp[bl->count]);
        bl->len[bl->count] = (int)(count / chunk);
        bl->type[bl->count++] = chunk_type;
    }
    uint64_t rest = count % chunk;
    if (rest) {
        MPI_Get_address(p + (count - rest) * bytes, &bl->disp[bl->count]);
        bl->len[bl->count] = (int)rest;
        bl->type[bl->count++] = elem;
    }
}

/* Step 4: one MPI_Alltoallw for the keys (and one for the values). Each
 * peer's block is one struct datatype at its absolute address (MPI_BOTTOM)
 * made of whole chunks and the rest, so no count or displacement passes
 * through an int. Keys and values go separately (one struct over both
 * arrays goes through Open MPI's slower packing path), and this rank's own
 * share is copied directly (docs/PERFORMANCE.md). */
static int exchange_array(job *j, unsigned char *src, unsigned char *dst, size_t bytes,
                          uint64_t chunk)
{
    int p = j->size;
    MPI_Datatype elem, whole;
    MPI_Type_contiguous((int)bytes, MPI_BYTE, &elem);
    MPI_Type_contiguous((int)chunk, elem, &whole);
    int *scount = j->ints, *sdisp = j->ints + p, *rcount = j->ints + 2 * p,
        *rdisp = j->ints + 3 * p;
    MPI_Datatype *stype = j->types, *rtype = j->types + p;
    uint64_t at = 0;
    for (int r = 0; r < p; r++) {
        uint64_t s = j->cut[r + 1] - j->cut[r], g = j->recv[r];
        sdisp[r] = rdisp[r] = 0;
        if (r == j->rank && !j->resident) /* (resident: it stays on the device) */
            memcpy(dst + at * bytes, src + j->cut[r] * bytes, s * bytes);
        for (int side = 0; side < 2; side++) {
            uint64_t c = r == j->rank ? 0 : side ? g : s;
            unsigned char *base = side ? dst + at * bytes : src + j->cut[r] * bytes;
            int *count = side ? rcount : scount;
            MPI_Datatype *t = side ? &rtype[r] : &stype[r];
            count[r] = c > 0;
            *t = MPI_BYTE;
            if (c == 0)
                continue;
            blocks bl = {0};
            add_run(&bl, base, c, bytes, chunk, elem, whole);
            MPI_Type_create_struct(bl.count, bl.len, bl.disp, bl.type, t);
            MPI_Type_commit(t);
        }
        at += g;
    }
    int mpi = MPI_Alltoallw(MPI_BOTTOM, scount, sdisp, stype, MPI_BOTTOM, rcount, rdisp, rtype,
                            j->comm);
    for (int r = 0; r < 2 * p; r++)
        if (j->types[r] != MPI_BYTE)
            MPI_Type_free(&j->types[r]);
    MPI_Type_free(&elem);
    MPI_Type_free(&whole);
    return mpi;
}

static clsort_status resident_leaving(job *j);

static clsort_status exchange(job *j, uint64_t *sent, uint64_t *received)
{
    /* a rank whose read fails still takes part in the MPI exchange */
    clsort_status leaving = j->resident ? resident_leaving(j) : CLSORT_SUCCESS;
    *sent = *received = 0;
    for (int r = 0; r < j->size; r++)
        if (r != j->rank) {
            *sent += j->cut[r + 1] - j->cut[r];
            *received += j->recv[r];
        }
    if (j->shared) {
        /* the runs stay in the peers' copies (src_at from the split) */
        size_t vat = 0;
        for (int r = 0; r < j->size; r++) {
            part_bytes(j, j->ns[r], &vat);
            j->src_k[r] = j->node->base[r];
            j->src_v[r] = j->pairs ? j->node->base[r] + vat : NULL;
        }
        j->scratch_k = j->rk;
        j->scratch_v = j->rv;
        return leaving;
    }
    int mpi = exchange_array(j, j->sk, j->rk, j->kb, chunk_elements(j->kb));
    if (j->pairs)
        mpi |= exchange_array(j, j->sv, j->rv, j->vb, chunk_elements(j->vb));
    if (mpi != MPI_SUCCESS)
        return clsort_fail(j->ctx, CLSORT_ERROR_INTERNAL, "%s: MPI_Alltoallw failed (%d)", j->fn,
                           mpi);
    uint64_t at = 0;
    for (int r = 0; r < j->size; r++) {
        j->src_k[r] = j->rk;
        j->src_v[r] = j->rv;
        j->src_at[r] = at;
        at += j->recv[r];
    }
    j->scratch_k = j->sk;
    j->scratch_v = j->sv;
    return leaving;
}

/* ------------------------------------------------------------- the merge */

/* Cuts sorted runs at output position q of their stable merge (ties in run
 * order): cut[i] is where run i's share of the first q elements ends, run i
 * being elements [begin[i], end[i]) of keys[i]. The same bitwise search as
 * the split, summed over runs instead of ranks. */
static void cut_runs(const order *o, const unsigned char *const *keys, const uint64_t *begin,
                     const uint64_t *end, int runs, uint64_t q, uint64_t *cut, uint64_t *hi)
{
    uint64_t total = 0;
    for (int i = 0; i < runs; i++)
        total += end[i] - begin[i];
    if (q == 0 || q >= total) {
        for (int i = 0; i < runs; i++)
            cut[i] = q == 0 ? begin[i] : end[i];
        return;
    }
    uint64_t prefix = 0;
    for (int i = 0; i < runs; i++) { /* cut doubles as lo */
        cut[i] = begin[i];
        hi[i] = end[i];
    }
    for (int k = (int)o->width - 1; k >= 0; k--) {
        uint64_t cand = prefix | ((1ull << k) - 1), count = 0;
        for (int i = 0; i < runs; i++)
            count += upper_bound(o, keys[i], (size_t)cut[i], (size_t)hi[i], cand) - begin[i];
        int zero = count > q;
        if (!zero)
            prefix |= 1ull << k;
        for (int i = 0; i < runs; i++) {
            uint64_t at = upper_bound(o, keys[i], (size_t)cut[i], (size_t)hi[i], cand);
            if (zero)
                hi[i] = at;
            else
                cut[i] = at;
        }
    }
    uint64_t less = 0;
    for (int i = 0; i < runs; i++)
        less += cut[i] - begin[i];
    uint64_t need = q - less; /* ties to take, first runs first */
    for (int i = 0; i < runs; i++) {
        uint64_t eq = hi[i] - cut[i], take = need < eq ? need : eq;
        cut[i] += take;
        need -= take;
    }
}

/* x when b is 0, y when b is 1, without a branch. */
CLSORT_INLINE const unsigned char *pick(uint64_t b, const unsigned char *x, const unsigned char *y)
{
    uintptr_t m = (uintptr_t)0 - (uintptr_t)b;
    return (const unsigned char *)((uintptr_t)x ^ (((uintptr_t)x ^ (uintptr_t)y) & m));
}

/* Merges run a (na elements) and run b (nb) into out, stably (ties from a,
 * the lower rank). Branch-free: the next element's source is selected by
 * arithmetic, so random keys cost no mispredicted branches, and both heads
 * are read again each step. kb and vb are constants in every instance
 * (merge_pass), so the copies inline; vb 0 means keys only, vb SIZE_MAX a
 * value size known only at run time (vr). raw: the order is the keys'
 * unsigned value (unsigned keys, whole width, ascending), no image needed. */
CLSORT_INLINE void merge2(const order *op, size_t kb, size_t vb, size_t vr, int raw,
                          const unsigned char *ak, const unsigned char *av, uint64_t na,
                          const unsigned char *bk, const unsigned char *bv, uint64_t nb,
                          unsigned char *ok, unsigned char *ov)
{
    const order oc = *op, *o = &oc; /* a copy that the stores cannot alias */
    size_t vsz = vb == SIZE_MAX ? vr : vb;
    const unsigned char *ae = ak + na * kb, *be = bk + nb * kb;
    if (na && nb) {
        for (;;) {
            uint64_t ia = raw ? load(ak, (unsigned)kb) : key_image_kb(o, ak, kb);
            uint64_t ib = raw ? load(bk, (unsigned)kb) : key_image_kb(o, bk, kb);
            uint64_t tb = ib < ia;
            memcpy(ok, pick(tb, ak, bk), kb);
            ok += kb;
            if (vb) {
                memcpy(ov, pick(tb, av, bv), vsz);
                ov += vsz;
                av += (1 - tb) * vsz;
                bv += tb * vsz;
            }
            ak += (1 - tb) * kb;
            bk += tb * kb;
            if (ak == ae || bk == be)
                break;
        }
    }
    /* the rest of whichever run is left */
    if (ak < ae) {
        memcpy(ok, ak, (size_t)(ae - ak));
        if (vb)
            memcpy(ov, av, (size_t)(ae - ak) / kb * vsz);
    } else if (bk < be) {
        memcpy(ok, bk, (size_t)(be - bk));
        if (vb)
            memcpy(ov, bv, (size_t)(be - bk) / kb * vsz);
    }
}

/* One run of a merge pass: its keys, its values and its length. */
typedef struct run_at {
    const unsigned char *k, *v;
    uint64_t len;
} run_at;

/* One pass of the merge tree: runs 0+1, 2+3, ... merged pairwise into dst
 * from position out on; an odd last run is copied. Rewrites runs (and
 * *count) as the next pass's runs in dst. */
CLSORT_INLINE void merge_pass_kv(const order *o, size_t kb, size_t vb, size_t vr, int raw,
                                 unsigned char *dk, unsigned char *dv, run_at *runs, int *count,
                                 uint64_t out)
{
    size_t vsz = vb == SIZE_MAX ? vr : vb;
    int m = *count, next = 0;
    for (int i = 0; i < m; i += 2) {
        const run_at *a = &runs[i];
        uint64_t len = a->len;
        unsigned char *ok = dk + out * kb, *ov = vb ? dv + out * vsz : NULL;
        if (i + 1 < m) {
            const run_at *b = &runs[i + 1];
            merge2(o, kb, vb, vr, raw, a->k, a->v, a->len, b->k, b->v, b->len, ok, ov);
            len += b->len;
        } else {
            memcpy(ok, a->k, a->len * kb);
            if (vb)
                memcpy(ov, a->v, a->len * vsz);
        }
        runs[next++] = (run_at){ok, ov, len};
        out += len;
    }
    *count = next;
}

static void merge_pass(const order *o, size_t kb, size_t vb, unsigned char *dk, unsigned char *dv,
                       run_at *runs, int *count, uint64_t out)
{
    int raw = o->kind == 0 && o->begin == 0 && o->width == kb * 8 && !o->descending;
#define CLSORT_PASS_(K, V)                                                         \
    (raw ? merge_pass_kv(o, K, V, vb, 1, dk, dv, runs, count, out)                \
         : merge_pass_kv(o, K, V, vb, 0, dk, dv, runs, count, out))
#define CLSORT_PASS_V_(K)                \
    switch (vb) {                        \
    case 0: CLSORT_PASS_(K, 0); break;   \
    case 4: CLSORT_PASS_(K, 4); break;   \
    case 8: CLSORT_PASS_(K, 8); break;   \
    case 16: CLSORT_PASS_(K, 16); break; \
    default: CLSORT_PASS_(K, SIZE_MAX);  \
    }
    switch (kb) {
    case 1: CLSORT_PASS_V_(1); break;
    case 2: CLSORT_PASS_V_(2); break;
    case 4: CLSORT_PASS_V_(4); break;
    default: CLSORT_PASS_V_(8); break;
    }
#undef CLSORT_PASS_V_
#undef CLSORT_PASS_
}

/* A thread's share of the host merge: elements [from[r], to[r]) of each
 * source rank r's run, merged into the caller's arrays from position out. */
typedef struct piece {
    const job *j;
    const uint64_t *from, *to;
    uint64_t out;
    run_at *runs; /* size entries of scratch */
} piece;

/* Merges a piece by a tree of pairwise merges (ceil(log2 runs) passes),
 * ping-ponging between a scratch buffer (the received buffer's own copy
 * after the exchange, or the receive buffer where the runs are read in the
 * peers' shared memory) and the caller's arrays, so that the last pass
 * lands in the caller's arrays. */
static void *merge_piece(void *arg)
{
    const piece *pc = arg;
    const job *j = pc->j;
    size_t vb = j->pairs ? j->vb : 0;
    int m = 0, passes = 0;
    for (int r = 0; r < j->size; r++)
        if (pc->to[r] > pc->from[r])
            pc->runs[m++] = (run_at){j->src_k[r] + pc->from[r] * j->kb,
                                     vb ? j->src_v[r] + pc->from[r] * vb : NULL,
                                     pc->to[r] - pc->from[r]};
    for (int c = m; c > 1; c = (c + 1) / 2)
        passes++;
    if (passes == 0) {
        if (m == 1) {
            memcpy(j->keys + pc->out * j->kb, pc->runs[0].k, pc->runs[0].len * j->kb);
            if (vb)
                memcpy(j->values + pc->out * vb, pc->runs[0].v, pc->runs[0].len * vb);
        }
        return NULL;
    }
    for (int pass = 1; pass <= passes; pass++) {
        int last_parity = (passes - pass) % 2 == 0;
        unsigned char *dk = last_parity ? j->keys : j->scratch_k;
        unsigned char *dv = last_parity ? j->values : j->scratch_v;
        merge_pass(&j->ord, j->kb, vb, dk, dv, pc->runs, &m, pc->out);
    }
    return NULL;
}

/* Threads of the host merge: $CLSORT_MPI_THREADS, else the compute units
 * of a CPU device (the threads its own sorts use), else the host's
 * processors shared among the node's ranks (as Open MPI or MPICH tell
 * them), at most 16; one per 64K elements at most. */
static int merge_threads(const job *j)
{
    const char *e = getenv("CLSORT_MPI_THREADS");
    long t = e ? atol(e) : 0;
    if (t <= 0) {
        clsort_device_info info;
        if (clsort_context_device_info(j->ctx, &info) == CLSORT_SUCCESS && info.is_cpu)
            t = (long)info.compute_units;
        else {
            const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
            if (!local)
                local = getenv("MPI_LOCALNRANKS");
            long ranks = local ? atol(local) : 1;
            t = sysconf(_SC_NPROCESSORS_ONLN) / (ranks > 0 ? ranks : 1);
            t = t > 16 ? 16 : t;
        }
    }
    long most = (long)(j->n / 65536) + 1;
    if (!e && t > most)
        t = most;
    return t < 1 ? 1 : t > 64 ? 64 : (int)t;
}

/* Step 5 on the host: the received runs merged into the caller's arrays,
 * the output cut into one piece per thread. Cannot fail: without memory
 * for the threads' state it merges in one piece, and a thread that does
 * not start has its piece merged by this one. */
static clsort_status merge_host(job *j)
{
    int p = j->size, threads = merge_threads(j);
    uint64_t *begin = j->pos, *end = j->pos + p;
    for (int r = 0; r < p; r++) {
        begin[r] = j->src_at[r];
        end[r] = j->src_at[r] + j->recv[r];
    }
    size_t per = (size_t)p * 2;
    uint64_t *cuts = threads > 1 ? malloc(((size_t)threads + 1) * per * sizeof *cuts) : NULL;
    piece *pcs = threads > 1 ? malloc((size_t)threads * sizeof *pcs) : NULL;
    run_at *runs = threads > 1 ? malloc((size_t)threads * p * sizeof *runs) : NULL;
    pthread_t *ids = threads > 1 ? malloc((size_t)threads * sizeof *ids) : NULL;
    if (!cuts || !pcs || !runs || !ids) {
        piece one = {j, begin, end, 0, (run_at *)j->search}; /* room for p runs */
        merge_piece(&one);
    } else {
        for (int t = 0; t <= threads; t++) {
            uint64_t *c = cuts + (size_t)t * per;
            cut_runs(&j->ord, j->src_k, begin, end, p, (uint64_t)((double)j->n * t / threads),
                     c, c + p);
        }
        for (int t = 0; t < threads; t++) {
            uint64_t *c = cuts + (size_t)t * per, out = 0;
            for (int r = 0; r < p; r++)
                out += c[r] - begin[r];
            pcs[t] = (piece){j, c, cuts + (size_t)(t + 1) * per, out, runs + (size_t)t * p};
        }
        int started[64] = {0};
        for (int t = 1; t < threads; t++)
            started[t] = pthread_create(&ids[t], NULL, merge_piece, &pcs[t]) == 0;
        merge_piece(&pcs[0]);
        for (int t = 1; t < threads; t++) {
            if (started[t])
                pthread_join(ids[t], NULL);
            else
                merge_piece(&pcs[t]);
        }
    }
    free(cuts);
    free(pcs);
    free(runs);
    free(ids);
    return CLSORT_SUCCESS;
}

/* ------------------------------------------------------ first touch */

/* Receive buffers of fresh memory (take_temps) would take a page fault
 * every 4 KiB at the exchange's first writes. Beside a GPU, whose sort
 * leaves most host cores idle, the merge's threads touch those pages while
 * the local sort runs
 * ($CLSORT_MPI_TOUCH=1 or 0 forces it on or off; measurements in
 * docs/PERFORMANCE.md). */
typedef struct touch_part {
    unsigned char *p[4];
    size_t len[4];
    int part, parts;
} touch_part;

static void *touch_pages(void *arg)
{
    const touch_part *t = arg;
    for (int i = 0; i < 4; i++) {
        size_t pages = (t->len[i] + 4095) / 4096;
        size_t from = pages * t->part / t->parts, to = pages * (t->part + 1) / t->parts;
        for (size_t q = from; q < to; q++)
            t->p[i][q * 4096] = 0;
    }
    return NULL;
}

static int wants_touch(const job *j)
{
    const char *e = getenv("CLSORT_MPI_TOUCH");
    if (e && *e)
        return strcmp(e, "0") != 0;
    clsort_device_info info;
    return clsort_context_device_info(j->ctx, &info) == CLSORT_SUCCESS && info.is_gpu;
}

/* Touches the receive buffers (rk, rv), where the exchange writes; the
 * sorted copies (sk, sv) are written by the local sort meanwhile (on the
 * host path). */
static void touch_buffers(const job *j)
{
    size_t kbytes = j->n * j->kb, vbytes = j->pairs ? j->n * j->vb : 0;
    int threads = merge_threads(j);
    if (2 * (kbytes + vbytes) < ((size_t)64 << 20))
        return; /* small: the writes fault as they go */
    /* device-resident: the runs read back land in sk, sv; the receive
     * buffers are written only by MPI_Alltoallw */
    int sk = j->resident, rk = !(j->resident && j->shared);
    touch_part parts[64];
    pthread_t ids[64];
    int started[64] = {0};
    for (int t = 0; t < threads; t++)
        parts[t] = (touch_part){{j->sk, j->rk, j->sv, j->rv},
                                {sk ? kbytes : 0, rk ? kbytes : 0, sk ? vbytes : 0, rk ? vbytes : 0},
                                t,
                                threads};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, touch_pages, &parts[t]) == 0;
    touch_pages(&parts[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            touch_pages(&parts[t]);
    }
}

/* ------------------------------------------------------ device round trips */

/* An OpenCL failure as the call's status (allocations: out of device
 * memory) and message. */
static clsort_status cl_failure(job *j, cl_int err, const char *what)
{
    return clsort_fail(j->ctx,
                       err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES
                           ? CLSORT_ERROR_OUT_OF_DEVICE_MEMORY
                           : (clsort_status)err,
                       "%s: %s failed: %s", j->fn, what, clsort_status_string(err));
}


/* Sorts keys (and values) of n elements from host memory on the device into
 * host memory: written to device buffers, sorted there by clsort, read back
 * to out_k / out_v. With agree set, the ranks agree on the sort's status
 * before anything is read back (the final merge writes the caller's arrays
 * only when every rank's sort worked). One copy each way, where
 * clsort_sort_keys on a host copy would add a host copy on each side. With
 * touch set, the temporary buffers are touched while the device sorts. */
static clsort_status device_sort(job *j, const void *in_k, const void *in_v, void *out_k,
                                 void *out_v, int agree, int touch)
{
    clsort_context *ctx = j->ctx;
    cl_context cl = clsort_context_cl_context(ctx);
    cl_command_queue q = clsort_context_queue(ctx);
    size_t kbytes = j->n * j->kb, vbytes = j->pairs ? j->n * j->vb : 0;
    cl_mem dk = NULL, dv = NULL;
    cl_int err = CL_SUCCESS;
    clsort_status s = CLSORT_SUCCESS;
    if (j->n > 0) {
        dk = clCreateBuffer(cl, CL_MEM_READ_WRITE, kbytes, NULL, &err);
        if (err == CL_SUCCESS && vbytes)
            dv = clCreateBuffer(cl, CL_MEM_READ_WRITE, vbytes, NULL, &err);
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(q, dk, CL_FALSE, 0, kbytes, in_k, 0, NULL, NULL);
        if (err == CL_SUCCESS && vbytes)
            err = clEnqueueWriteBuffer(q, dv, CL_FALSE, 0, vbytes, in_v, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "allocating or copying %zu elements on the device", j->n);
            s = cl_failure(j, err, what);
        } else
            s = j->pairs ? clsort_sort_pairs_buffer(ctx, j->type, dk, 0, dv, 0, j->vb, j->n,
                                                    j->options, 0, NULL, NULL)
                         : clsort_sort_keys_buffer(ctx, j->type, dk, 0, j->n, j->options, 0,
                                                   NULL, NULL);
        if (touch && s == CLSORT_SUCCESS) {
            clFlush(q);
            touch_buffers(j);
        }
        err = clFinish(q);
        if (s == CLSORT_SUCCESS && err != CL_SUCCESS)
            s = clsort_fail(ctx, err, "%s: the local sort failed: %s", j->fn,
                            clsort_status_string(err));
    }
    if (agree)
        s = agree_status(j, s);
    if (s == CLSORT_SUCCESS && j->n > 0) {
        err = clEnqueueReadBuffer(q, dk, CL_FALSE, 0, kbytes, out_k, 0, NULL, NULL);
        if (err == CL_SUCCESS && vbytes)
            err = clEnqueueReadBuffer(q, dv, CL_FALSE, 0, vbytes, out_v, 0, NULL, NULL);
        cl_int fin = clFinish(q);
        if (err == CL_SUCCESS)
            err = fin;
        if (err != CL_SUCCESS)
            s = clsort_fail(ctx, err, "%s: reading the sorted elements back failed: %s", j->fn,
                            clsort_status_string(err));
    }
    if (dk)
        clReleaseMemObject(dk);
    if (dv)
        clReleaseMemObject(dv);
    return s;
}

typedef struct copy_part {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    int part, parts;
} copy_part;

static void *copy_piece(void *arg)
{
    const copy_part *c = arg;
    size_t per = (c->bytes + (size_t)c->parts - 1) / (size_t)c->parts;
    size_t from = per * (size_t)c->part, to = from + per < c->bytes ? from + per : c->bytes;
    if (from < to)
        memcpy(c->dst + from, c->src + from, to - from);
    return NULL;
}

/* memcpy by the merge's threads (a large array's pages fault in parallel). */
static void parallel_copy(const job *j, void *dst, const void *src, size_t bytes)
{
    int threads = merge_threads(j);
    if (threads > 64)
        threads = 64;
    if (bytes < ((size_t)4 << 20) || threads < 2) {
        memcpy(dst, src, bytes);
        return;
    }
    copy_part parts[64];
    pthread_t ids[64];
    int started[64] = {0};
    for (int t = 0; t < threads; t++)
        parts[t] = (copy_part){dst, src, bytes, t, threads};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, copy_piece, &parts[t]) == 0;
    copy_piece(&parts[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            copy_piece(&parts[t]);
    }
}

static void *touch_thread(void *arg)
{
    touch_buffers(arg);
    return NULL;
}

/* Step 2 through clsort's host-array path (pinned, overlapped copies on a
 * GPU; in place on a CPU device): the caller's keys into sk (a sorted copy;
 * the caller's arrays stay as they are), with the values through sv. With
 * touch set, the other temporary buffers are touched meanwhile. */
static clsort_status local_sort(job *j, int touch)
{
    if (j->n == 0)
        return CLSORT_SUCCESS;
    pthread_t toucher;
    int touching = touch && pthread_create(&toucher, NULL, touch_thread, j) == 0;
    clsort_status s;
    if (!j->pairs) {
        s = clsort_sort_keys_copy(j->ctx, j->type, j->keys, j->sk, j->n, j->options);
    } else {
        parallel_copy(j, j->sk, j->keys, j->n * j->kb);
        parallel_copy(j, j->sv, j->values, j->n * j->vb);
        s = clsort_sort_pairs(j->ctx, j->type, j->sk, j->sv, j->vb, j->n, j->options);
    }
    if (touching)
        pthread_join(toucher, NULL);
    return s;
}

/* ------------------------------------------------- device-resident steps */

/* Step 2 with the elements kept on the device: the caller's arrays written
 * into dk (and dv) through clsort's host path and sorted there. */
static clsort_status resident_sort(job *j, int touch)
{
    /* $CLSORT_MPI_FAIL_RESIDENT=r: rank r's card has no room (the tests'
     * way to the fallback through host memory) */
    const char *fail = getenv("CLSORT_MPI_FAIL_RESIDENT");
    if (fail && *fail && atoi(fail) == j->rank)
        return cl_failure(j, CL_MEM_OBJECT_ALLOCATION_FAILURE, "allocating the device copy");
    if (j->n == 0)
        return CLSORT_SUCCESS;
    cl_context cl = clsort_context_cl_context(j->ctx);
    size_t kbytes = j->n * j->kb, vbytes = j->pairs ? j->n * j->vb : 0;
    cl_int err = CL_SUCCESS;
    j->dk = clCreateBuffer(cl, CL_MEM_READ_WRITE, kbytes, NULL, &err);
    if (err == CL_SUCCESS && vbytes)
        j->dv = clCreateBuffer(cl, CL_MEM_READ_WRITE, vbytes, NULL, &err);
    if (err != CL_SUCCESS)
        return cl_failure(j, err, "allocating the device copy");
    pthread_t toucher;
    int touching = touch && pthread_create(&toucher, NULL, touch_thread, j) == 0;
    clsort_status s = clsort_buffer_write(j->ctx, j->dk, 0, j->keys, kbytes);
    if (s == CLSORT_SUCCESS && vbytes)
        s = clsort_buffer_write(j->ctx, j->dv, 0, j->values, vbytes);
    if (s == CLSORT_SUCCESS)
        s = j->pairs ? clsort_sort_pairs_buffer(j->ctx, j->type, j->dk, 0, j->dv, 0, j->vb, j->n,
                                                j->options, 0, NULL, NULL)
                     : clsort_sort_keys_buffer(j->ctx, j->type, j->dk, 0, j->n, j->options, 0,
                                               NULL, NULL);
    err = clFinish(clsort_context_queue(j->ctx));
    if (s == CLSORT_SUCCESS && err != CL_SUCCESS)
        s = cl_failure(j, err, "the local sort");
    if (touching)
        pthread_join(toucher, NULL);
    return s;
}

/* Step 4 with the elements on the device: the runs for other ranks read
 * back into the sorted copy's places (sk, sv), from which the peers read
 * them (window) or MPI sends them; this rank's own run stays. */
static clsort_status resident_leaving(job *j)
{
    const uint64_t range[2][2] = {{0, j->cut[j->rank]}, {j->cut[j->rank + 1], j->n}};
    clsort_status s = CLSORT_SUCCESS;
    for (int i = 0; i < 2 && s == CLSORT_SUCCESS; i++) {
        size_t from = (size_t)range[i][0], count = (size_t)(range[i][1] - range[i][0]);
        if (count == 0)
            continue;
        s = clsort_buffer_read(j->ctx, j->dk, from * j->kb, j->sk + from * j->kb, count * j->kb);
        if (s == CLSORT_SUCCESS && j->pairs)
            s = clsort_buffer_read(j->ctx, j->dv, from * j->vb, j->sv + from * j->vb,
                                   count * j->vb);
    }
    return s;
}

/* Step 5 with the elements on the device: the runs in rank order in ok, ov
 * (this rank's own copied on the device, the others' written from host
 * memory), sorted there (stable: ties keep rank order), agreed, and read
 * back into the caller's arrays. A lone run of this rank's own is read
 * back from dk directly. */
static clsort_status resident_merge(job *j)
{
    clsort_context *ctx = j->ctx;
    cl_command_queue q = clsort_context_queue(ctx);
    const size_t kb = j->kb, vb = j->pairs ? j->vb : 0;
    cl_mem from_k = j->dk, from_v = j->dv;
    size_t from = (size_t)j->cut[j->rank];
    int runs = 0;
    for (int r = 0; r < j->size; r++)
        runs += j->recv[r] > 0;
    clsort_status s = CLSORT_SUCCESS;
    if (j->n > 0 && !(runs == 1 && j->recv[j->rank] == j->n)) {
        cl_context cl = clsort_context_cl_context(ctx);
        cl_int err = CL_SUCCESS;
        j->ok = clCreateBuffer(cl, CL_MEM_READ_WRITE, j->n * kb, NULL, &err);
        if (err == CL_SUCCESS && vb)
            j->ov = clCreateBuffer(cl, CL_MEM_READ_WRITE, j->n * vb, NULL, &err);
        uint64_t at = 0;
        for (int r = 0; r < j->size && err == CL_SUCCESS && s == CLSORT_SUCCESS; r++) {
            size_t c = (size_t)j->recv[r];
            if (c == 0)
                continue;
            if (r == j->rank) {
                err = clEnqueueCopyBuffer(q, j->dk, j->ok, from * kb, at * kb, c * kb, 0, NULL,
                                          NULL);
                if (err == CL_SUCCESS && vb)
                    err = clEnqueueCopyBuffer(q, j->dv, j->ov, from * vb, at * vb, c * vb, 0,
                                              NULL, NULL);
            } else {
                s = clsort_buffer_write(ctx, j->ok, at * kb, j->src_k[r] + j->src_at[r] * kb,
                                        c * kb);
                if (s == CLSORT_SUCCESS && vb)
                    s = clsort_buffer_write(ctx, j->ov, at * vb, j->src_v[r] + j->src_at[r] * vb,
                                            c * vb);
            }
            at += c;
        }
        if (err != CL_SUCCESS)
            s = cl_failure(j, err, "gathering the runs on the device");
        if (s == CLSORT_SUCCESS && runs > 1)
            s = vb ? clsort_sort_pairs_buffer(ctx, j->type, j->ok, 0, j->ov, 0, vb, j->n,
                                              j->options, 0, NULL, NULL)
                   : clsort_sort_keys_buffer(ctx, j->type, j->ok, 0, j->n, j->options, 0, NULL,
                                             NULL);
        err = clFinish(q);
        if (s == CLSORT_SUCCESS && err != CL_SUCCESS)
            s = cl_failure(j, err, "the merge's sort");
        from_k = j->ok;
        from_v = j->ov;
        from = 0;
    }
    /* $CLSORT_MPI_FAIL_MERGE=r: rank r fails here, as if its device had (the
     * tests' way to this agreement) */
    const char *fail = getenv("CLSORT_MPI_FAIL_MERGE");
    if (s == CLSORT_SUCCESS && fail && *fail && atoi(fail) == j->rank)
        s = clsort_fail(ctx, CLSORT_ERROR_INTERNAL, "%s: the merge failed ($CLSORT_MPI_FAIL_MERGE)",
                        j->fn);
    s = agree_status(j, s);
    if (s == CLSORT_SUCCESS && j->n > 0) {
        s = clsort_buffer_read(ctx, from_k, from * kb, j->keys, j->n * kb);
        if (s == CLSORT_SUCCESS && vb)
            s = clsort_buffer_read(ctx, from_v, from * vb, j->values, j->n * vb);
    }
    return s;
}

/* Step 5 by clsort: the runs sorted again (stable: ties keep rank order),
 * agreed, then read back into the caller's arrays. */
static clsort_status merge_by_sort(job *j)
{
    if (j->shared) { /* the runs, in rank order, into the receive buffer */
        uint64_t at = 0;
        for (int r = 0; r < j->size; r++) {
            parallel_copy(j, j->rk + at * j->kb, j->src_k[r] + j->src_at[r] * j->kb,
                          j->recv[r] * j->kb);
            if (j->pairs)
                parallel_copy(j, j->rv + at * j->vb, j->src_v[r] + j->src_at[r] * j->vb,
                              j->recv[r] * j->vb);
            at += j->recv[r];
        }
    }
    return device_sort(j, j->rk, j->rv, j->keys, j->values, 1, 0);
}

static clsort_status run(job *j, clsort_status s)
{
    clsort_mpi_times *t = &last_times;
    double t0 = MPI_Wtime(), t1;
    int size = j->size;
    j->merge_by_sort = prefers_sort_merge(j->ctx, j->comm);
    /* 1: every rank's status first (a fixed-size MPI_Allreduce, so that even
     * a rank without memory for its counters takes part), then the n's and
     * the arguments that must agree */
    if (s == CLSORT_SUCCESS)
        s = check_local(j);
    s = agree_status(j, s);
    if (s != CLSORT_SUCCESS)
        return s;
    s = agree(j);
    if (s != CLSORT_SUCCESS)
        return s;
    j->ord = make_order(j->type, j->options);
    for (int r = 0; r < size; r++)
        j->ns[r] = j->all[r].n;
    if (j->attach)
        attach_node(j);
    j->shared &= j->node->shared;
    if (j->shared)
        take_window(j);
    t1 = MPI_Wtime();
    t->check = t1 - t0;
    t->shared = j->shared;
    t->resident = j->resident;

    /* 2: the local sort, from the caller's arrays into sk, sv (in the
     * shared window, whose last readers passed step 1's collectives) */
    window_sync(j);
    int agreed = CLSORT_SUCCESS;
    s = j->resident ? resident_sort(j, j->fresh && wants_touch(j))
                    : local_sort(j, j->fresh && wants_touch(j));
    window_sync(j);
    s = agree_status_as(j, s, &agreed);
    if (j->resident && agreed == CLSORT_ERROR_OUT_OF_DEVICE_MEMORY) {
        /* a card without room for its copy (ranks that share a card, or
         * other allocations on it): every rank sorts through host memory
         * instead, the caller's arrays still untouched */
        release_device(j);
        j->resident = 0;
        t->resident = 0;
        window_sync(j);
        s = local_sort(j, 0);
        window_sync(j);
        s = agree_status(j, s);
    }
    window_sync(j);
    t->local_sort = MPI_Wtime() - t1;
    t1 = MPI_Wtime();
    if (s != CLSORT_SUCCESS)
        return s;

    /* 3, 4, 5 */
    s = agree_status(j, split(j, &t->rounds));
    t->splitters = MPI_Wtime() - t1;
    t1 = MPI_Wtime();
    if (s != CLSORT_SUCCESS)
        return s;
    s = exchange(j, &t->sent, &t->received);
    window_sync(j); /* the runs read back (resident) before the peers read them */
    s = agree_status(j, s);
    window_sync(j);
    t->exchange = MPI_Wtime() - t1;
    t1 = MPI_Wtime();
    if (s != CLSORT_SUCCESS)
        return s;
    t->merge_by_sort = j->merge_by_sort || j->resident;
    s = j->resident ? resident_merge(j) : j->merge_by_sort ? merge_by_sort(j) : merge_host(j);
    t->merge = MPI_Wtime() - t1;
    window_sync(j); /* the reads done before the next call's collectives */
    return s;
}

static clsort_status sort_entry(job *j)
{
    memset(&last_times, 0, sizeof last_times);
    int init = 0, fin = 0, inter = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Finalized(&fin);
    if (!init || fin)
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: MPI is not initialised (or already finalised)", j->fn);
    if (j->comm == MPI_COMM_NULL)
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT, "%s: comm is MPI_COMM_NULL",
                           j->fn);
    MPI_Comm_test_inter(j->comm, &inter);
    if (inter)
        return clsort_fail(j->ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "%s: comm is an intercommunicator", j->fn);
    MPI_Comm_rank(j->comm, &j->rank);
    MPI_Comm_size(j->comm, &j->size);
    size_t p = (size_t)j->size;
    j->all = malloc(p * sizeof *j->all);
    j->ns = malloc(p * sizeof *j->ns);
    j->cut = malloc((p + 1) * sizeof *j->cut);
    j->recv = malloc(p * sizeof *j->recv);
    j->send = malloc(p * sizeof *j->send);
    j->search = malloc(p * SEARCH_WORDS * sizeof *j->search);
    j->ints = malloc(p * 4 * sizeof *j->ints);
    j->types = malloc(p * 2 * sizeof *j->types);
    j->pos = malloc(p * 2 * sizeof *j->pos);
    j->src_k = malloc(p * 2 * sizeof *j->src_k);
    j->src_v = j->src_k ? j->src_k + p : NULL;
    j->src_at = malloc(p * sizeof *j->src_at);
    clsort_status s = CLSORT_SUCCESS;
    if (!j->all || !j->ns || !j->cut || !j->recv || !j->send || !j->search || !j->ints ||
        !j->types || !j->pos || !j->src_k || !j->src_at) /* told by run's first step */
        s = clsort_fail(j->ctx, CLSORT_ERROR_OUT_OF_HOST_MEMORY,
                        "%s: no host memory for %d ranks' counters", j->fn, j->size);
    double t0 = MPI_Wtime();
    s = run(j, s);
    last_times.total = MPI_Wtime() - t0;
    free_job(j);
    return s;
}

clsort_status clsort_mpi_sort_keys(clsort_context *ctx, MPI_Comm comm, clsort_type key_type,
                                   void *keys, size_t n, const clsort_options *options)
{
    job j = {.fn = "clsort_mpi_sort_keys", .ctx = ctx, .comm = comm, .type = key_type,
             .options = options, .keys = keys, .n = n};
    return sort_entry(&j);
}

clsort_status clsort_mpi_sort_pairs(clsort_context *ctx, MPI_Comm comm, clsort_type key_type,
                                    void *keys, void *values, size_t value_size, size_t n,
                                    const clsort_options *options)
{
    job j = {.fn = "clsort_mpi_sort_pairs", .ctx = ctx, .comm = comm, .type = key_type,
             .options = options, .pairs = 1, .keys = keys, .values = values,
             .vb = value_size, .n = n};
    return sort_entry(&j);
}
