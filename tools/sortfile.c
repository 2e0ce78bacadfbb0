/* sortfile.c - the `clsort sort` command: sorts a file of keys on an OpenCL
 * device, carrying a values file along or writing the sorting permutation.
 *
 * Files. A name ending in ".npy" (any case) is a NumPy array: format 1.0,
 * 2.0 or 3.0, 1-D, little-endian (or byte-order free), C order, read and
 * written with its header. Any other name is raw elements in the host's byte
 * order. Keys are one of clsort's ten types; values are any fixed size.
 *
 * The work. The keys, with what rides along (their values, or their
 * positions when a permutation is wanted), are read into host memory and
 * sorted there by clsort_sort_keys / clsort_sort_pairs, the library's
 * host-array path (pinned, overlapped copies on a GPU, in place on a CPU,
 * runs merged in host memory when they exceed the device), so the order
 * is the library's: stable, floats with -0.0 == +0.0 and NaN last (see
 * clsort.h). When both values and a permutation are wanted, or values are
 * larger than the library carries (64 KiB), the device sorts (key,
 * position) and the values are gathered on the host.
 *
 * Chunks. When the input does not fit a third of the physical memory
 * (records and the library's merge space for as many) it is sorted in
 * chunks that do (halved again if the device still runs out), or what
 * --chunk-bytes / $CLSORT_SORT_CHUNK_BYTES say. Each sorted chunk, a run, is appended to temporary files beside the
 * first output, unlinked as soon as they are created so that nothing is
 * ever left behind. The runs are then merged on the host, k ways, with a
 * binary heap ordered by (the key's order-preserving image over the bit
 * window, run number): equal keys leave in run order, so the result equals
 * one stable sort. Positions carried for --argsort are global (the chunk's
 * start plus the position in it).
 *
 * Memory. While sorting: one chunk of records on the host (keys, values
 * and positions), the library's merge space where the chunk exceeds the
 * device, and on the device what the library's host path takes (at most
 * the device's memory or $CLSORT_DEVICE_MEMORY). While merging: MERGE_READ_BYTES of read buffers in all,
 * split over the runs (at least MERGE_MIN_RECORDS records each), one
 * WRITE_BUFFER_BYTES buffer per output, and about 80 bytes of cursor and
 * heap entry per run. On disk: the runs take as much room as the keys, values and
 * permutation, beside the first output, until the merge ends.
 *
 * Outputs. Each output is written to a temporary file in its own folder,
 * flushed and fsync'ed, then renamed over the real name once everything
 * has succeeded (keeping the mode of a file it replaces); on any failure,
 * a fatal signal, or an exit inside the OpenCL driver, the temporaries are
 * removed and existing files are untouched. Input and output may be the
 * same file.
 *
 * Exit status: 0 success; 2 usage error (bad, missing or conflicting
 * options, including a --bits window outside the key); 1 anything else
 * (files, their contents, the device, the disk). */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with realpath */
#define _FILE_OFFSET_BITS 64
#include "sortfile.h"

#include <clsort.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

const char clsort_sort_usage[] =
    "sort: clsort sort [options] IN [OUT]\n"
    "  Sorts the keys in file IN into OUT (which may be IN). Names ending in .npy\n"
    "  are NumPy arrays (1-D, little-endian, C order; format 1.0, 2.0 or 3.0),\n"
    "  read and written with their header; other files are raw elements in the\n"
    "  host's byte order. Equal keys keep their input order; floats sort\n"
    "  -inf < ... < -0.0 == +0.0 < ... < +inf < NaN.\n"
    "  --type T             key type: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64; needed\n"
    "                       for raw IN; for .npy IN it must match the header's\n"
    "                       dtype, which is used when --type is absent\n"
    "  --values FILE        values to carry along, one per key (raw or .npy)\n"
    "  --value-size N       bytes per value: needed for raw values; must match\n"
    "                       the item size of .npy values\n"
    "  --values-out FILE    where the values go, in sorted order (needed with\n"
    "                       --values)\n"
    "  --argsort FILE       write the sorting permutation: entry i is the position\n"
    "                       in IN of the i-th sorted key (OUT is then optional)\n"
    "  --index-type T       u32 or u64 (the default), the type of --argsort entries\n"
    "  --descending         largest first (NaN first); equal keys stay in order\n"
    "  --bits B:E           sort on bits [B, E) of the keys' order-preserving image\n"
    "  --device D           default, gpu, cpu, P:D or part of a device/platform name\n"
    "  --                   the arguments after it are file names, even if they\n"
    "                       begin with '-'\n"
    "  --chunk-bytes N      sort at most N bytes of records (key + value + index)\n"
    "                       per device sort and merge the sorted runs on the host\n"
    "                       (suffixes K, M, G; also $CLSORT_SORT_CHUNK_BYTES);\n"
    "                       default: what fits a third of the host's memory (the\n"
    "                       library sorts a chunk larger than the device in runs\n"
    "                       merged in host memory)\n"
    "  Runs of an input larger than a chunk go to unlinked temporary files beside\n"
    "  the first output (as large as the outputs); the merge reads them through\n"
    "  64 MiB of buffers and writes each output through 1 MiB. Outputs are written\n"
    "  to temporary files, fsync'ed and renamed into place only when complete;\n"
    "  on failure existing files are left untouched. A progress line shows on\n"
    "  stderr when it is a terminal and the sort takes over a second.\n"
    "  Exit status: 0 done, 2 usage error (bad or conflicting options), 1 any\n"
    "  other failure (files, their contents, the device, the disk).\n";

/* The merge's read buffers in all, split evenly over the runs. */
#define MERGE_READ_BYTES ((size_t)64 << 20)
/* The fewest records a run's merge buffer holds, however many runs. */
#define MERGE_MIN_RECORDS 16
/* Each output's write buffer during the merge, and the block size of
 * gathers. */
#define WRITE_BUFFER_BYTES ((size_t)1 << 20)
/* Files are read and written in blocks of this size (progress between). */
#define IO_BLOCK_BYTES ((size_t)64 << 20)
/* When an automatically sized chunk does not fit the device after all, it
 * is halved, down to this many keys. */
#define MIN_RETRY_KEYS ((size_t)1 << 16)
/* Values this large travel as positions and are gathered on the host (the
 * library's limit for clsort_sort_pairs). */
#define MAX_DEVICE_VALUE_SIZE 65536

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

enum { S_KEYS, S_VALS, S_IDX, S_COUNT };

/* What travels with the keys through the device sort. */
enum { PAYLOAD_NONE, PAYLOAD_VALUES, PAYLOAD_INDEX };

/* ------------------------------------------------------------ progress */

static struct {
    int on;          /* stderr is a terminal */
    double t0, last; /* start and last display, seconds */
    int shown;       /* a line is on the screen */
    int width;       /* its length */
} progress;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Shows a status line once the work has run a second: at most five times
 * a second unless force (a new phase). */
static void progress_show(int force, const char *fmt, ...)
{
    if (!progress.on)
        return;
    double t = now_seconds();
    if (t - progress.t0 < 1.0 || (!force && t - progress.last < 0.2))
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line, fmt, ap); /* (truncated if long) */
    va_end(ap);
    if (len < 0)
        return;
    int w = fprintf(stderr, "\rclsort sort: %s [%.0f s]", line, t - progress.t0) - 1;
    if (w < progress.width)
        fprintf(stderr, "%*s", progress.width - w, "");
    progress.width = w;
    fflush(stderr);
    progress.last = t;
    progress.shown = 1;
}

static void progress_clear(void)
{
    if (progress.shown) {
        fprintf(stderr, "\r%*s\r", progress.width, "");
        fflush(stderr);
        progress.shown = 0;
        progress.width = 0;
    }
}

