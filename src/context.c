#define _POSIX_C_SOURCE 200809L
/* context.c - platforms and devices, choosing one, and the context object. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct device_entry {
    unsigned pi, di;
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
} device_entry;

/* Every device of every platform, in platform order. */
static clsort_status enumerate(device_entry *out, size_t cap, size_t *count)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    *count = 0;
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return clsort_fail(NULL, CLSORT_ERROR_NO_PLATFORM,
                           "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    if (err != CL_SUCCESS)
        return clsort_fail(NULL, err, "clGetPlatformIDs failed: %s", clsort_status_string(err));
    size_t n = 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd);
        if (err == CL_DEVICE_NOT_FOUND)
            continue;
        if (err != CL_SUCCESS)
            continue; /* a broken platform must not hide the others */
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES; d++) {
            if (n < cap) {
                out[n].pi = p;
                out[n].di = d;
                out[n].platform = plats[p];
                out[n].device = devs[d];
                clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof out[n].type, &out[n].type, NULL);
            }
            n++;
        }
    }
    *count = n < cap ? n : cap;
    return CLSORT_SUCCESS;
}

static void get_str(cl_device_id d, cl_device_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, size, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

static void get_pstr(cl_platform_id p, cl_platform_info what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, what, size, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return true;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

clsort_status clsort_query_facts(cl_platform_id platform, cl_device_id device,
                                 clsort_device_facts *f)
{
    memset(f, 0, sizeof *f);
    get_pstr(platform, CL_PLATFORM_NAME, f->platform_name, sizeof f->platform_name);
    get_pstr(platform, CL_PLATFORM_VERSION, f->platform_version, sizeof f->platform_version);
    get_str(device, CL_DEVICE_NAME, f->device_name, sizeof f->device_name);
    get_str(device, CL_DEVICE_VENDOR, f->device_vendor, sizeof f->device_vendor);
    get_str(device, CL_DRIVER_VERSION, f->driver_version, sizeof f->driver_version);
    get_str(device, CL_DEVICE_VERSION, f->device_version, sizeof f->device_version);
    cl_device_type type = 0;
    cl_uint cu = 0, align_bits = 0;
    cl_ulong lmem = 0, gmem = 0, amax = 0;
    size_t wg = 0;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof amax, &amax, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                              NULL);
    if (err != CL_SUCCESS)
        return clsort_fail(NULL, err, "clGetDeviceInfo failed: %s", clsort_status_string(err));
    f->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    f->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    f->compute_units = cu ? cu : 1;
    f->local_mem_bytes = lmem;
    f->global_mem_bytes = gmem;
    f->max_alloc_bytes = amax;
    f->max_work_group_size = wg ? wg : 1;
    f->mem_base_align_bytes = align_bits / 8 ? align_bits / 8 : 1;
    if (contains_nocase(f->platform_name, "NVIDIA"))
        f->vendor = CLSORT_VENDOR_NVIDIA;
    else if (contains_nocase(f->platform_name, "Portable Computing Language") ||
             contains_nocase(f->platform_name, "pocl"))
        f->vendor = CLSORT_VENDOR_POCL;
    else if (contains_nocase(f->platform_name, "AMD") ||
             contains_nocase(f->device_vendor, "Advanced Micro Devices"))
        f->vendor = CLSORT_VENDOR_AMD;
    else if (contains_nocase(f->platform_name, "Intel"))
        f->vendor = CLSORT_VENDOR_INTEL;
    else
        f->vendor = CLSORT_VENDOR_OTHER;
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) ==
        CL_SUCCESS)
        f->host_unified = unified == CL_TRUE;
    f->nv_cc_major = 0;
    if (f->vendor == CLSORT_VENDOR_NVIDIA) { /* cl_nv_device_attribute_query */
        const cl_device_info cc_major_nv = 0x4000; /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
        cl_uint major = 0;
        if (clGetDeviceInfo(device, cc_major_nv, sizeof major, &major, NULL) == CL_SUCCESS)
            f->nv_cc_major = major;
    }
    return CLSORT_SUCCESS;
}

/* Index of the device a NULL selector picks (first GPU, else first CPU,
 * else the first device), or -1. */
static long default_index(const device_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (e[i].type & CL_DEVICE_TYPE_GPU)
            return (long)i;
    for (size_t i = 0; i < n; i++)
        if (e[i].type & CL_DEVICE_TYPE_CPU)
            return (long)i;
    return n ? 0 : -1;
}

static long find_device(const device_entry *e, size_t n, const char *sel);

