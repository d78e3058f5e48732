/*
 * cg_failalloc.h - test-only allocation fault injection (libcg_failalloc.so,
 * loaded with LD_PRELOAD). It interposes malloc, calloc, realloc,
 * posix_memalign and aligned_alloc, forwards them to the next allocator
 * (libc's, or the sanitizer's under ASan) and can fail one of them: the Nth
 * allocation, counted from cg_failalloc_arm, made from code in the modules
 * of the scope (substrings of their file names, comma separated; "exe" is
 * the main program). Code outside the scope (the GL driver, the JVM) never
 * sees a failure, so a sweep tests our handling, not theirs.
 *
 * Tests find these functions with dlsym(RTLD_DEFAULT, ...): the library is
 * preloaded, never linked. Not thread-aware beyond atomics: arm, run one
 * call on one thread, then ask.
 */
#ifndef CG_FAILALLOC_H
#define CG_FAILALLOC_H

/* Fail the nth (1-based) in-scope allocation from now; later ones succeed.
 * scope: e.g. "exe,libpng,libz". Returns 0, or -1 when the scope names more
 * modules than are tracked. */
int cg_failalloc_arm(long nth, const char *scope);

/* Stop failing. Returns the number of in-scope allocations seen since
 * cg_failalloc_arm (so a caller knows whether the nth was reached). */
long cg_failalloc_disarm(void);

/* Nonzero once the armed failure has happened. */
int cg_failalloc_fired(void);

/* Blocks allocated by in-scope code since the first arm and not freed yet
 * (by anyone; counted after disarm too): back to its earlier value once
 * everything allocated in between has been freed. An nth of 0 starts the
 * count (and sets the scope) without failing anything. */
long cg_failalloc_live(void);

typedef int (*cg_failalloc_arm_fn)(long, const char *);
typedef long (*cg_failalloc_disarm_fn)(void);
typedef int (*cg_failalloc_fired_fn)(void);
typedef long (*cg_failalloc_live_fn)(void);

/* The preloaded library's functions, for a test (dlfcn.h, _GNU_SOURCE). */
typedef struct cg_failalloc_api {
    cg_failalloc_arm_fn arm;
    cg_failalloc_disarm_fn disarm;
    cg_failalloc_fired_fn fired;
    cg_failalloc_live_fn live;
} cg_failalloc_api;

#ifdef RTLD_DEFAULT
/* A sweep's check: message and exit(1) (stdio.h, stdlib.h). */
#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
            exit(1);                                                     \
        }                                                                \
    } while (0)

/* 0 when libcg_failalloc.so is preloaded and every function was found. */
static inline int cg_failalloc_load(cg_failalloc_api *a)
{
    void *s[4] = {dlsym(RTLD_DEFAULT, "cg_failalloc_arm"), dlsym(RTLD_DEFAULT, "cg_failalloc_disarm"),
                  dlsym(RTLD_DEFAULT, "cg_failalloc_fired"), dlsym(RTLD_DEFAULT, "cg_failalloc_live")};
    if (!s[0] || !s[1] || !s[2] || !s[3]) return -1;
    memcpy(&a->arm, &s[0], sizeof s[0]);
    memcpy(&a->disarm, &s[1], sizeof s[1]);
    memcpy(&a->fired, &s[2], sizeof s[2]);
    memcpy(&a->live, &s[3], sizeof s[3]);
    return 0;
}
#endif

#endif /* CG_FAILALLOC_H */