static double percent(uint64_t done, uint64_t total)
{
    return total ? 100.0 * (double)done / (double)total : 100.0;
}

/* ------------------------------------------------------------ messages */

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    progress_clear();
    va_list ap;
    va_start(ap, fmt);
    fputs("clsort sort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clsort sort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fputs("usage: clsort sort [options] IN [OUT]   ('clsort help' lists the options)\n", stderr);
    return EXIT_USAGE;
}

/* ------------------------------------------- temporaries and signals */

/* Temporary output names to unlink if the process ends before the
 * command does: by a signal, or by exit() inside a driver (LLVM's fatal
 * errors in PoCL's compiler exit). */
#define CLEANUP_SLOTS 8
static char *volatile cleanup_names[CLEANUP_SLOTS];
static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT};
#define NCAUGHT (sizeof caught_signals / sizeof caught_signals[0])
static struct sigaction saved_actions[NCAUGHT];
static struct sigaction saved_xfsz;

static void cleanup_all(void)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        char *p = cleanup_names[i];
        if (p)
            unlink(p);
    }
}

/* Unlinks the temporaries (unlink is async-signal-safe), then dies of the
 * signal as it would have. */
static void on_signal(int sig)
{
    cleanup_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

int clsort_sort_report_fd = -1;

static int cleanup_add(char *name)
{
    if (clsort_sort_report_fd >= 0)
        (void)!write(clsort_sort_report_fd, name, strlen(name) + 1);
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup_names[i]) {
            cleanup_names[i] = name;
            return i;
        }
    return -1;
}

static void cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        cleanup_names[slot] = NULL;
}

static void signals_install(void)
{
    static int registered;
    if (!registered && atexit(cleanup_all) == 0)
        registered = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCAUGHT; i++) {
        sigaction(caught_signals[i], NULL, &saved_actions[i]);
        /* Only where the default would kill us: an ignored SIGHUP (nohup)
         * stays ignored, a handler someone installed stays. */
        if (saved_actions[i].sa_handler == SIG_DFL && !(saved_actions[i].sa_flags & SA_SIGINFO))
            sigaction(caught_signals[i], &sa, NULL);
    }
    /* A file-size limit then fails the write (EFBIG) instead of killing the
     * process with its temporaries in place. */
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &saved_xfsz);
}

static void signals_restore(void)
{
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaction(caught_signals[i], &saved_actions[i], NULL);
    sigaction(SIGXFSZ, &saved_xfsz, NULL);
}

/* ------------------------------------------------------------- parsing */

static int has_npy_suffix(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && !strcasecmp(path + n - 4, ".npy");
}