/* Index of the device clsort_context_create(NULL) picks: $CLSORT_DEVICE's,
 * else the default; -1 when $CLSORT_DEVICE matches none. */
static long selected_index(const device_entry *e, size_t n)
{
    const char *env = getenv("CLSORT_DEVICE");
    return env && env[0] ? find_device(e, n, env) : default_index(e, n);
}

static void describe(const device_entry *e, char *buf, size_t size)
{
    char dname[128], pname[128];
    get_str(e->device, CL_DEVICE_NAME, dname, sizeof dname);
    get_pstr(e->platform, CL_PLATFORM_NAME, pname, sizeof pname);
    snprintf(buf, size, "%u:%u  %s  [%s, %s]", e->pi, e->di, dname, pname,
             (e->type & CL_DEVICE_TYPE_GPU) ? "GPU" : (e->type & CL_DEVICE_TYPE_CPU) ? "CPU" : "other");
}

static long find_device(const device_entry *e, size_t n, const char *sel)
{
    if (sel == NULL || sel[0] == '\0')
        return default_index(e, n);
    if (!strcmp(sel, "default"))
        return default_index(e, n);
    bool want_gpu = false, want_cpu = false;
    if (contains_nocase(sel, "gpu") && strlen(sel) == 3)
        want_gpu = true;
    if (contains_nocase(sel, "cpu") && strlen(sel) == 3)
        want_cpu = true;
    if (want_gpu || want_cpu) {
        for (size_t i = 0; i < n; i++)
            if ((want_gpu && (e[i].type & CL_DEVICE_TYPE_GPU)) ||
                (want_cpu && (e[i].type & CL_DEVICE_TYPE_CPU)))
                return (long)i;
        return -1;
    }
    unsigned p, d;
    char tail;
    if (sscanf(sel, "%u:%u%c", &p, &d, &tail) == 2) {
        for (size_t i = 0; i < n; i++)
            if (e[i].pi == p && e[i].di == d)
                return (long)i;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char dname[128], pname[128];
        get_str(e[i].device, CL_DEVICE_NAME, dname, sizeof dname);
        get_pstr(e[i].platform, CL_PLATFORM_NAME, pname, sizeof pname);
        if (contains_nocase(dname, sel) || contains_nocase(pname, sel))
            return (long)i;
    }
    return -1;
}

