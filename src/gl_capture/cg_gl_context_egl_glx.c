/*
 * cg_gl_context_egl_glx.c - Linux (and other EGL/GLX systems): the current
 * EGL or GLX context, found without loading either library, and saving and
 * restoring the thread's binding. GL itself goes through libepoxy
 * (api/epoxy/cg_gl_api.h); Windows' side is cg_gl_wgl.c.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_api.h"
#include "cg_gl_check.h"

/* An EGL or GLX context can only be current when the process already loaded
 * that API's library, so each is looked up with RTLD_NOLOAD: libepoxy's own
 * dispatch would load libEGL, or abort in a process without libGL. A dlopen
 * that finds nothing searches the library path (about 1 ms, four openat), so
 * the lookup runs once, and again only when the process has loaded a library
 * since the last one found nothing: the loader's count of loads (dlpi_adds)
 * is the cheap check. The handle found is kept open, so the function stays
 * valid. */
typedef void *(*cg_get_current_fn)(void);

typedef struct cg_ctx_probe {
    const char *libs[2];
    const char *sym;
    _Atomic(cg_get_current_fn) fn;
    _Atomic(unsigned long long) adds_tried; /* dlpi_adds at the last miss; 0: none */
} cg_ctx_probe;

/* fn and adds_tried start zeroed (static storage): clang refuses NULL for an _Atomic
 * function pointer in a constant initializer. */
static cg_ctx_probe g_egl_probe = {.libs = {"libEGL.so.1", NULL}, .sym = "eglGetCurrentContext"};
static cg_ctx_probe g_glx_probe = {.libs = {"libGLX.so.0", "libGL.so.1"},
                                   .sym = "glXGetCurrentContext"};

static int cg_dl_adds_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1; /* the count is the same in every entry: stop at the first */
}