/* A decimal count with an optional K, M or G suffix (powers of two). */
static int parse_bytes(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!s || !*s || *s < '0' || *s > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

/* ----------------------------------------------------------------- .npy */

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

typedef struct npy_header {
    char descr[64];
    int structured, fortran;
    int have_descr, have_fortran, have_shape;
    int ndim;
    uint64_t shape[32];
} npy_header;

typedef struct cursor {
    const char *p, *e;
} cursor;

static void cur_space(cursor *c)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int cur_char(cursor *c, char ch)
{
    cur_space(c);
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string into out (NULL: skip it). */
static int cur_string(cursor *c, char *out, size_t cap)
{
    cur_space(c);
    if (c->p >= c->e || (*c->p != '\'' && *c->p != '"'))
        return -1;
    char q = *c->p++;
    size_t k = 0;
    while (c->p < c->e && *c->p != q) {
        if (*c->p == '\\' && c->p + 1 < c->e)
            c->p++;
        if (out) {
            if (k + 1 >= cap)
                return -1;
            out[k++] = *c->p;
        }
        c->p++;
    }
    if (c->p >= c->e)
        return -1;
    c->p++;
    if (out)
        out[k] = 0;
    return 0;
}

/* A bare word (True, False, a number) into out. */
static int cur_word(cursor *c, char *out, size_t cap)
{
    cur_space(c);
    size_t k = 0;
    while (c->p < c->e && (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.' ||
                           *c->p == '-' || *c->p == '+')) {
        if (k + 1 >= cap)
            return -1;
        out[k++] = *c->p++;
    }
    out[k] = 0;
    return k ? 0 : -1;
}

/* Skips one Python literal: a string, a word, or a bracketed group. */
static int cur_skip(cursor *c, int depth)
{
    cur_space(c);
    if (c->p >= c->e || depth > 32)
        return -1;
    char ch = *c->p;
    if (ch == '\'' || ch == '"')
        return cur_string(c, NULL, 0);
    if (ch == '(' || ch == '[' || ch == '{') {
        char close = ch == '(' ? ')' : ch == '[' ? ']' : '}';
        c->p++;
        for (;;) {
            if (cur_char(c, close))
                return 0;
            if (cur_skip(c, depth + 1) != 0)
                return -1;
            if (!cur_char(c, ',') && !cur_char(c, ':')) {
                if (cur_char(c, close))
                    return 0;
                return -1;
            }
        }
    }
    char word[64];
    return cur_word(c, word, sizeof word);
}

/* Parses the header dictionary, e.g.
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1000,), } */
static int npy_parse_dict(const char *text, size_t len, npy_header *h)
{
    memset(h, 0, sizeof *h);
    cursor c = {text, text + len};
    if (!cur_char(&c, '{'))
        return -1;
    for (;;) {
        if (cur_char(&c, '}'))
            break;
        char key[64];
        if (cur_string(&c, key, sizeof key) != 0 || !cur_char(&c, ':'))
            return -1;
        if (!strcmp(key, "descr")) {
            cur_space(&c);
            if (c.p < c.e && (*c.p == '\'' || *c.p == '"')) {
                if (cur_string(&c, h->descr, sizeof h->descr) != 0)
                    return -1;
            } else {
                h->structured = 1;
                if (cur_skip(&c, 0) != 0)
                    return -1;
            }
            h->have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            char w[16];
            if (cur_word(&c, w, sizeof w) != 0)
                return -1;
            if (!strcmp(w, "True"))
                h->fortran = 1;
            else if (strcmp(w, "False"))
                return -1;
            h->have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (!cur_char(&c, '('))
                return -1;
            for (;;) {
                if (cur_char(&c, ')'))
                    break;
                char w[32];
                if (cur_word(&c, w, sizeof w) != 0)
                    return -1;
                size_t wl = strlen(w);
                if (wl > 1 && (w[wl - 1] == 'L' || w[wl - 1] == 'l'))
                    w[wl - 1] = 0; /* Python 2 long */
                unsigned long long d;
                if (parse_uint(w, UINT64_MAX, &d) != 0 || h->ndim >= 32)
                    return -1;
                h->shape[h->ndim++] = d;
                if (!cur_char(&c, ',')) {
                    if (!cur_char(&c, ')'))
                        return -1;
                    break;
                }
            }
            h->have_shape = 1;
        } else if (cur_skip(&c, 0) != 0) {
            return -1;
        }
        if (!cur_char(&c, ',')) {
            if (!cur_char(&c, '}'))
                return -1;
            break;
        }
    }
    return h->have_descr && h->have_fortran && h->have_shape ? 0 : -1;
}

/* Splits a simple dtype string ("<f4", "|u1", "<U8", "<M8[ns]", "|V16")
 * into byte order, kind and item size. Returns -1 when malformed. */
static int npy_dtype(const char *d, char *order, char *kind, size_t *itemsize)
{
    *order = '|';
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=')
        *order = *d++;
    if (*order == '=')
        *order = host_little_endian() ? '<' : '>';
    if (!isalpha((unsigned char)*d))
        return -1;
    *kind = *d++;
    if (*d < '1' || *d > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(d, &end, 10);
    if (errno || n == 0 || n > (1ull << 40))
        return -1;
    if ((*kind == 'M' || *kind == 'm') && *end == '[') { /* a time unit: "[ns]", "[10us]" */
        end++;
        while (isalnum((unsigned char)*end))
            end++;
        if (*end++ != ']')
            return -1;
    }
    if (*end)
        return -1; /* (so a descr is safe to write back between quotes) */
    *itemsize = (size_t)(*kind == 'U' ? 4 * n : n);
    return 0;
}

/* The .npy dtype string of a key or index type. */
static const char *npy_descr_of(clsort_type t)
{
    switch (t) {
    case CLSORT_U8: return "|u1";
    case CLSORT_U16: return "<u2";
    case CLSORT_U32: return "<u4";
    case CLSORT_U64: return "<u8";
    case CLSORT_I8: return "|i1";
    case CLSORT_I16: return "<i2";
    case CLSORT_I32: return "<i4";
    case CLSORT_I64: return "<i8";
    case CLSORT_F32: return "<f4";
    case CLSORT_F64: return "<f8";
    }
    return NULL;
}

/* The key type of a dtype, 0 when it is not one. */
static clsort_type key_type_of_dtype(char kind, size_t size)
{
    static const clsort_type u[] = {CLSORT_U8, CLSORT_U16, 0, CLSORT_U32, 0, 0, 0, CLSORT_U64};
    static const clsort_type i[] = {CLSORT_I8, CLSORT_I16, 0, CLSORT_I32, 0, 0, 0, CLSORT_I64};
    if (size < 1 || size > 8)
        return 0;
    if (kind == 'u')
        return u[size - 1];
    if (kind == 'i')
        return i[size - 1];
    if (kind == 'f')
        return size == 4 ? CLSORT_F32 : size == 8 ? CLSORT_F64 : 0;
    return 0;
}

/* Writes a format 1.0 header for a 1-D array of n elements into buf (at
 * least 256 bytes); returns its length, a multiple of 64. */
static size_t npy_header_write(char *buf, const char *descr, uint64_t n)
{
    char dict[160];
    int dl =
        snprintf(dict, sizeof dict,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (%" PRIu64 ",), }", descr, n);
    size_t total = 10 + (size_t)dl + 1;
    total = (total + 63) / 64 * 64;
    size_t hlen = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)dl);
    memset(buf + 10 + dl, ' ', total - 10 - (size_t)dl - 1);
    buf[total - 1] = '\n';
    return total;
}

/* ---------------------------------------------------------- input files */

typedef struct in_file {
    const char *path;
    FILE *f;
    int npy;
    uint64_t offset; /* where the elements start */
    uint64_t bytes;  /* bytes of elements */
    uint64_t count;  /* elements (.npy: from the header) */
    size_t elem;     /* bytes per element (.npy: from the header) */
    char descr[64];  /* the .npy dtype ("" for raw files) */
    char order, kind;
    uint64_t pos; /* the stream's position, to skip needless seeks */
} in_file;

/* Opens a raw or .npy input; for .npy reads and checks the header. */
static int in_open(in_file *in, const char *path, const char *what)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->npy = has_npy_suffix(path);
    in->f = fopen(path, "rb");
    if (!in->f) {
        msg("cannot open %s %s: %s", what, path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(in->f), &st) != 0) {
        msg("cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        msg("%s is not a regular file", path);
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (!in->npy) {
        in->bytes = size;
        return 0;
    }
    unsigned char pre[12];
    size_t got = fread(pre, 1, 10, in->f);
    if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        if (ferror(in->f))
            msg("cannot read %s: %s", path, strerror(errno));
        else
            msg("%s is not a .npy file (no \\x93NUMPY magic at its start)", path);
        return -1;
    }
    unsigned major = pre[6];
    uint64_t hlen, start;
    if (major == 1) {
        hlen = pre[8] | (uint64_t)pre[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, in->f) != 2) {
            msg("%s: truncated .npy header", path);
            return -1;
        }
        hlen = pre[8] | (uint64_t)pre[9] << 8 | (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
        start = 12;
    } else {
        msg("%s: .npy format version %u.%u is not supported (1.0, 2.0 and 3.0 are)", path, major,
            pre[7]);
        return -1;
    }
    if (hlen > ((uint64_t)1 << 24) || start + hlen > size) {
        msg("%s: truncated or corrupt .npy header (%" PRIu64 " bytes announced)", path, hlen);
        return -1;
    }
    char *text = malloc((size_t)hlen + 1);
    if (!text) {
        msg("out of host memory reading the header of %s", path);
        return -1;
    }
    if (fread(text, 1, (size_t)hlen, in->f) != (size_t)hlen) {
        msg("%s: truncated .npy header", path);
        free(text);
        return -1;
    }
    text[hlen] = 0;
    npy_header h;
    int bad = npy_parse_dict(text, (size_t)hlen, &h);
    free(text);
    if (bad) {
        msg("%s: cannot parse the .npy header dictionary", path);
        return -1;
    }
    if (h.structured) {
        msg("%s: a structured dtype is not supported (1-D arrays of plain elements only)", path);
        return -1;
    }
    if (h.ndim != 1) {
        char shape[256] = "(";
        for (int d = 0; d < h.ndim && strlen(shape) < 200; d++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%" PRIu64,
                     d ? ", " : "", h.shape[d]);
        strcat(shape, ")");
        msg("%s: a %d-D array of shape %s; only 1-D arrays are supported", path, h.ndim, shape);
        return -1;
    }
    /* A 1-D array is laid out the same in either order. */
    if (npy_dtype(h.descr, &in->order, &in->kind, &in->elem) != 0) {
        msg("%s: unknown .npy dtype '%s'", path, h.descr);
        return -1;
    }
    if (in->kind == 'O') {
        msg("%s: an object array (dtype '%s') holds pointers, not data", path, h.descr);
        return -1;
    }
    if (in->elem > 1 && in->order == '>') {
        msg("%s: big-endian dtype '%s' is not supported (little-endian only)", path, h.descr);
        return -1;
    }
    if (in->elem > 1 && in->order == '<' && !host_little_endian()) {
        msg("%s: little-endian .npy data needs a little-endian host", path);
        return -1;
    }
    snprintf(in->descr, sizeof in->descr, "%s", h.descr);
    in->count = h.shape[0];
    in->offset = start + hlen;
    in->pos = in->offset;
    if (in->count > UINT64_MAX / in->elem || in->count * in->elem != size - in->offset) {
        msg("%s: the header announces %" PRIu64
            " elements of %zu bytes, but the file holds %" PRIu64 " bytes of data",
            path, in->count, in->elem, size - in->offset);
        return -1;
    }
    in->bytes = size - in->offset;
    return 0;
}

/* Reads elements [start, start + count) into buf, in large blocks. */
static int in_read(in_file *in, uint64_t start, size_t count, void *buf, const char *label)
{
    uint64_t at = in->offset + start * in->elem;
    if (at != in->pos) {
        if (fseeko(in->f, (off_t)at, SEEK_SET) != 0) {
            msg("cannot seek in %s: %s", in->path, strerror(errno));
            return -1;
        }
        in->pos = at;
    }
    size_t total = count * in->elem, done = 0;
    while (done < total) {
        size_t want = total - done < IO_BLOCK_BYTES ? total - done : IO_BLOCK_BYTES;
        size_t got = fread((unsigned char *)buf + done, 1, want, in->f);
        done += got;
        in->pos += got;
        if (got < want) {
            if (ferror(in->f))
                msg("cannot read %s: %s", in->path, strerror(errno));
            else
                msg("%s ended early (was it changed while being sorted?)", in->path);
            return -1;
        }
        progress_show(0, "%s %.0f%%", label, percent(done, total));
    }
    return 0;
}

/* --------------------------------------------------------- output files */

typedef struct out_file {
    const char *path; /* the name given; NULL when this output is not wanted */
    char *target;     /* what a symbolic link there points to, else NULL */
    char *tmp;        /* the temporary beside the file replaced */
    FILE *f;
    int npy;
    int slot; /* in cleanup_names */
} out_file;

/* The folder part of path with its slash ("" for a bare name). */
static size_t dir_prefix_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Creates a unique temporary "<dir>/.<tag>.clsort-XXXXXX" beside path. */
static int make_temp(const char *path, const char *tag, char **name_out)
{
    size_t dl = dir_prefix_len(path);
    size_t tl = strlen(tag);
    if (tl > 200)
        tl = 200; /* keep within NAME_MAX */
    char *name = malloc(dl + tl + 32);
    if (!name) {
        msg("out of host memory");
        return -1;
    }
    memcpy(name, path, dl);
    snprintf(name + dl, tl + 32, ".%.*s.clsort-XXXXXX", (int)tl, tag);
    int fd = mkstemp(name);
    if (fd < 0) {
        int e = errno;
        if (dl > 1)
            name[dl - 1] = 0;
        else
            strcpy(name, dl ? "/" : ".");
        msg("cannot create a temporary file in %s: %s", name, strerror(e));
        free(name);
        return -1;
    }
    *name_out = name;
    return fd;
}

static int out_create(out_file *o, const char *path)
{
    o->path = path;
    o->npy = has_npy_suffix(path);
    o->slot = -1;
    const char *base = path + dir_prefix_len(path);
    if (!*base) {
        msg("%s names a folder, not a file", path);
        return -1;
    }
    /* A symbolic link stays: the file it points to is replaced. */
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (o->target = realpath(path, NULL)))
        path = o->target;
    base = path + dir_prefix_len(path);
    char *tmp = NULL;
    int fd = make_temp(path, base, &tmp);
    if (fd < 0)
        return -1;
    o->tmp = tmp;
    o->slot = cleanup_add(tmp);
    /* Keep the mode of a file being replaced, else the usual 0666 & ~umask
     * (mkstemp makes it 0600). */
    mode_t mode;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        msg("cannot set the mode of %s: %s", tmp, strerror(errno));
        close(fd);
        return -1;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        msg("cannot open %s: %s", tmp, strerror(errno));
        close(fd);
        return -1;
    }
    return 0;
}