clsort_status clsort_device_list(clsort_device_info *devices, size_t capacity, size_t *count)
{
    if (!count || (capacity > 0 && !devices))
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_device_list: count is NULL, or devices is NULL with capacity > 0");
    device_entry e[MAX_DEVICES];
    size_t n = 0;
    *count = 0;
    CLSORT_TRY(enumerate(e, MAX_DEVICES, &n));
    long def = selected_index(e, n);
    for (size_t i = 0; i < n && i < capacity; i++) {
        clsort_device_facts f;
        CLSORT_TRY(clsort_query_facts(e[i].platform, e[i].device, &f));
        clsort_device_info *o = &devices[i];
        memset(o, 0, sizeof *o);
        o->platform_index = e[i].pi;
        o->device_index = e[i].di;
        snprintf(o->platform_name, sizeof o->platform_name, "%s", f.platform_name);
        snprintf(o->platform_version, sizeof o->platform_version, "%s", f.platform_version);
        snprintf(o->device_name, sizeof o->device_name, "%s", f.device_name);
        snprintf(o->vendor, sizeof o->vendor, "%s", f.device_vendor);
        snprintf(o->driver_version, sizeof o->driver_version, "%s", f.driver_version);
        snprintf(o->device_version, sizeof o->device_version, "%s", f.device_version);
        o->is_gpu = f.is_gpu;
        o->is_cpu = f.is_cpu;
        o->is_default = (long)i == def;
        o->global_mem_bytes = f.global_mem_bytes;
        o->max_alloc_bytes = f.max_alloc_bytes;
        o->local_mem_bytes = f.local_mem_bytes;
        o->compute_units = f.compute_units;
        o->max_work_group_size = (unsigned)f.max_work_group_size;
        cl_uint mhz = 0;
        clGetDeviceInfo(e[i].device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
        o->max_clock_mhz = mhz;
    }
    *count = n;
    return CLSORT_SUCCESS;
}

static bool config_reserved_zero(const clsort_context_config *c)
{
    for (size_t i = 0; i < sizeof c->reserved / sizeof c->reserved[0]; i++)
        if (c->reserved[i])
            return false;
    return true;
}

/* Settings shared by both ways of creating a context: facts, cache folder,
 * tuning. On failure the message is in ctx. */
/* A byte count with an optional K, M or G suffix (powers of two); false
 * when malformed. */
static bool parse_bytes(const char *s, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || s[0] == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end != '\0' || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* How host arrays travel: the memory cap and $CLSORT_HOST_PATH,
 * $CLSORT_HOST_THREADS and $CLSORT_HOST_CHUNK (for measurements). */
static clsort_status host_settings(clsort_context *ctx, const clsort_context_config *cfg)
{
    uint64_t cap = cfg ? cfg->device_memory : 0;
    const char *e = getenv("CLSORT_DEVICE_MEMORY");
    if (cap == 0 && e && e[0] && !parse_bytes(e, &cap))
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                           "CLSORT_DEVICE_MEMORY='%s' is not a byte count (e.g. 512M)", e);
    ctx->mem_cap = cap && cap < ctx->facts.global_mem_bytes ? cap : ctx->facts.global_mem_bytes;
    ctx->host_path = CLSORT_HOST_AUTO;
    if ((e = getenv("CLSORT_HOST_PATH")) && e[0]) {
        static const char *const names[] = {"auto", "copy", "staged", "mapped"};
        unsigned i = 0;
        while (i < 4 && strcmp(e, names[i]))
            i++;
        if (i == 4)
            return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                               "CLSORT_HOST_PATH='%s': expected auto, copy, staged or mapped", e);
        ctx->host_path = i;
    }
    uint64_t v = 0;
    if ((e = getenv("CLSORT_HOST_THREADS")) && e[0]) {
        if (!parse_bytes(e, &v) || v < 1 || v > CLSORT_HOST_MAX_THREADS)
            return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                               "CLSORT_HOST_THREADS='%s': expected 1 to %d", e,
                               CLSORT_HOST_MAX_THREADS);
        ctx->host_threads = (unsigned)v;
    }
    if ((e = getenv("CLSORT_HOST_CHUNK")) && e[0]) {
        if (!parse_bytes(e, &v) || v < 4096 || v > ((uint64_t)1 << 30))
            return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                               "CLSORT_HOST_CHUNK='%s': expected 4K to 1G", e);
        ctx->host_chunk = (size_t)v / 4096 * 4096;
    }
    /* $CLSORT_HOST_TIER=0: no host tier (tier.c) in this process's contexts */
    if ((e = getenv("CLSORT_HOST_TIER")) && e[0]) {
        if (strcmp(e, "0") && strcmp(e, "1"))
            return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                               "CLSORT_HOST_TIER='%s': expected 0 (off) or 1 (as tuned)", e);
        ctx->tier_off = e[0] == '0';
    }
    /* below this the driver's own copy of the caller's pages is as fast */
    ctx->stage_min = (size_t)1 << 20;
    if (ctx->host_chunk && ctx->host_chunk < ctx->stage_min)
        ctx->stage_min = ctx->host_chunk;
    return CLSORT_SUCCESS;
}

