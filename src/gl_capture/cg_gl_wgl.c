/*
 * cg_gl_wgl.c - Windows: the current WGL context and the GL table of the
 * library's own (cg_gl_table.h), loaded for it.
 *
 * opengl32.dll is never loaded from here: a WGL context can only be current
 * in a process that loaded it, so GetModuleHandleEx finds it or there is no
 * context (the Linux probe's RTLD_NOLOAD, cg_gl_context_egl_glx.c). The
 * module is pinned when found, so the function pointers taken from it stay
 * valid for the process's life. wglGetProcAddress answers for the context
 * current on the calling thread (an ICD may return other pointers for
 * another pixel format), so each thread keeps its own table and reloads it
 * when its current context changes: about 30 lookups, once per context.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_gl.h"
#include "cg_gl_check.h"
#include "cg_gl_table.h"

_Thread_local cg_gl_table cg_gl_fn;
static _Thread_local HGLRC cg_gl_fn_ctx;     /* the context cg_gl_fn was loaded for */
static _Thread_local int cg_gl_fn_complete;  /* every entry point was found */

typedef HGLRC(WINAPI *cg_wgl_current_fn)(void);
typedef PROC(WINAPI *cg_wgl_proc_fn)(LPCSTR name);

/* Set once opengl32.dll was found (and pinned); never cleared. */
static _Atomic(cg_wgl_current_fn) g_wgl_current;
static _Atomic(cg_wgl_proc_fn) g_wgl_proc;
static _Atomic(HMODULE) g_opengl32;

/* opengl32.dll's wglGetCurrentContext, or NULL when the process has not
 * loaded opengl32.dll (then no WGL context can be current). */
static cg_wgl_current_fn cg_wgl_current(void)
{
    cg_wgl_current_fn cur = atomic_load(&g_wgl_current);
    if (cur) return cur;
    HMODULE gl = NULL;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_PIN, L"opengl32.dll", &gl) || !gl)
        return NULL;
    /* FARPROC to the real types through void (*)(void), which GCC's
     * -Wcast-function-type accepts as "any function". */
    cg_wgl_proc_fn proc = (cg_wgl_proc_fn)(void (*)(void))GetProcAddress(gl, "wglGetProcAddress");
    cur = (cg_wgl_current_fn)(void (*)(void))GetProcAddress(gl, "wglGetCurrentContext");
    if (!proc || !cur) return NULL;
    atomic_store(&g_opengl32, gl);
    atomic_store(&g_wgl_proc, proc);
    atomic_store(&g_wgl_current, cur);
    return cur;
}

/* An entry point of the current context: wglGetProcAddress (GL 1.2 and
 * later; some drivers answer 1, 2, 3 or -1 for "none"), else opengl32.dll's
 * export (GL 1.1). */
static void (*cg_wgl_entry(const char *name))(void)
{
    PROC p = atomic_load(&g_wgl_proc)(name);
    intptr_t v = (intptr_t)p;
    if (v >= -1 && v <= 3) p = GetProcAddress(atomic_load(&g_opengl32), name);
    return (void (*)(void))p;
}

static void cg_gl_table_load(void)
{
    cg_gl_table t;
    int complete = 1;
#define CG_GL_LOAD(ret, name, params)                                    \
    t.name = (ret(APIENTRY *) params)cg_wgl_entry("gl" #name);           \
    complete = complete && t.name != NULL;
    CG_GL_TABLE(CG_GL_LOAD)
#undef CG_GL_LOAD
    cg_gl_fn = t;
    cg_gl_fn_complete = complete;
}

void *cg_gl_current_key(void)
{
    cg_wgl_current_fn cur = cg_wgl_current();
    HGLRC ctx = cur ? cur() : NULL;
    if (ctx && ctx != cg_gl_fn_ctx) {
        cg_gl_table_load();
        cg_gl_fn_ctx = ctx;
    }
    return ctx;
}

/* "4.5 (Compatibility Profile) Mesa 22.3.6" -> 45; "OpenGL ES 3.2 ..." -> 32. */
int cg_gl_version(void)
{
    const char *v = (const char *)cg_gl_fn.GetString(GL_VERSION);
    if (!v) return 0;
    while (*v && (*v < '0' || *v > '9')) v++; /* "OpenGL ES " */
    char *end = NULL;
    long major = strtol(v, &end, 10);
    if (end == v || *end != '.' || end[1] < '0' || end[1] > '9' || major < 0 || major > 99)
        return 0;
    return (int)major * 10 + (end[1] - '0');
}

int cg_gl_is_desktop(void)
{
    const char *v = (const char *)cg_gl_fn.GetString(GL_VERSION);
    return v && strncmp(v, "OpenGL ES", 9) != 0;
}

int cg_gl_has_extension(const char *name)
{
    GLint n = 0;
    if (!cg_gl_fn.GetStringi) return 0;
    cg_gl_fn.GetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)cg_gl_fn.GetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0) return 1;
    }
    return 0;
}

cg_status cg_gl_current_context(void **key)
{
    void *ctx = cg_gl_current_key();
    if (!ctx) return CG_E_NO_CONTEXT;
    /* opengl32.dll exports every GL 1.1 function, so GetString is there
     * whatever the driver; a lost context answers NULL. */
    if (!cg_gl_fn.GetString || cg_gl_fn.GetString(GL_VERSION) == NULL) return CG_E_NO_CONTEXT;
    /* An entry point missing (GDI's GL 1.1 renderer has no framebuffer
     * objects) is what an old GL is on Linux: unsupported. */
    if (!cg_gl_fn_complete || !cg_gl_is_desktop() || cg_gl_version() < 30)
        return CG_E_UNSUPPORTED;
    if (key) *key = ctx;
    return CG_OK;
}