/* Writes bytes to f in large blocks; name is what the error names. */
static int write_all(FILE *f, const void *buf, size_t bytes, const char *name, const char *label)
{
    size_t done = 0;
    while (done < bytes) {
        size_t want = bytes - done < IO_BLOCK_BYTES ? bytes - done : IO_BLOCK_BYTES;
        if (fwrite((const unsigned char *)buf + done, 1, want, f) != want) {
            msg("writing %s: %s", name, strerror(errno));
            return -1;
        }
        done += want;
        if (label)
            progress_show(0, "%s %.0f%%", label, percent(done, bytes));
    }
    return 0;
}

/* Flushes and fsyncs a temporary and closes it (not yet renamed). */
static int out_finish(out_file *o)
{
    if (fflush(o->f) != 0 || ferror(o->f)) {
        msg("writing %s: %s", o->path, strerror(errno));
        return -1;
    }
    if (fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != ENOTSUP) {
        msg("writing %s: fsync: %s", o->path, strerror(errno));
        return -1;
    }
    FILE *f = o->f;
    o->f = NULL;
    if (fclose(f) != 0) {
        msg("writing %s: %s", o->path, strerror(errno));
        return -1;
    }
    return 0;
}

static int out_rename(out_file *o)
{
    const char *dest = o->target ? o->target : o->path;
    if (rename(o->tmp, dest) != 0) {
        msg("cannot rename %s to %s: %s", o->tmp, dest, strerror(errno));
        return -1;
    }
    cleanup_remove(o->slot);
    o->slot = -1;
    free(o->tmp);
    o->tmp = NULL;
    /* Make the rename durable (best effort: not every folder can sync). */
    size_t dl = dir_prefix_len(dest);
    char *dir = malloc(dl + 2);
    if (dir) {
        if (dl)
            memcpy(dir, dest, dl), dir[dl] = 0;
        else
            strcpy(dir, ".");
        int fd = open(dir, O_RDONLY);
        if (fd >= 0) {
            (void)fsync(fd);
            close(fd);
        }
        free(dir);
    }
    return 0;
}

/* Removes an unfinished temporary. */
static void out_abort(out_file *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp) {
        unlink(o->tmp);
        cleanup_remove(o->slot);
        o->slot = -1;
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->target);
    o->target = NULL;
}

/* A name that two spellings of one file share: the real path of its folder
 * and its base name. */
static char *canonical_name(const char *path)
{
    size_t dl = dir_prefix_len(path);
    char *dir = malloc(dl + 2);
    if (!dir)
        return NULL;
    if (dl)
        memcpy(dir, path, dl), dir[dl] = 0;
    else
        strcpy(dir, ".");
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real)
        return strdup(path);
    const char *base = path + dl;
    char *out = malloc(strlen(real) + strlen(base) + 2);
    if (out)
        sprintf(out, "%s/%s", real, base);
    free(real);
    return out;
}

/* --------------------------------------------------------- key order */

/* The order-preserving unsigned image of a key, matching clsort.h ("Key
 * order" and "Bit windows"): unsigned keys as they are; signed keys with
 * the sign bit flipped; floats with -0.0 read as +0.0, every NaN (whatever
 * its sign and payload) read as all ones, and then the sign bit flipped for
 * non-negative numbers and every bit flipped for negative ones, so that
 * unsigned order is -inf < ... < -0.0 == +0.0 < ... < +inf < NaN. The merge
 * compares runs through this, exactly as the device ordered each run. */
static uint64_t key_image(clsort_type t, const unsigned char *p)
{
    switch (t) {
    case CLSORT_U8: return p[0];
    case CLSORT_I8: return (uint8_t)(p[0] ^ 0x80u);
    case CLSORT_U16:
    case CLSORT_I16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return t == CLSORT_I16 ? (uint16_t)(v ^ 0x8000u) : v;
    }
    case CLSORT_U32:
    case CLSORT_I32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return t == CLSORT_I32 ? v ^ 0x80000000u : v;
    }
    case CLSORT_U64:
    case CLSORT_I64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return t == CLSORT_I64 ? v ^ (UINT64_C(1) << 63) : v;
    }
    case CLSORT_F32: {
        uint32_t v;
        memcpy(&v, p, 4);
        if ((v & 0x7fffffffu) > 0x7f800000u)
            return 0xffffffffu; /* NaN */
        if ((v & 0x7fffffffu) == 0)
            v = 0; /* -0.0 -> +0.0 */
        return (v & 0x80000000u) ? (uint32_t)~v : v | 0x80000000u;
    }
    case CLSORT_F64: {
        uint64_t v;
        memcpy(&v, p, 8);
        const uint64_t sign = UINT64_C(1) << 63;
        if ((v & ~sign) > UINT64_C(0x7ff0000000000000))
            return UINT64_MAX;
        if ((v & ~sign) == 0)
            v = 0;
        return (v & sign) ? ~v : v | sign;
    }
    }
    return 0;
}

/* ------------------------------------------------------------- the job */