static clsort_status finish_setup(clsort_context *ctx, const clsort_context_config *cfg)
{
    CLSORT_TRY(clsort_query_facts(ctx->platform, ctx->device, &ctx->facts));
    const char *dir = cfg ? cfg->cache_dir : NULL;
    if (dir == NULL)
        ctx->cache_dir = clsort_cache_default_dir();
    else if (dir[0] != '\0') {
        ctx->cache_dir = strdup(dir);
        if (!ctx->cache_dir)
            return clsort_fail(NULL, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    /* PoCL keeps the kernels it compiles in its own cache (unless
     * POCL_KERNEL_CACHE=0), and asking it for a program binary compiles
     * every kernel of the program for a generic work-group size: seconds
     * per program, spent again on each load. There the disk cache holds
     * only the saved tuning. */
    const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
    ctx->store_binaries = ctx->cache_dir != NULL &&
                          !(ctx->facts.vendor == CLSORT_VENDOR_POCL &&
                            !(pocl_cache && !strcmp(pocl_cache, "0")));
    clsort_guard_setup(ctx);
    clsort_tuning_for_device(&ctx->facts, &ctx->tuned);
    /* A tuning saved by `clsort tune` for this device and driver. */
    if (ctx->cache_dir) {
        char name[64];
        clsort_tuning_file_name(ctx, name, sizeof name);
        char *text = clsort_cache_read_text(ctx->cache_dir, name);
        if (text) {
            clsort_tuning t = ctx->tuned;
            char err[256];
            if (clsort_tuning_apply_saved(&t, text, err, sizeof err) == CLSORT_SUCCESS &&
                clsort_tuning_check(&t, &ctx->facts, err, sizeof err) == CLSORT_SUCCESS)
                ctx->tuned = t; /* a bad file is ignored: the table still works */
            free(text);
        }
    }
    ctx->tuning = ctx->tuned;
    CLSORT_TRY(host_settings(ctx, cfg));
    const char *extra = getenv("CLSORT_BUILD_OPTIONS");
    if (extra && extra[0] && !(ctx->extra_options = strdup(extra)))
        return clsort_fail(NULL, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    const char *spec = cfg && cfg->tuning ? cfg->tuning : getenv("CLSORT_TUNING");
    if (spec && spec[0]) {
        char err[512];
        clsort_tuning t = ctx->tuning;
        clsort_status s = clsort_tuning_apply(&t, spec, err, sizeof err);
        if (s == CLSORT_SUCCESS)
            s = clsort_tuning_check(&t, &ctx->facts, err, sizeof err);
        if (s != CLSORT_SUCCESS)
            return clsort_fail(NULL, s, "tuning '%s': %s", spec, err);
        ctx->tuning = t;
    }
    return CLSORT_SUCCESS;
}

/* The last step of both ways of creating a context: on success *out is the
 * context, else it is released and creation fails with finish_setup's
 * message. */
static clsort_status finish_or_release(clsort_context *ctx, const clsort_context_config *cfg,
                                       clsort_context **out)
{
    clsort_status s = finish_setup(ctx, cfg);
    if (s != CLSORT_SUCCESS) {
        char keep[4096];
        snprintf(keep, sizeof keep, "%s", clsort_context_last_error(NULL));
        clsort_context_release(ctx);
        return clsort_fail(NULL, s, "%s", keep);
    }
    *out = ctx;
    return CLSORT_SUCCESS;
}

void clsort_tuning_file_name(const clsort_context *ctx, char *name, size_t size)
{
    char key[1024];
    snprintf(key, sizeof key, "%s|%s|%s|%s", ctx->facts.platform_name, ctx->facts.device_name,
             ctx->facts.driver_version, CLSORT_VERSION_STRING);
    snprintf(name, size, "tuning-%016llx.txt",
             (unsigned long long)clsort_hash64(key, strlen(key), 0));
}

static clsort_context *new_context(void)
{
    clsort_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        clsort_fail(NULL, CLSORT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    return ctx;
}

clsort_status clsort_context_create_with_config(clsort_context **out,
                                                const clsort_context_config *cfg)
{
    if (!out)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_context_create: ctx is NULL");
    *out = NULL;
    clsort_fail(NULL, CLSORT_SUCCESS, "%s", "");
    if (cfg && !config_reserved_zero(cfg))
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_OPTIONS,
                           "clsort_context_config.reserved must be zero");
    device_entry e[MAX_DEVICES];
    size_t n = 0;
    CLSORT_TRY(enumerate(e, MAX_DEVICES, &n));
    const char *sel = cfg ? cfg->device : NULL;
    if (sel == NULL) {
        const char *env = getenv("CLSORT_DEVICE");
        if (env && env[0])
            sel = env;
    }
    long idx = find_device(e, n, sel);
    if (idx < 0) {
        char msg[4096];
        size_t len = (size_t)snprintf(msg, sizeof msg, "no OpenCL device matches '%s'; devices present:",
                                      sel ? sel : "(default)");
        for (size_t i = 0; i < n && len < sizeof msg; i++) {
            char line[400];
            describe(&e[i], line, sizeof line);
            len += (size_t)snprintf(msg + len, sizeof msg - len, "\n  %s", line);
        }
        if (n == 0 && len < sizeof msg)
            snprintf(msg + len, sizeof msg - len, " none");
        return clsort_fail(NULL, CLSORT_ERROR_DEVICE_NOT_FOUND, "%s", msg);
    }
    clsort_context *ctx = new_context();
    if (!ctx)
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    ctx->platform = e[idx].platform;
    ctx->device = e[idx].device;
    ctx->owns_cl = true;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0};
    cl_int err = CL_SUCCESS;
    ctx->cl = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        ctx->cl = NULL;
        clsort_context_release(ctx);
        return clsort_fail(NULL, err, "clCreateContext failed: %s", clsort_status_string(err));
    }
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device, 0, &err);
    if (err != CL_SUCCESS) {
        ctx->queue = NULL;
        clsort_context_release(ctx);
        return clsort_fail(NULL, err, "clCreateCommandQueue failed: %s", clsort_status_string(err));
    }
    return finish_or_release(ctx, cfg, out);
}

