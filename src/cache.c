/* cache.c - compiled programs on disk.
 *
 * One file per program: <dir>/<hash of key>.clbin, where the key (built by
 * program.c) names the library version, the kernel sources' SHA-256, the
 * build options, the platform, the device and the driver. The file holds
 *   magic "CLSORTPB", format version (u32), key length (u32),
 *   binary length (u64), checksum of key and binary (u64), key, binary.
 * A file that is short, has another key, or fails its checksum is removed
 * and the program rebuilt: the cache can make a sort slower, never fail.
 * Files are written to a temporary name and renamed, so a reader never sees
 * a half-written one.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAGIC "CLSORTPB"
#define FORMAT 1u
#define MAX_BINARY (1u << 30)

uint64_t clsort_hash64(const void *data, size_t len, uint64_t seed)
{
    /* FNV-1a, 64 bits, then a final mix (the cache compares full keys too). */
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

char *clsort_cache_default_dir(void)
{
    const char *env = getenv("CLSORT_CACHE_DIR");
    if (env)
        return env[0] ? strdup(env) : NULL;
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0])
        return join(xdg, "clsort");
    const char *home = getenv("HOME");
    if (home && home[0])
        return join(home, ".cache/clsort");
    return NULL;
}

bool clsort_cache_make_dirs(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return false;
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    bool ok = mkdir(p, 0755) == 0 || errno == EEXIST;
    free(p);
    return ok;
}

static char *entry_path(const char *dir, const char *key)
{
    char name[64];
    snprintf(name, sizeof name, "%016llx.clbin",
             (unsigned long long)clsort_hash64(key, strlen(key), 0));
    return join(dir, name);
}

static uint64_t checksum(const char *key, const unsigned char *bin, size_t len)
{
    uint64_t h = clsort_hash64(key, strlen(key), 0x5eed);
    return clsort_hash64(bin, len, h);
}

bool clsort_cache_load(const char *dir, const char *key, unsigned char **bin, size_t *len)
{
    *bin = NULL;
    *len = 0;
    if (!dir)
        return false;
    char *path = entry_path(dir, key);
    if (!path)
        return false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        free(path);
        return false;
    }
    bool ok = false;
    char magic[8];
    uint32_t fmt = 0, klen = 0;
    uint64_t blen = 0, sum = 0;
    char *fkey = NULL;
    unsigned char *data = NULL;
    if (fread(magic, 1, 8, f) == 8 && memcmp(magic, MAGIC, 8) == 0 &&
        fread(&fmt, sizeof fmt, 1, f) == 1 && fmt == FORMAT && fread(&klen, sizeof klen, 1, f) == 1 &&
        klen == strlen(key) && fread(&blen, sizeof blen, 1, f) == 1 && blen > 0 &&
        blen <= MAX_BINARY && fread(&sum, sizeof sum, 1, f) == 1) {
        fkey = malloc(klen + 1);
        data = malloc(blen);
        if (fkey && data && fread(fkey, 1, klen, f) == klen && fread(data, 1, blen, f) == blen) {
            fkey[klen] = '\0';
            char extra;
            ok = strcmp(fkey, key) == 0 && fread(&extra, 1, 1, f) == 0 &&
                 checksum(key, data, blen) == sum;
        }
    }
    fclose(f);
    free(fkey);
    if (!ok) {
        free(data);
        remove(path); /* damaged or foreign: rebuild and rewrite */
        free(path);
        return false;
    }
    free(path);
    *bin = data;
    *len = blen;
    return true;
}

static bool write_atomically(const char *dir, const char *path, const void *parts[],
                             const size_t sizes[], size_t nparts)
{
    if (!clsort_cache_make_dirs(dir))
        return false;
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp)
        return false;
    static _Atomic unsigned serial;
    snprintf(tmp, plen + 32, "%s.tmp%ld.%u", path, (long)getpid(), serial++);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(tmp);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < nparts && ok; i++)
        ok = fwrite(parts[i], 1, sizes[i], f) == sizes[i];
    ok = (fclose(f) == 0) && ok;
    if (ok)
        ok = rename(tmp, path) == 0;
    if (!ok)
        remove(tmp);
    free(tmp);
    return ok;
}

