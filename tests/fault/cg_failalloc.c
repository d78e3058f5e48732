/*
 * libcg_failalloc.so: see cg_failalloc.h. The next allocator is found with
 * dlsym(RTLD_NEXT); while that lookup runs (it may allocate), requests are
 * served from a small static arena that is never freed.
 */
#define _GNU_SOURCE
#include "cg_failalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* the prototypes interposed here */
#include <string.h>

#define CG_EXPORT __attribute__((visibility("default")))

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef int (*memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);

static malloc_fn next_malloc;
static calloc_fn next_calloc;
static realloc_fn next_realloc;
static memalign_fn next_memalign;
static aligned_fn next_aligned;

static _Alignas(max_align_t) unsigned char boot[16384];
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (boot_used + n > sizeof boot) return NULL;
    void *p = boot + boot_used;
    boot_used += n;
    return p;
}

static int in_boot(const void *p)
{
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof boot;
}

static void *next_sym(const char *name)
{
    void *s = dlsym(RTLD_NEXT, name);
    return s;
}

static void resolve(void)
{
    if (next_malloc || resolving) return;
    resolving = 1;
    void *m = next_sym("malloc"), *c = next_sym("calloc"), *r = next_sym("realloc");
    void *pm = next_sym("posix_memalign"), *a = next_sym("aligned_alloc");
    memcpy(&next_calloc, &c, sizeof c);
    memcpy(&next_realloc, &r, sizeof r);
    memcpy(&next_memalign, &pm, sizeof pm);
    memcpy(&next_aligned, &a, sizeof a);
    memcpy(&next_malloc, &m, sizeof m);
    resolving = 0;
}

/* ---- scope: address ranges of the modules allocations may fail in ------- */

enum { MAX_RANGES = 64 };
static struct {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges;
static char scope_buf[256];

static int name_in_scope(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char tok[64];
    for (const char *s = scope_buf; *s;) {
        size_t n = strcspn(s, ",");
        if (n > 0 && n < sizeof tok) {
            memcpy(tok, s, n);
            tok[n] = '\0';
            if (strcmp(tok, "exe") == 0 ? path[0] == '\0' : strstr(base, tok) != NULL) return 1;
        }
        s += n;
        if (*s == ',') s++;
    }
    return 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    int *overflow = data;
    if (!name_in_scope(info->dlpi_name)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        if (nranges == MAX_RANGES) {
            *overflow = 1;
            return 1;
        }
        ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
        nranges++;
    }
    return 0;
}

static int caller_in_scope(const void *ret)
{
    uintptr_t a = (uintptr_t)ret;
    for (int i = 0; i < nranges; i++)
        if (a >= ranges[i].lo && a < ranges[i].hi) return 1;
    return 0;
}

/* ---- the counter -------------------------------------------------------- */

static atomic_long armed_nth; /* 0: off */
static atomic_long seen;
static atomic_int fired;
static atomic_int tracking; /* set by the first arm */

/* The blocks in-scope code allocated since then and nobody freed yet: a
 * set of addresses (open addressing, tombstones), so a free counts
 * whoever calls it (a tail-called free reports its caller's caller). */
enum { SET_SIZE = 1 << 16 };
#define SET_EMPTY ((uintptr_t)0)
#define SET_GONE ((uintptr_t)1)
static uintptr_t set[SET_SIZE];
static long set_count;
static atomic_flag set_lock = ATOMIC_FLAG_INIT;

static size_t set_slot(uintptr_t p)
{
    return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> 48) & (SET_SIZE - 1);
}

static void set_add(uintptr_t p)
{
    while (atomic_flag_test_and_set(&set_lock)) {
    }
    for (size_t i = set_slot(p), k = 0; k < SET_SIZE; i = (i + 1) & (SET_SIZE - 1), k++) {
        if (set[i] == SET_EMPTY || set[i] == SET_GONE) {
            set[i] = p;
            set_count++;
            break;
        }
    }
    atomic_flag_clear(&set_lock);
}