typedef struct sort_job {
    /* options */
    const char *in_path, *out_path[S_COUNT], *val_path, *device;
    clsort_type type, index_type;
    size_t value_size;
    int have_bits;
    clsort_options opts;
    uint64_t chunk_bytes; /* 0: automatic */

    /* inputs and outputs */
    in_file keys, vals;
    uint64_t n;
    size_t es[S_COUNT]; /* bytes per element of each stream, 0 when absent */
    int payload;        /* PAYLOAD_* */
    size_t pos_size;    /* bytes of a carried position (PAYLOAD_INDEX) */
    out_file out[S_COUNT];

    /* the merge's view of keys */
    unsigned shift;
    uint64_t mask;

    /* device and chunks */
    clsort_context *ctx;
    size_t chunk; /* keys per chunk */
    int chunk_auto;
    unsigned char *kbuf, *vbuf, *ibuf, *gbuf; /* host: keys, values, positions, gathers */

    /* runs, when there is more than one chunk */
    FILE *run[S_COUNT];
    uint64_t *run_start; /* nruns + 1 entries once the sort phase ends */
    size_t nruns, run_cap;
} sort_job;

/* Bytes of what rides with each key through the device sort. */
static size_t payload_size(const sort_job *j)
{
    return j->payload == PAYLOAD_INDEX    ? j->pos_size
           : j->payload == PAYLOAD_VALUES ? j->value_size
                                          : 0;
}

static const char *option_for(int s)
{
    return s == S_KEYS ? "OUT" : s == S_VALS ? "--values-out" : "--argsort";
}

/* Parses argv into j. Returns 0, EXIT_USAGE, or -1 for --help (done). */
static int parse_args(sort_job *j, int argc, char **argv)
{
    const char *pos[3];
    int npos = 0, type_given = 0, vs_given = 0, it_given = 0, options_done = 0;
    const char *chunk_opt = NULL;
    j->index_type = CLSORT_U64;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || !a[1]) {
            if (npos == 3)
                return usage_error("too many file names ('%s')", a);
            pos[npos++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            options_done = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(clsort_sort_usage, stdout);
            return -1;
        }
        if (!strcmp(a, "--descending")) {
            j->opts.descending = 1;
            continue;
        }
        static const char *const with_value[] = {"--type",       "--values",  "--value-size",
                                                 "--values-out", "--argsort", "--index-type",
                                                 "--bits",       "--device",  "--chunk-bytes"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            known |= !strcmp(a, with_value[k]);
        if (!known)
            return usage_error("unknown option '%s'", a);
        if (i + 1 >= argc)
            return usage_error("%s needs a value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--type")) {
            j->type = clsort_type_from_name(v);
            if (!j->type)
                return usage_error("unknown key type '%s' (u8 u16 u32 u64 i8 i16 i32 i64 f32 f64)",
                                   v);
            type_given = 1;
        } else if (!strcmp(a, "--values")) {
            j->val_path = v;
        } else if (!strcmp(a, "--value-size")) {
            unsigned long long vs;
            if (parse_uint(v, SIZE_MAX / 2, &vs) != 0 || vs == 0)
                return usage_error("--value-size '%s' is not a positive byte count", v);
            j->value_size = (size_t)vs;
            vs_given = 1;
        } else if (!strcmp(a, "--values-out")) {
            j->out_path[S_VALS] = v;
        } else if (!strcmp(a, "--argsort")) {
            j->out_path[S_IDX] = v;
        } else if (!strcmp(a, "--index-type")) {
            j->index_type = clsort_type_from_name(v);
            if (j->index_type != CLSORT_U32 && j->index_type != CLSORT_U64)
                return usage_error("--index-type must be u32 or u64, not '%s'", v);
            it_given = 1;
        } else if (!strcmp(a, "--bits")) {
            unsigned long long b, e;
            const char *colon = strchr(v, ':');
            char first[32];
            if (!colon || (size_t)(colon - v) >= sizeof first)
                return usage_error("--bits takes B:E, not '%s'", v);
            memcpy(first, v, (size_t)(colon - v));
            first[colon - v] = 0;
            if (parse_uint(first, 64, &b) != 0 || parse_uint(colon + 1, 64, &e) != 0 || b >= e)
                return usage_error("--bits '%s' is not a window B:E with B < E <= 64", v);
            j->opts.begin_bit = (unsigned)b;
            j->opts.end_bit = (unsigned)e;
            j->have_bits = 1;
        } else if (!strcmp(a, "--device")) {
            j->device = v;
        } else {
            chunk_opt = v;
            if (parse_bytes(v, &j->chunk_bytes) != 0)
                return usage_error("--chunk-bytes '%s' is not a positive size", v);
        }
    }
    if (!chunk_opt) {
        const char *env = getenv("CLSORT_SORT_CHUNK_BYTES");
        if (env && *env && parse_bytes(env, &j->chunk_bytes) != 0)
            return usage_error("CLSORT_SORT_CHUNK_BYTES='%s' is not a positive size", env);
    }
    if (npos == 0)
        return usage_error("missing the input file IN");
    j->in_path = pos[0];
    if (npos == 3)
        return usage_error("too many file names ('%s')", pos[2]);
    if (npos == 2)
        j->out_path[S_KEYS] = pos[1];
    if (!j->out_path[S_KEYS] && !j->out_path[S_IDX])
        return usage_error("missing the output file OUT (only --argsort makes it optional)");
    if (j->val_path && !j->out_path[S_VALS])
        return usage_error("--values needs --values-out FILE");
    if (!j->val_path && j->out_path[S_VALS])
        return usage_error("--values-out needs --values FILE");
    if (vs_given && !j->val_path)
        return usage_error("--value-size needs --values FILE");
    if (it_given && !j->out_path[S_IDX])
        return usage_error("--index-type needs --argsort FILE");
    if (!type_given && !has_npy_suffix(j->in_path))
        return usage_error("--type is needed: %s is a raw file (only .npy files name their type)",
                           j->in_path);
    if (j->val_path && !vs_given && !has_npy_suffix(j->val_path))
        return usage_error("--value-size is needed: %s is a raw file (only .npy files name their "
                           "item size)",
                           j->val_path);
    for (int s = 0; s < S_COUNT; s++)
        for (int t = s + 1; t < S_COUNT; t++)
            if (j->out_path[s] && j->out_path[t]) {
                char *a = canonical_name(j->out_path[s]), *b = canonical_name(j->out_path[t]);
                int same = a && b && !strcmp(a, b);
                free(a);
                free(b);
                if (same)
                    return usage_error("%s and %s name the same file %s", option_for(s),
                                       option_for(t), j->out_path[s]);
            }
    return 0;
}

/* Checks --bits against the key width (known once the type is). */
static int check_bits(sort_job *j)
{
    unsigned width = (unsigned)(8 * clsort_type_size(j->type));
    if (j->have_bits && j->opts.end_bit > width)
        return usage_error("--bits %u:%u is outside the %u-bit %s keys", j->opts.begin_bit,
                           j->opts.end_bit, width, clsort_type_name(j->type));
    unsigned b = j->have_bits ? j->opts.begin_bit : 0, e = j->have_bits ? j->opts.end_bit : width;
    j->shift = b;
    j->mask = e - b >= 64 ? UINT64_MAX : (UINT64_C(1) << (e - b)) - 1;
    return 0;
}

/* Opens the inputs and settles the types, sizes and payload. Returns 0 or
 * an exit status. */
