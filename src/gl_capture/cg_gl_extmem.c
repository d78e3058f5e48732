/*
 * cg_gl_extmem.c - external memory and semaphores in GL (cg_gl_extmem.h).
 */
#include "cg_gl_extmem.h"

#include <epoxy/gl.h>
#include <string.h>

#include "cg_gl_check.h"

/* GL_NV_timeline_semaphore, which Debian 12's libepoxy does not know (values
 * from the Khronos registry's glext.h). */
#ifndef GL_SEMAPHORE_TYPE_NV
#define GL_TIMELINE_SEMAPHORE_VALUE_NV 0x9595
#define GL_SEMAPHORE_TYPE_NV 0x95B3
#define GL_SEMAPHORE_TYPE_TIMELINE_NV 0x95B5
#endif

#define EM_GL(err, expr) CG_GL_CALL_AS(err, expr, #expr)

cg_status cg_gl_extmem_device(uint8_t uuid[CG_DEVICE_UUID_SIZE], cg_err *err)
{
    const char *need[2] = {"GL_EXT_memory_object", "GL_EXT_memory_object_fd"};
    for (int i = 0; i < 2; i++)
        if (!epoxy_has_gl_extension(need[i]))
            return cg_fail(err, CG_E_UNSUPPORTED,
                           "this GL driver (%s) lacks %s: zero-copy v2 for GL is not available; "
                           "the readback and the v1 paths still are",
                           (const char *)glGetString(GL_RENDERER), need[i]);
    GLint ndev = 0;
    EM_GL(err, glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &ndev));
    if (ndev < 1) return cg_fail(err, CG_E_NO_DEVICE, "GL reports %d device UUIDs", ndev);
    EM_GL(err, glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid));
    return CG_OK;
}

/* The storage, through the pack binding (restored at once) without DSA. */
static cg_status buffer_storage(cg_gl_imported *b, size_t bytes, cg_err *err)
{
    if (epoxy_gl_version() >= 45 || epoxy_has_gl_extension("GL_ARB_direct_state_access")) {
        EM_GL(err, glCreateBuffers(1, &b->buffer));
        EM_GL(err, glNamedBufferStorageMemEXT(b->buffer, (GLsizeiptr)bytes, b->memobj, 0));
        return CG_OK;
    }
    GLint old = 0;
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &old);
    glGenBuffers(1, &b->buffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, b->buffer);
    glBufferStorageMemEXT(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)bytes, b->memobj, 0);
    cg_status st = cg_gl_check_call(err, "glBufferStorageMemEXT", __FILE__, __LINE__);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)old);
    return st;
}

cg_status cg_gl_import_buffer(cg_oshandle h, uint64_t mem_size, size_t bytes, cg_gl_imported *out,
                              cg_err *err)
{
    glCreateMemoryObjectsEXT(1, &out->memobj);
    cg_status st = cg_gl_check_call(err, "glCreateMemoryObjectsEXT", __FILE__, __LINE__);
    if (st == CG_OK) {
        glImportMemoryFdEXT(out->memobj, mem_size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, h);
        st = cg_gl_check_call(err, "glImportMemoryFdEXT", __FILE__, __LINE__);
    }
    if (st != CG_OK) {
        cg_oshandle_close(h); /* a failed import does not take the fd */
        return st;
    }
    return buffer_storage(out, bytes, err);
}

void cg_gl_imported_delete(cg_gl_imported *b)
{
    if (b->buffer) glDeleteBuffers(1, &b->buffer);
    if (b->memobj) glDeleteMemoryObjectsEXT(1, &b->memobj);
    b->buffer = b->memobj = 0;
}

cg_status cg_gl_import_semaphore(cg_oshandle h, unsigned *sem, cg_err *err)
{
    glGenSemaphoresEXT(1, sem);
    cg_status st = cg_gl_check_call(err, "glGenSemaphoresEXT", __FILE__, __LINE__);
    if (st == CG_OK) {
        glImportSemaphoreFdEXT(*sem, GL_HANDLE_TYPE_OPAQUE_FD_EXT, h);
        st = cg_gl_check_call(err, "glImportSemaphoreFdEXT", __FILE__, __LINE__);
    }
    if (st != CG_OK) cg_oshandle_close(h);
    return st;
}