clsort_status clsort_context_create(clsort_context **ctx, const char *device)
{
    clsort_context_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device = device;
    return clsort_context_create_with_config(ctx, &cfg);
}

clsort_status clsort_context_create_from_queue(clsort_context **out, cl_command_queue queue,
                                               const clsort_context_config *cfg)
{
    if (!out)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_context_create_from_queue: ctx is NULL");
    *out = NULL;
    clsort_fail(NULL, CLSORT_SUCCESS, "%s", "");
    if (!queue)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_QUEUE,
                           "clsort_context_create_from_queue: queue is NULL");
    if (cfg && !config_reserved_zero(cfg))
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_OPTIONS,
                           "clsort_context_config.reserved must be zero");
    cl_context cl = NULL;
    cl_device_id dev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_QUEUE,
                           "the queue could not be queried (%s)", clsort_status_string(err));
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clsort_fail(NULL, CLSORT_ERROR_INVALID_QUEUE,
                           "clsort needs an in-order command queue");
    cl_platform_id plat = NULL;
    err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (err != CL_SUCCESS)
        return clsort_fail(NULL, err, "clGetDeviceInfo failed: %s", clsort_status_string(err));
    clsort_context *ctx = new_context();
    if (!ctx)
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    ctx->platform = plat;
    ctx->device = dev;
    ctx->cl = cl;
    ctx->queue = queue;
    clRetainContext(cl);
    clRetainCommandQueue(queue);
    ctx->owns_cl = true; /* our references, released on release */
    return finish_or_release(ctx, cfg, out);
}

void clsort_context_release(clsort_context *ctx)
{
    if (!ctx)
        return;
    clsort_tier_release(ctx);
    if (ctx->queue)
        clFinish(ctx->queue);
    clsort_programs_release(ctx);
    clsort_guard_release(ctx);
    clsort_pool_release(ctx);
    clsort_stage_release(ctx);
    if (ctx->aux_queue)
        clReleaseCommandQueue(ctx->aux_queue);
    if (ctx->owns_cl) {
        if (ctx->queue)
            clReleaseCommandQueue(ctx->queue);
        if (ctx->cl)
            clReleaseContext(ctx->cl);
    }
    clsort_profile_clear(ctx);
    free(ctx->prof);
    free(ctx->build_log);
    free(ctx->extra_options);
    free(ctx->cache_dir);
    free(ctx->error);
    free(ctx);
}

cl_command_queue clsort_context_queue(const clsort_context *ctx) { return ctx ? ctx->queue : NULL; }
cl_context clsort_context_cl_context(const clsort_context *ctx) { return ctx ? ctx->cl : NULL; }
cl_device_id clsort_context_device(const clsort_context *ctx) { return ctx ? ctx->device : NULL; }

clsort_status clsort_context_device_info(const clsort_context *cctx, clsort_device_info *info)
{
    clsort_context *ctx = (clsort_context *)cctx;
    if (!ctx || !info)
        return clsort_fail(ctx, CLSORT_ERROR_INVALID_ARGUMENT,
                           "clsort_context_device_info: ctx or info is NULL");
    memset(info, 0, sizeof *info);
    const clsort_device_facts *f = &ctx->facts;
    device_entry e[MAX_DEVICES];
    size_t n = 0;
    if (enumerate(e, MAX_DEVICES, &n) == CLSORT_SUCCESS) {
        long def = selected_index(e, n);
        for (size_t i = 0; i < n; i++)
            if (e[i].device == ctx->device) {
                info->platform_index = e[i].pi;
                info->device_index = e[i].di;
                info->is_default = (long)i == def;
            }
    }
    snprintf(info->platform_name, sizeof info->platform_name, "%s", f->platform_name);
    snprintf(info->platform_version, sizeof info->platform_version, "%s", f->platform_version);
    snprintf(info->device_name, sizeof info->device_name, "%s", f->device_name);
    snprintf(info->vendor, sizeof info->vendor, "%s", f->device_vendor);
    snprintf(info->driver_version, sizeof info->driver_version, "%s", f->driver_version);
    snprintf(info->device_version, sizeof info->device_version, "%s", f->device_version);
    info->is_gpu = f->is_gpu;
    info->is_cpu = f->is_cpu;
    info->global_mem_bytes = f->global_mem_bytes;
    info->max_alloc_bytes = f->max_alloc_bytes;
    info->local_mem_bytes = f->local_mem_bytes;
    info->compute_units = f->compute_units;
    info->max_work_group_size = (unsigned)f->max_work_group_size;
    cl_uint mhz = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    info->max_clock_mhz = mhz;
    return CLSORT_SUCCESS;
}