/* Nonzero when p was in the set (it is removed). */
static int set_remove(uintptr_t p)
{
    int found = 0;
    while (atomic_flag_test_and_set(&set_lock)) {
    }
    for (size_t i = set_slot(p), k = 0; k < SET_SIZE && set[i] != SET_EMPTY;
         i = (i + 1) & (SET_SIZE - 1), k++) {
        if (set[i] == p) {
            set[i] = SET_GONE;
            set_count--;
            found = 1;
            break;
        }
    }
    atomic_flag_clear(&set_lock);
    return found;
}

static void count_alloc(const void *p, const void *ret)
{
    if (p && atomic_load(&tracking) && caller_in_scope(ret)) set_add((uintptr_t)p);
}

/* Nonzero when this in-scope allocation is the one to fail. */
static int should_fail(const void *ret)
{
    if (atomic_load(&armed_nth) == 0 || !caller_in_scope(ret)) return 0;
    long n = atomic_fetch_add(&seen, 1) + 1;
    if (n != atomic_load(&armed_nth)) return 0;
    atomic_store(&fired, 1);
    return 1;
}

CG_EXPORT int cg_failalloc_arm(long nth, const char *scope)
{
    atomic_store(&armed_nth, 0);
    size_t n = strlen(scope);
    if (n >= sizeof scope_buf) return -1;
    memcpy(scope_buf, scope, n + 1);
    nranges = 0;
    int overflow = 0;
    dl_iterate_phdr(add_module, &overflow);
    atomic_store(&seen, 0);
    atomic_store(&fired, 0);
    atomic_store(&tracking, 1);
    atomic_store(&armed_nth, nth);
    return overflow ? -1 : 0;
}

CG_EXPORT long cg_failalloc_disarm(void)
{
    atomic_store(&armed_nth, 0);
    return atomic_load(&seen);
}

CG_EXPORT int cg_failalloc_fired(void)
{
    return atomic_load(&fired);
}

CG_EXPORT long cg_failalloc_live(void)
{
    while (atomic_flag_test_and_set(&set_lock)) {
    }
    long n = set_count;
    atomic_flag_clear(&set_lock);
    return n;
}

/* ---- the interposed allocator ------------------------------------------- */

CG_EXPORT void *malloc(size_t n)
{
    resolve();
    if (!next_malloc) return boot_alloc(n);
    if (should_fail(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = next_malloc(n);
    count_alloc(p, __builtin_return_address(0));
    return p;
}

CG_EXPORT void *calloc(size_t n, size_t size)
{
    resolve();
    if (!next_calloc) {
        if (size && n > SIZE_MAX / size) return NULL;
        void *p = boot_alloc(n * size); /* the arena is zeroed */
        return p;
    }
    if (should_fail(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = next_calloc(n, size);
    count_alloc(p, __builtin_return_address(0));
    return p;
}

CG_EXPORT void *realloc(void *p, size_t n)
{
    resolve();
    if (in_boot(p) || !next_realloc) {
        void *q = next_malloc ? next_malloc(n) : boot_alloc(n);
        if (q && p) {
            size_t room = (size_t)(boot + sizeof boot - (unsigned char *)p);
            memcpy(q, p, n < room ? n : room);
        }
        return q;
    }
    if (should_fail(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    void *q = next_realloc(p, n);
    if (q && p && set_remove((uintptr_t)p)) set_add((uintptr_t)q); /* moved */
    else if (q && !p) count_alloc(q, __builtin_return_address(0));
    return q;
}

CG_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    if (should_fail(__builtin_return_address(0))) return ENOMEM;
    int rc = next_memalign(out, align, n);
    if (rc == 0) count_alloc(*out, __builtin_return_address(0));
    return rc;
}

CG_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    if (should_fail(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = next_aligned(align, n);
    count_alloc(p, __builtin_return_address(0));
    return p;
}

/* Blocks of the boot arena are never given back; everything else goes to
 * the next allocator's free. */
typedef void (*free_fn)(void *);
static free_fn next_free;

CG_EXPORT void free(void *p)
{
    if (!p || in_boot(p)) return;
    if (!next_free) {
        if (resolving) return; /* freed by the lookup itself: kept, harmlessly */
        resolving = 1;
        void *f = dlsym(RTLD_NEXT, "free");
        memcpy(&next_free, &f, sizeof f);
        resolving = 0;
        if (!next_free) return;
    }
    if (atomic_load(&tracking)) set_remove((uintptr_t)p);
    next_free(p);
}