void clsort_cache_store(const char *dir, const char *key, const unsigned char *bin, size_t len)
{
    if (!dir || !bin || len == 0 || len > MAX_BINARY)
        return;
    char *path = entry_path(dir, key);
    if (!path)
        return;
    uint32_t fmt = FORMAT, klen = (uint32_t)strlen(key);
    uint64_t blen = len, sum = checksum(key, bin, len);
    const void *parts[] = {MAGIC, &fmt, &klen, &blen, &sum, key, bin};
    const size_t sizes[] = {8, sizeof fmt, sizeof klen, sizeof blen, sizeof sum, klen, len};
    write_atomically(dir, path, parts, sizes, 7); /* failure only costs a rebuild */
    free(path);
}

void clsort_cache_remove(const char *dir, const char *key)
{
    if (!dir)
        return;
    char *path = entry_path(dir, key);
    if (path)
        remove(path);
    free(path);
}

char *clsort_cache_read_text(const char *dir, const char *name)
{
    if (!dir)
        return NULL;
    char *path = join(dir, name);
    if (!path)
        return NULL;
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return NULL;
    char *buf = malloc(4096);
    size_t n = buf ? fread(buf, 1, 4095, f) : 0;
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    /* one line: cut at the first newline */
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    return buf;
}

bool clsort_cache_write_text(const char *dir, const char *name, const char *text)
{
    if (!dir)
        return false;
    char *path = join(dir, name);
    if (!path)
        return false;
    const void *parts[] = {text, "\n"};
    const size_t sizes[] = {strlen(text), 1};
    bool ok = write_atomically(dir, path, parts, sizes, 2);
    free(path);
    return ok;
}

/* ------------------------------------------------------------- clearing */

/* PoCL's kernel cache folder, as PoCL finds it (allocated; NULL: none). */
static char *driver_cache_dir(void)
{
    const char *env = getenv("POCL_CACHE_DIR");
    if (env && env[0])
        return strdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0])
        return join(xdg, "pocl/kcache");
    const char *home = getenv("HOME");
    if (home && home[0])
        return join(home, ".cache/pocl/kcache");
    return NULL;
}

/* Removes what dir holds (the folder stays): every entry when all, else
 * clsort's compiled programs and leftovers; the first failure's path and
 * errno go to *bad / *bad_errno. */
static void remove_contents(const char *dir, bool all, bool salt, char **bad, int *bad_errno)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno != ENOENT && !*bad) {
            *bad = strdup(dir);
            *bad_errno = errno;
        }
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        /* programs, the guard's marks, the host tier's warm marks (tier.c) */
        bool mine = strstr(n, ".clbin") || !strncmp(n, "busy-", 5) ||
                    !strncmp(n, "tmp-busy-", 9) || !strncmp(n, "warm-", 5) ||
                    (salt && !strcmp(n, "driver-salt.txt"));
        if (!all && !mine)
            continue; /* saved tunings stay */
        char *path = join(dir, n);
        if (!path)
            continue;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            remove_contents(path, true, true, bad, bad_errno);
            if (rmdir(path) != 0 && !*bad) {
                *bad = strdup(path);
                *bad_errno = errno;
            }
        } else if (unlink(path) != 0 && errno != ENOENT && !*bad) {
            *bad = strdup(path);
            *bad_errno = errno;
        }
        free(path);
    }
    closedir(d);
}

clsort_status clsort_cache_clear(const char *cache_dir, int driver_cache)
{
    char *bad = NULL;
    int bad_errno = 0;
    char *dir = cache_dir ? (cache_dir[0] ? strdup(cache_dir) : NULL) : clsort_cache_default_dir();
    if (dir)
        remove_contents(dir, false, driver_cache != 0, &bad, &bad_errno);
    free(dir);
    if (driver_cache) {
        char *kc = driver_cache_dir();
        if (kc)
            remove_contents(kc, true, true, &bad, &bad_errno);
        free(kc);
    }
    if (bad) {
        clsort_status s = clsort_fail(NULL, CLSORT_ERROR_IO, "cannot remove %s: %s", bad,
                                      strerror(bad_errno));
        free(bad);
        return s;
    }
    clsort_fail(NULL, CLSORT_SUCCESS, "%s", "");
    return CLSORT_SUCCESS;
}