static cg_get_current_fn cg_probe_resolve(const cg_ctx_probe *p)
{
    for (size_t i = 0; i < sizeof p->libs / sizeof p->libs[0] && p->libs[i]; i++) {
        void *h = dlopen(p->libs[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *sym = dlsym(h, p->sym);
        if (sym) {
            cg_get_current_fn fn;
            memcpy(&fn, &sym, sizeof fn); /* object -> function pointer, C11-clean */
            return fn;                    /* h stays open: fn must not be unloaded */
        }
        dlclose(h);
    }
    return NULL;
}

static void *cg_probe_current(cg_ctx_probe *p)
{
    cg_get_current_fn fn = atomic_load(&p->fn);
    if (!fn) {
        unsigned long long adds = 0;
        dl_iterate_phdr(cg_dl_adds_cb, &adds);
        if (adds == atomic_load(&p->adds_tried)) return NULL; /* nothing new loaded */
        fn = cg_probe_resolve(p);
        if (!fn) {
            atomic_store(&p->adds_tried, adds);
            return NULL;
        }
        atomic_store(&p->fn, fn);
    }
    return fn();
}

void *cg_gl_current_key(void)
{
    void *ctx = cg_probe_current(&g_egl_probe);
    if (!ctx) ctx = cg_probe_current(&g_glx_probe);
    return ctx;
}

cg_status cg_gl_current_context(void **key)
{
    void *ctx = cg_gl_current_key();
    if (!ctx) return CG_E_NO_CONTEXT;
    /* A context object can exist while GL is unusable (e.g. lost); only call
     * epoxy's version helpers once GL answers, since they abort otherwise. */
    if (glGetString(GL_VERSION) == NULL) return CG_E_NO_CONTEXT;
    if (!cg_gl_is_desktop() || cg_gl_version() < 30) return CG_E_UNSUPPORTED;
    if (key) *key = ctx;
    return CG_OK;
}

/* ---- saving and restoring the thread's binding ---------------------------- */

/* EGL and GLX entry points with their ABI types spelled out (EGLDisplay,
 * EGLSurface, EGLContext and GLXContext are pointers; EGLint is 32-bit;
 * EGLenum and EGLBoolean unsigned; GLXDrawable an XID; Bool an int), so no
 * EGL or GLX header is needed. */
typedef void *(*cg_egl_get_ptr_fn)(void);
typedef void *(*cg_egl_get_surface_fn)(int32_t readdraw);
typedef unsigned (*cg_egl_query_api_fn)(void);
typedef unsigned (*cg_egl_bind_api_fn)(unsigned api);
typedef unsigned (*cg_egl_make_current_fn)(void *dpy, void *draw, void *read, void *ctx);
typedef unsigned long (*cg_glx_get_drawable_fn)(void);
typedef int (*cg_glx_make_current_fn)(void *dpy, unsigned long draw, unsigned long read, void *ctx);

enum { CG_EGL_DRAW = 0x3059, CG_EGL_READ = 0x305A };

void *cg_gl_loaded_sym(const char *const *libs, const char *sym)
{
    for (; *libs; libs++) {
        void *h = dlopen(*libs, RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *f = dlsym(h, sym);
        dlclose(h); /* only a reference count: the library was loaded before */
        if (f) return f;
    }
    return NULL;
}

const char *const cg_egl_libs[] = {"libEGL.so.1", NULL};
const char *const cg_glx_libs[] = {"libGLX.so.0", "libGL.so.1", NULL};

#define CG_LOAD_FN(type, var, libs, name)                                       \
    type var;                                                                   \
    {                                                                           \
        void *sym_ = cg_gl_loaded_sym((libs), (name));                            \
        memcpy(&var, &sym_, sizeof var);                                        \
    }

void cg_gl_binding_save(cg_gl_binding *b)
{
    memset(b, 0, sizeof *b);
    CG_LOAD_FN(cg_egl_get_ptr_fn, egl_ctx, cg_egl_libs, "eglGetCurrentContext");
    void *ctx = egl_ctx ? egl_ctx() : NULL;
    if (ctx) {
        CG_LOAD_FN(cg_egl_get_ptr_fn, egl_dpy, cg_egl_libs, "eglGetCurrentDisplay");
        CG_LOAD_FN(cg_egl_get_surface_fn, egl_surf, cg_egl_libs, "eglGetCurrentSurface");
        CG_LOAD_FN(cg_egl_query_api_fn, egl_api, cg_egl_libs, "eglQueryAPI");
        if (!egl_dpy || !egl_surf || !egl_api) return;
        b->api = 1;
        b->context = ctx;
        b->display = egl_dpy();
        b->draw = egl_surf(CG_EGL_DRAW);
        b->read = egl_surf(CG_EGL_READ);
        b->egl_client_api = egl_api();
        return;
    }
    CG_LOAD_FN(cg_egl_get_ptr_fn, glx_ctx, cg_glx_libs, "glXGetCurrentContext");
    ctx = glx_ctx ? glx_ctx() : NULL;
    if (!ctx) return;
    CG_LOAD_FN(cg_egl_get_ptr_fn, glx_dpy, cg_glx_libs, "glXGetCurrentDisplay");
    CG_LOAD_FN(cg_glx_get_drawable_fn, glx_draw, cg_glx_libs, "glXGetCurrentDrawable");
    CG_LOAD_FN(cg_glx_get_drawable_fn, glx_read, cg_glx_libs, "glXGetCurrentReadDrawable");
    if (!glx_dpy || !glx_draw || !glx_read) return;
    b->api = 2;
    b->context = ctx;
    b->display = glx_dpy();
    b->glx_draw = glx_draw();
    b->glx_read = glx_read();
}

int cg_gl_binding_restore(const cg_gl_binding *b)
{
    if (!b || !b->api) return 0;
    if (b->api == 1) {
        CG_LOAD_FN(cg_egl_get_ptr_fn, egl_ctx, cg_egl_libs, "eglGetCurrentContext");
        CG_LOAD_FN(cg_egl_query_api_fn, egl_api, cg_egl_libs, "eglQueryAPI");
        CG_LOAD_FN(cg_egl_bind_api_fn, egl_bind, cg_egl_libs, "eglBindAPI");
        CG_LOAD_FN(cg_egl_make_current_fn, egl_make, cg_egl_libs, "eglMakeCurrent");
        if (!egl_ctx || !egl_api || !egl_bind || !egl_make) return -1;
        /* The current context is per client API: ask in the game's, which
         * stays bound afterwards, as it was at save. */
        if (egl_api() != b->egl_client_api) egl_bind(b->egl_client_api);
        if (egl_ctx() == b->context) return 0;
        return egl_make(b->display, b->draw, b->read, b->context) ? 1 : -1;
    }
    CG_LOAD_FN(cg_egl_get_ptr_fn, glx_ctx, cg_glx_libs, "glXGetCurrentContext");
    CG_LOAD_FN(cg_glx_make_current_fn, glx_make, cg_glx_libs, "glXMakeContextCurrent");
    if (!glx_ctx || !glx_make) return -1;
    if (glx_ctx() == b->context) return 0;
    return glx_make(b->display, b->glx_draw, b->glx_read, b->context) ? 1 : -1;
}