static int open_inputs(sort_job *j)
{
    if (in_open(&j->keys, j->in_path, "input") != 0)
        return EXIT_RUNTIME;
    if (j->keys.npy) {
        clsort_type t = key_type_of_dtype(j->keys.kind, j->keys.elem);
        if (!t) {
            msg("%s: dtype '%s' is not a key type (u8..u64, i8..i64, f32, f64)", j->in_path,
                j->keys.descr);
            return EXIT_RUNTIME;
        }
        if (j->type && j->type != t) {
            msg("%s holds %s keys (dtype '%s'), not --type %s", j->in_path, clsort_type_name(t),
                j->keys.descr, clsort_type_name(j->type));
            return EXIT_RUNTIME;
        }
        j->type = t;
    } else {
        j->keys.elem = clsort_type_size(j->type);
        if (j->keys.bytes % j->keys.elem != 0) {
            msg("%s: its size, %" PRIu64 " bytes, is not a multiple of the %s key size (%zu bytes)",
                j->in_path, j->keys.bytes, clsort_type_name(j->type), j->keys.elem);
            return EXIT_RUNTIME;
        }
        j->keys.count = j->keys.bytes / j->keys.elem;
    }
    int rc = check_bits(j);
    if (rc)
        return rc;
    j->n = j->keys.count;
    j->es[S_KEYS] = j->keys.elem;
    if (j->val_path) {
        if (in_open(&j->vals, j->val_path, "values file") != 0)
            return EXIT_RUNTIME;
        if (j->vals.npy) {
            if (j->value_size && j->value_size != j->vals.elem) {
                msg("%s holds %zu-byte values (dtype '%s'), not --value-size %zu", j->val_path,
                    j->vals.elem, j->vals.descr, j->value_size);
                return EXIT_RUNTIME;
            }
            j->value_size = j->vals.elem;
        } else {
            j->vals.elem = j->value_size;
            if (j->vals.bytes % j->value_size != 0) {
                msg("%s: its size, %" PRIu64 " bytes, is not a multiple of --value-size %zu",
                    j->val_path, j->vals.bytes, j->value_size);
                return EXIT_RUNTIME;
            }
            j->vals.count = j->vals.bytes / j->value_size;
        }
        if (j->vals.count != j->n) {
            msg("%s holds %" PRIu64 " values but %s holds %" PRIu64 " keys", j->val_path,
                j->vals.count, j->in_path, j->n);
            return EXIT_RUNTIME;
        }
        j->es[S_VALS] = j->value_size;
    }
    if (j->out_path[S_IDX]) {
        if (j->index_type == CLSORT_U32 && j->n > UINT32_MAX) {
            msg("%s holds %" PRIu64 " keys: u32 positions stop at 2^32 - 1 (use --index-type u64)",
                j->in_path, j->n);
            return EXIT_RUNTIME;
        }
        j->es[S_IDX] = clsort_type_size(j->index_type);
    }
    /* What rides with the keys on the device. */
    if (j->out_path[S_IDX] || (j->val_path && j->value_size > MAX_DEVICE_VALUE_SIZE)) {
        j->payload = PAYLOAD_INDEX;
        j->pos_size = j->out_path[S_IDX] ? j->es[S_IDX] : j->n > UINT32_MAX ? 8 : 4;
    } else if (j->val_path) {
        j->payload = PAYLOAD_VALUES;
    }
    if ((uint64_t)j->n > SIZE_MAX / 16) {
        msg("%s: %" PRIu64 " keys are more than this host can address", j->in_path, j->n);
        return EXIT_RUNTIME;
    }
    return 0;
}

/* Creates the temporary outputs and writes their .npy headers. */
static int create_outputs(sort_job *j)
{
    for (int s = 0; s < S_COUNT; s++) {
        if (!j->out_path[s])
            continue;
        out_file *o = &j->out[s];
        if (out_create(o, j->out_path[s]) != 0)
            return -1;
        if (!o->npy)
            continue;
        char descr[64];
        if (s == S_KEYS)
            snprintf(descr, sizeof descr, "%s", npy_descr_of(j->type));
        else if (s == S_IDX)
            snprintf(descr, sizeof descr, "%s", npy_descr_of(j->index_type));
        else if (j->vals.npy)
            snprintf(descr, sizeof descr, "%s", j->vals.descr);
        else if (j->value_size <= 8 && (j->value_size & (j->value_size - 1)) == 0)
            snprintf(descr, sizeof descr, "%s",
                     npy_descr_of(j->value_size == 1   ? CLSORT_U8
                                  : j->value_size == 2 ? CLSORT_U16
                                  : j->value_size == 4 ? CLSORT_U32
                                                       : CLSORT_U64));
        else
            snprintf(descr, sizeof descr, "|V%zu", j->value_size);
        char header[256];
        size_t hl = npy_header_write(header, descr, j->n);
        if (write_all(o->f, header, hl, o->path, NULL) != 0)
            return -1;
    }
    return 0;
}

/* The keys per chunk: forced by --chunk-bytes, else the most whose keys,
 * carried data and temporary memory fit 3/4 of the device's global memory
 * (each buffer within its largest allocation) and whose host records fit
 * half the physical memory. */
static int choose_chunk(sort_job *j)
{
    size_t dev_payload = payload_size(j);
    size_t host_rec = j->es[S_KEYS] + (j->val_path ? j->value_size : 0) +
                      (j->payload == PAYLOAD_INDEX ? j->pos_size : 0);
    if (j->chunk_bytes) {
        uint64_t rec = j->es[S_KEYS] + j->es[S_VALS] + j->es[S_IDX];
        uint64_t c = j->chunk_bytes / rec;
        j->chunk = (size_t)(c < 1 ? 1 : c > j->n ? j->n : c);
        return 0;
    }
    j->chunk_auto = 1;
    /* The library sorts what exceeds the device in runs merged in host
     * memory: a chunk is bounded by the host's memory alone. */
    (void)dev_payload;
    uint64_t host_budget = UINT64_MAX;
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        host_budget = (uint64_t)pages * (uint64_t)page / 3;
#endif
    /* the records, and the library's merge space for as many */
    uint64_t c = host_budget / (2 * host_rec);
    j->chunk = (size_t)(c < 1 ? 1 : c > j->n ? j->n : c);
    return 0;
}