void cg_gl_semaphore_delete(unsigned *sem)
{
    if (*sem) glDeleteSemaphoresEXT(1, sem);
    *sem = 0;
}

/* A GL entry point libepoxy does not know (GL_NV_timeline_semaphore in
 * Debian 12's), from the window-system library the process already loaded:
 * EGL's eglGetProcAddress, else GLX's glXGetProcAddressARB. */
typedef void (*em_gl_fn)(void);
typedef em_gl_fn (*em_get_proc)(const char *);

static em_gl_fn gl_proc(const char *name)
{
    static const char *const getter[2] = {"eglGetProcAddress", "glXGetProcAddressARB"};
    const char *const *libs[2] = {cg_egl_libs, cg_glx_libs};
    for (int i = 0; i < 2; i++) {
        void *sym = cg_gl_loaded_sym(libs[i], getter[i]);
        if (!sym) continue;
        em_get_proc get;
        memcpy(&get, &sym, sizeof get); /* object -> function pointer, C11-clean */
        em_gl_fn fn = get(name);
        if (fn) return fn;
    }
    return NULL;
}

int cg_gl_timeline_available(cg_gl_timeline *t)
{
    if (!epoxy_has_gl_extension("GL_NV_timeline_semaphore")) return 0;
    em_gl_fn c = gl_proc("glCreateSemaphoresNV"), p = gl_proc("glSemaphoreParameterivNV");
    if (!c || !p) return 0;
    memcpy(&t->create, &c, sizeof c);
    memcpy(&t->parameteriv, &p, sizeof p);
    return 1;
}

cg_status cg_gl_timeline_import(cg_gl_timeline *t, cg_oshandle h, cg_err *err)
{
    const GLint type = GL_SEMAPHORE_TYPE_TIMELINE_NV;
    t->create(1, &t->sem);
    t->parameteriv(t->sem, GL_SEMAPHORE_TYPE_NV, &type);
    glImportSemaphoreFdEXT(t->sem, GL_HANDLE_TYPE_OPAQUE_FD_EXT, h);
    cg_status st = cg_gl_check_call(err, "glImportSemaphoreFdEXT(timeline)", __FILE__, __LINE__);
    if (st != CG_OK) cg_oshandle_close(h);
    return st;
}

cg_status cg_gl_signal_timeline(const cg_gl_timeline *t, uint64_t value, unsigned buffer,
                                cg_err *err)
{
    /* The value is checked before the signal: a signal of the old value would
     * move the learner's timeline backwards. */
    const GLuint64 v = value;
    EM_GL(err, glSemaphoreParameterui64vEXT(t->sem, GL_TIMELINE_SEMAPHORE_VALUE_NV, &v));
    return cg_gl_signal_semaphore(t->sem, buffer, err);
}

/* The signal and the flush share one check (a publish's per-frame calls are
 * counted: cg_gl_compute.c); a failure of either fails the ring. */
cg_status cg_gl_signal_semaphore(unsigned sem, unsigned buffer, cg_err *err)
{
    glSignalSemaphoreEXT(sem, 1, &buffer, 0, NULL, NULL);
    glFlush();
    return cg_gl_check_call(err, "glSignalSemaphoreEXT, glFlush", __FILE__, __LINE__);
}

cg_status cg_gl_finish_fence(cg_err *err)
{
    GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    CG_TRY(cg_gl_check_call(err, "glFenceSync", __FILE__, __LINE__));
    if (!sync) return cg_fail(err, CG_E_GL, "glFenceSync returned 0");
    GLenum w;
    do {
        w = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000u);
    } while (w == GL_TIMEOUT_EXPIRED);
    glDeleteSync(sync);
    CG_TRY(cg_gl_check_call(err, "glClientWaitSync", __FILE__, __LINE__));
    if (w == GL_WAIT_FAILED) return cg_fail(err, CG_E_GL, "glClientWaitSync failed");
    return CG_OK;
}
