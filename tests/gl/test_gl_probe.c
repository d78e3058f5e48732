/*
 * The current-context probe with no GL library loaded: asking whether a
 * context is current must not search the library path on every call (that
 * costs about 1 ms: dlopen of libGLX/libGL/libEGL with RTLD_NOLOAD reads
 * ld.so.cache and opens files each time it finds nothing). The probe looks
 * again only after the process loaded a library. Counted by interposing
 * dlopen in this executable (cg_gl is linked statically into it). No GL
 * context is ever made here, so it runs on every machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cg_gl.h"

static int g_dlopen_calls;

void *dlopen(const char *file, int mode)
{
    static void *(*real)(const char *, int);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&real, &sym, sizeof real);
    }
    g_dlopen_calls++;
    return real(file, mode);
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed (dlopen calls %d)\n", __FILE__, __LINE__, \
                    #cond, g_dlopen_calls);                                              \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main(void)
{
    if (dlopen("libGLX.so.0", RTLD_LAZY | RTLD_NOLOAD) ||
        dlopen("libGL.so.1", RTLD_LAZY | RTLD_NOLOAD) ||
        dlopen("libEGL.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
        fprintf(stderr, "a GL library is loaded at start: this test needs none\n");
        return 1;
    }
    int start = g_dlopen_calls;
    CHECK(cg_gl_current_context(NULL) == CG_E_NO_CONTEXT);
    int after_first = g_dlopen_calls;
    for (int i = 0; i < 1000; i++) CHECK(cg_gl_current_context(NULL) == CG_E_NO_CONTEXT);
    /* 1000 calls, no library loaded in between: no lookup at all. */
    CHECK(g_dlopen_calls == after_first);

    /* A library appears: looked up again, once. libEGL when installed (the
     * probe then finds eglGetCurrentContext and no context), else any. */
    void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) lib = dlopen("libm.so.6", RTLD_NOW);
    CHECK(lib != NULL);
    int loaded = g_dlopen_calls;
    CHECK(cg_gl_current_context(NULL) == CG_E_NO_CONTEXT);
    CHECK(g_dlopen_calls > loaded);
    int after_reload = g_dlopen_calls;
    for (int i = 0; i < 1000; i++) CHECK(cg_gl_current_context(NULL) == CG_E_NO_CONTEXT);
    CHECK(g_dlopen_calls == after_reload);
    printf("context probe: %d dlopen calls for the first probe, %d after a library load, "
           "none for the 2000 others\n", after_first - start, after_reload - loaded);
    return 0;
}