static uint64_t get_pos(const unsigned char *buf, size_t size, size_t i)
{
    if (size == 4) {
        uint32_t v;
        memcpy(&v, buf + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, buf + 8 * i, 8);
    return v;
}

static void fill_positions(unsigned char *buf, size_t size, uint64_t start, size_t cnt)
{
    if (size == 4) {
        uint32_t *p = (uint32_t *)(void *)buf;
        for (size_t i = 0; i < cnt; i++)
            p[i] = (uint32_t)(start + i);
    } else {
        uint64_t *p = (uint64_t *)(void *)buf;
        for (size_t i = 0; i < cnt; i++)
            p[i] = start + i;
    }
}

static int is_memory_status(clsort_status s)
{
    return s == CLSORT_ERROR_OUT_OF_DEVICE_MEMORY || s == CLSORT_ERROR_TOO_LARGE ||
           s == CL_MEM_OBJECT_ALLOCATION_FAILURE || s == CL_OUT_OF_RESOURCES ||
           s == CL_INVALID_BUFFER_SIZE;
}

/* Frees the chunk's host and device buffers. */
static void release_chunk(sort_job *j)
{
    free(j->kbuf);
    free(j->vbuf);
    free(j->ibuf);
    free(j->gbuf);
    j->kbuf = j->vbuf = j->ibuf = j->gbuf = NULL;
}

/* Writes one sorted chunk's streams to dst (NULL entries are skipped):
 * keys, values (gathered by position when positions rode along) and
 * positions. */
static int emit_chunk(sort_job *j, FILE *const dst[S_COUNT], const char *const name[S_COUNT],
                      uint64_t start, size_t cnt, const char *label)
{
    if (dst[S_KEYS] && write_all(dst[S_KEYS], j->kbuf, cnt * j->es[S_KEYS], name[S_KEYS], label))
        return -1;
    if (dst[S_VALS]) {
        size_t vs = j->value_size;
        if (j->payload == PAYLOAD_INDEX) {
            size_t per = WRITE_BUFFER_BYTES / vs ? WRITE_BUFFER_BYTES / vs : 1;
            for (size_t i = 0; i < cnt; i += per) {
                size_t m = cnt - i < per ? cnt - i : per;
                for (size_t k = 0; k < m; k++)
                    memcpy(j->gbuf + k * vs,
                           j->vbuf + (size_t)(get_pos(j->ibuf, j->pos_size, i + k) - start) * vs,
                           vs);
                if (write_all(dst[S_VALS], j->gbuf, m * vs, name[S_VALS], NULL))
                    return -1;
                progress_show(0, "%s %.0f%%", label, percent(i + m, cnt));
            }
        } else if (write_all(dst[S_VALS], j->vbuf, cnt * vs, name[S_VALS], label)) {
            return -1;
        }
    }
    if (dst[S_IDX] && write_all(dst[S_IDX], j->ibuf, cnt * j->es[S_IDX], name[S_IDX], label))
        return -1;
    return 0;
}

/* Opens the run files: unlinked temporaries beside the first output. */
static int open_runs(sort_job *j)
{
    const char *near = j->out_path[S_KEYS]  ? j->out_path[S_KEYS]
                       : j->out_path[S_IDX] ? j->out_path[S_IDX]
                                            : j->out_path[S_VALS];
    for (int s = 0; s < S_COUNT; s++) {
        if (s != S_KEYS && !j->out_path[s])
            continue;
        char *name = NULL;
        int fd = make_temp(near, "run", &name);
        if (fd < 0)
            return -1;
        if (unlink(name) != 0) {
            msg("cannot unlink the temporary %s: %s", name, strerror(errno));
            close(fd);
            unlink(name);
            free(name);
            return -1;
        }
        free(name);
        j->run[s] = fdopen(fd, "w+b");
        if (!j->run[s]) {
            msg("cannot open a temporary run file: %s", strerror(errno));
            close(fd);
            return -1;
        }
    }
    return 0;
}

static int add_run(sort_job *j, uint64_t start)
{
    if (j->nruns + 2 > j->run_cap) {
        size_t cap = j->run_cap ? 2 * j->run_cap : 64;
        uint64_t *p = realloc(j->run_start, cap * sizeof *p);
        if (!p) {
            msg("out of host memory");
            return -1;
        }
        j->run_start = p;
        j->run_cap = cap;
    }
    j->run_start[j->nruns++] = start;
    return 0;
}

/* Makes the device buffers hold chunk keys and their payload (no-op when
 * they already do). Returns an OpenCL status on failure. */
/* Sorts the chunk of cnt keys in kbuf (with its payload) through the
 * library's host-array path: pinned, overlapped copies on a GPU, in place on
 * a device that shares host memory, and runs merged in host memory where
 * the chunk exceeds the device's memory. */
static clsort_status chunk_sort(sort_job *j, size_t cnt)
{
    unsigned char *pbuf = j->payload == PAYLOAD_INDEX    ? j->ibuf
                          : j->payload == PAYLOAD_VALUES ? j->vbuf
                                                         : NULL;
    if (pbuf)
        return clsort_sort_pairs(j->ctx, j->type, j->kbuf, pbuf, payload_size(j), cnt,
                                 &j->opts);
    return clsort_sort_keys(j->ctx, j->type, j->kbuf, cnt, &j->opts);
}

/* Sorts the input chunk by chunk. A single chunk goes straight to the
 * outputs; otherwise each sorted chunk is appended to the run files. */
static int sort_phase(sort_job *j)
{
    size_t chunk = j->chunk;
    j->kbuf = malloc(chunk * j->es[S_KEYS]);
    int bad = !j->kbuf;
    if (j->val_path)
        bad |= !(j->vbuf = malloc(chunk * j->value_size));
    if (j->payload == PAYLOAD_INDEX)
        bad |= !(j->ibuf = malloc(chunk * j->pos_size));
    if (j->val_path && j->payload == PAYLOAD_INDEX)
        bad |= !(j->gbuf = malloc(WRITE_BUFFER_BYTES > j->value_size ? WRITE_BUFFER_BYTES
                                                                     : j->value_size));
    if (bad) {
        msg("out of host memory for a chunk of %zu keys (try a smaller --chunk-bytes)", chunk);
        return -1;
    }
    for (uint64_t start = 0; start < j->n;) {
        size_t cnt = j->n - start < chunk ? (size_t)(j->n - start) : chunk;
        uint64_t runs_est = j->nruns + (j->n - start + chunk - 1) / chunk;
        char label[96];
        if (runs_est > 1)
            snprintf(label, sizeof label, "run %zu/%" PRIu64 ":", j->nruns + 1, runs_est);
        else
            label[0] = 0;
        char what[128];
        snprintf(what, sizeof what, "%s%sreading", label, *label ? " " : "");
        progress_show(1, "%s", what);
        if (in_read(&j->keys, start, cnt, j->kbuf, what) != 0)
            return -1;
        if (j->val_path && in_read(&j->vals, start, cnt, j->vbuf, what) != 0)
            return -1;
        if (j->payload == PAYLOAD_INDEX)
            fill_positions(j->ibuf, j->pos_size, start, cnt);
        progress_show(1, "%s%ssorting %zu keys", label, *label ? " " : "", cnt);
        clsort_status s = chunk_sort(j, cnt);
        if (s != CLSORT_SUCCESS) {
            if (j->chunk_auto && is_memory_status(s) && chunk / 2 >= MIN_RETRY_KEYS) {
                /* Too big for the device after all: halve the chunk and read
                 * this one again. */
                chunk /= 2;
                continue;
            }
            const char *detail = clsort_context_last_error(j->ctx);
            msg("sorting keys %" PRIu64 " to %" PRIu64 " failed: %s%s%s%s", start, start + cnt,
                clsort_status_string(s), *detail ? ": " : "", detail,
                !j->chunk_auto && is_memory_status(s) ? " (a smaller --chunk-bytes may fit)" : "");
            return -1;
        }
        snprintf(what, sizeof what, "%s%swriting", label, *label ? " " : "");
        progress_show(1, "%s", what);
        FILE *dst[S_COUNT];
        const char *name[S_COUNT];
        if (start == 0 && cnt == j->n) {
            for (int k = 0; k < S_COUNT; k++) {
                dst[k] = j->out[k].f;
                name[k] = j->out[k].path;
            }
        } else {
            if (j->nruns == 0 && open_runs(j) != 0)
                return -1;
            for (int k = 0; k < S_COUNT; k++) {
                dst[k] = j->run[k];
                name[k] = "a temporary run file";
            }
            if (add_run(j, start) != 0)
                return -1;
        }
        if (emit_chunk(j, dst, name, start, cnt, what) != 0)
            return -1;
        start += cnt;
    }
    if (j->nruns)
        j->run_start[j->nruns] = j->n;
    release_chunk(j);
    return 0;
}

/* ------------------------------------------------------------ the merge */

typedef struct merge_run {
    uint64_t next, end; /* the part of the run not yet in the buffers */
    size_t pos, cnt;    /* the buffered records */
    unsigned char *buf[S_COUNT];
} merge_run;

typedef struct merge_head {
    uint64_t key; /* the key's window image, complemented when descending */
    size_t run;
} merge_head;

static int head_less(const merge_head *a, const merge_head *b)
{
    return a->key < b->key || (a->key == b->key && a->run < b->run);
}

static void sift_down(merge_head *h, size_t size, size_t i)
{
    merge_head x = h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= size)
            break;
        if (c + 1 < size && head_less(&h[c + 1], &h[c]))
            c++;
        if (!head_less(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static uint64_t merge_key(const sort_job *j, const unsigned char *key)
{
    uint64_t w = (key_image(j->type, key) >> j->shift) & j->mask;
    return j->opts.descending ? j->mask ^ w : w;
}

static int pread_all(int fd, void *buf, size_t bytes, uint64_t at)
{
    size_t done = 0;
    while (done < bytes) {
        ssize_t got = pread(fd, (unsigned char *)buf + done, bytes - done, (off_t)(at + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            msg("reading a temporary run file: %s", got < 0 ? strerror(errno) : "unexpected end");
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

static int refill(const sort_job *j, merge_run *r, size_t cap)
{
    uint64_t left = r->end - r->next;
    size_t m = left < cap ? (size_t)left : cap;
    for (int s = 0; s < S_COUNT; s++)
        if (r->buf[s] && pread_all(fileno(j->run[s]), r->buf[s], m * j->es[s], r->next * j->es[s]))
            return -1;
    r->next += m;
    r->pos = 0;
    r->cnt = m;
    return 0;
}

typedef struct writer {
    FILE *f;
    const char *name;
    unsigned char *buf;
    size_t len, cap;
} writer;

static int writer_flush(writer *w)
{
    if (w->len && write_all(w->f, w->buf, w->len, w->name, NULL) != 0)
        return -1;
    w->len = 0;
    return 0;
}

/* Merges the runs into the outputs: a heap of run heads ordered by (key
 * image over the bit window, run number), so ties leave in run order. */
static int merge_phase(sort_job *j)
{
    size_t R = j->nruns;
    for (int s = 0; s < S_COUNT; s++)
        if (j->run[s] && fflush(j->run[s]) != 0) {
            msg("writing a temporary run file: %s", strerror(errno));
            return -1;
        }
    size_t rec = 0;
    for (int s = 0; s < S_COUNT; s++)
        if (j->run[s])
            rec += j->es[s];
    size_t cap = MERGE_READ_BYTES / R / rec;
    if (cap < MERGE_MIN_RECORDS)
        cap = MERGE_MIN_RECORDS;
    merge_run *runs = calloc(R, sizeof *runs);
    merge_head *heap = malloc(R * sizeof *heap);
    writer w[S_COUNT];
    memset(w, 0, sizeof w);
    int rc = -1;
    if (!runs || !heap)
        goto oom;
    for (int s = 0; s < S_COUNT; s++) {
        if (!j->out[s].f)
            continue;
        w[s].f = j->out[s].f;
        w[s].name = j->out[s].path;
        w[s].cap =
            WRITE_BUFFER_BYTES > j->es[s] ? WRITE_BUFFER_BYTES / j->es[s] * j->es[s] : j->es[s];
        if (!(w[s].buf = malloc(w[s].cap)))
            goto oom;
    }
    size_t size = 0;
    for (size_t r = 0; r < R; r++) {
        uint64_t len = j->run_start[r + 1] - j->run_start[r];
        size_t c = len < cap ? (size_t)len : cap;
        for (int s = 0; s < S_COUNT; s++)
            if (j->run[s] && !(runs[r].buf[s] = malloc(c * j->es[s])))
                goto oom;
        runs[r].next = j->run_start[r];
        runs[r].end = j->run_start[r + 1];
        if (refill(j, &runs[r], c) != 0)
            goto done;
        heap[size].key = merge_key(j, runs[r].buf[S_KEYS]);
        heap[size].run = r;
        size++;
    }
    for (size_t i = size / 2; i-- > 0;)
        sift_down(heap, size, i);
    char label[64];
    snprintf(label, sizeof label, "merging %zu runs", R);
    progress_show(1, "%s", label);
    uint64_t done_count = 0;
    while (size > 0) {
        merge_run *r = &runs[heap[0].run];
        for (int s = 0; s < S_COUNT; s++) {
            if (!w[s].f)
                continue;
            size_t es = j->es[s];
            memcpy(w[s].buf + w[s].len, r->buf[s] + r->pos * es, es);
            w[s].len += es;
            if (w[s].len == w[s].cap && writer_flush(&w[s]) != 0)
                goto done;
        }
        r->pos++;
        if (r->pos == r->cnt) {
            if (r->next == r->end) {
                heap[0] = heap[--size];
                sift_down(heap, size, 0);
                goto next;
            }
            size_t c = r->end - r->next < cap ? (size_t)(r->end - r->next) : cap;
            if (refill(j, r, c) != 0)
                goto done;
        }
        heap[0].key = merge_key(j, r->buf[S_KEYS] + r->pos * j->es[S_KEYS]);
        sift_down(heap, size, 0);
    next:
        if ((++done_count & 0xffff) == 0)
            progress_show(0, "%s %.0f%%", label, percent(done_count, j->n));
    }
    for (int s = 0; s < S_COUNT; s++)
        if (w[s].f && writer_flush(&w[s]) != 0)
            goto done;
    rc = 0;
    goto done;
oom:
    msg("out of host memory for merging %zu runs", R);
done:
    if (runs)
        for (size_t r = 0; r < R; r++)
            for (int s = 0; s < S_COUNT; s++)
                free(runs[r].buf[s]);
    free(runs);
    free(heap);
    for (int s = 0; s < S_COUNT; s++)
        free(w[s].buf);
    return rc;
}

/* ------------------------------------------------------------- command */

static int run_job(sort_job *j)
{
    int rc = open_inputs(j);
    if (rc)
        return rc;
    if (create_outputs(j) != 0)
        return EXIT_RUNTIME;
    if (j->n > 0) {
        clsort_status s = clsort_context_create(&j->ctx, j->device);
        if (s != CLSORT_SUCCESS) {
            msg("%s", clsort_context_last_error(NULL));
            return EXIT_RUNTIME;
        }
        if (clsort_context_recovered(j->ctx))
            msg("note: a run before this one died inside the OpenCL driver (a damaged kernel "
                "cache?); the kernels are compiled afresh ('clsort cache --clear' empties the "
                "caches)");
        if (choose_chunk(j) != 0 || sort_phase(j) != 0)
            return EXIT_RUNTIME;
        if (j->nruns > 1 && merge_phase(j) != 0)
            return EXIT_RUNTIME;
        for (int k = 0; k < S_COUNT; k++)
            if (j->run[k]) { /* (unlinked: closing frees their space) */
                fclose(j->run[k]);
                j->run[k] = NULL;
            }
    }
    progress_show(1, "syncing");
    for (int s = 0; s < S_COUNT; s++)
        if (j->out[s].f && out_finish(&j->out[s]) != 0)
            return EXIT_RUNTIME;
    for (int s = 0; s < S_COUNT; s++)
        if (j->out[s].tmp && out_rename(&j->out[s]) != 0)
            return EXIT_RUNTIME;
    return 0;
}

int clsort_cmd_sort(int argc, char **argv)
{
    sort_job j;
    memset(&j, 0, sizeof j);
    int rc = parse_args(&j, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    memset(&progress, 0, sizeof progress);
    progress.on = isatty(STDERR_FILENO);
    progress.t0 = now_seconds();
    signals_install();
    rc = run_job(&j);
    progress_clear();
    for (int s = 0; s < S_COUNT; s++) {
        out_abort(&j.out[s]);
        if (j.run[s])
            fclose(j.run[s]);
    }
    if (j.keys.f)
        fclose(j.keys.f);
    if (j.vals.f)
        fclose(j.vals.f);
    release_chunk(&j);
    free(j.run_start);
    clsort_context_release(j.ctx);
    signals_restore();
    return rc;
}
