/*
 * cg_gl_extmem.h - memory and semaphores another API made, in the current
 * GL context: GL_EXT_memory_object_fd buffers, GL_EXT_semaphore_fd
 * semaphores, GL_NV_timeline_semaphore timelines, and the GL side of a
 * frame's completion (the GL producer of zero-copy v2, src/gl_ring).
 * No Vulkan here: every import takes an OS handle of the _fd extensions'
 * kind (a cg_oshandle: an fd; consumed on success, closed on failure). GL
 * errors are reported in the shape of cg_gl_check.h.
 */
#ifndef CG_GL_EXTMEM_H
#define CG_GL_EXTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_oshandle.h"
#include "cg_size.h"
#include "cg_status.h"

/* CG_OK when this context has GL_EXT_memory_object(_fd) and names its GPU:
 * *uuid gets GL_DEVICE_UUID_EXT of device 0. CG_E_UNSUPPORTED (an
 * extension is missing; the message names it and the renderer),
 * CG_E_NO_DEVICE, CG_E_GL. */
cg_status cg_gl_extmem_device(uint8_t uuid[CG_DEVICE_UUID_SIZE], cg_err *err);

/* An imported buffer: the memory object and the buffer object on it. */
typedef struct cg_gl_imported {
    unsigned memobj, buffer;
} cg_gl_imported;

/* `bytes` of the OPAQUE_FD memory h (of mem_size bytes) as a buffer
 * object (immutable storage, DSA where the context has it). */
cg_status cg_gl_import_buffer(cg_oshandle h, uint64_t mem_size, size_t bytes, cg_gl_imported *out,
                              cg_err *err);
void cg_gl_imported_delete(cg_gl_imported *b);

/* A binary semaphore's OPAQUE_FD as a GL semaphore (*sem). */
cg_status cg_gl_import_semaphore(cg_oshandle h, unsigned *sem, cg_err *err);
void cg_gl_semaphore_delete(unsigned *sem);

/* GL_NV_timeline_semaphore (which Debian 12's libepoxy does not know: its
 * entry points come from the window-system library the process loaded). */
typedef void (*cg_gl_create_semaphores_nv)(int n, unsigned *semaphores);
typedef void (*cg_gl_semaphore_parameteriv_nv)(unsigned semaphore, unsigned pname,
                                               const int *params);
typedef struct cg_gl_timeline {
    unsigned sem; /* 0 until imported */
    cg_gl_create_semaphores_nv create;
    cg_gl_semaphore_parameteriv_nv parameteriv;
} cg_gl_timeline;

/* 1 when the context has GL_NV_timeline_semaphore (t's entry points set). */
int cg_gl_timeline_available(cg_gl_timeline *t);
/* A timeline semaphore's OPAQUE_FD as t->sem. */
cg_status cg_gl_timeline_import(cg_gl_timeline *t, cg_oshandle h, cg_err *err);

/* GL's writes to `buffer` so far reach the other API: signal the timeline
 * to value (t) or the binary semaphore sem, listing the buffer, and flush
 * (so that the signal is submitted before the other side waits). */
cg_status cg_gl_signal_timeline(const cg_gl_timeline *t, uint64_t value, unsigned buffer,
                                cg_err *err);
cg_status cg_gl_signal_semaphore(unsigned sem, unsigned buffer, cg_err *err);

/* Wait on the CPU until GL's commands so far are complete (a fence). */
cg_status cg_gl_finish_fence(cg_err *err);

#endif /* CG_GL_EXTMEM_H */
