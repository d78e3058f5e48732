/*
 * cg_metal_platform.h - the narrow platform interface under src/metal/.
 *
 * Everything that touches IOSurface, CoreFoundation or mach goes through
 * this table of function pointers, so the lifecycle and size logic above it
 * (cg_metal.c) is portable C that unit tests drive with a fake table.
 *
 * Implementations:
 *  - cg_metal_platform_apple.c (Apple only): IOSurfaceCreate,
 *    IOSurfaceAlignProperty, IOSurfaceGetBytesPerRow, IOSurfaceCreateMachPort,
 *    task_for_pid + mach_port_insert_right, mach_port_deallocate, CFRelease.
 *  - cg_metal_platform_none.c (every other platform): every entry returns
 *    CG_E_UNSUPPORTED ("the IOSurface path is macOS-only").
 * CMake picks one of the two files; no source carries an #ifdef for it.
 *
 * Conventions for every entry:
 *  - `self` is the table itself (an implementation may embed it as the first
 *    member of a larger struct to keep its own state, as the test fake does).
 *  - `err` (may be NULL) receives a description of a failure: the
 *    failing call, file:line and the native code/name. Untouched on success.
 *  - A surface is an opaque non-NULL pointer (an IOSurfaceRef on Apple).
 *    Ports are mach port names (mach_port_t, 32 bits).
 */
#ifndef CG_METAL_PLATFORM_H
#define CG_METAL_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Four-character pixel format codes (IOSurface kIOSurfacePixelFormat). */
#define CG_METAL_FOURCC(a, b, c, d)                                              \
    (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#define CG_METAL_FORMAT_BGRA CG_METAL_FOURCC('B', 'G', 'R', 'A') /* 0x42475241 */
#define CG_METAL_FORMAT_RGBA CG_METAL_FOURCC('R', 'G', 'B', 'A') /* 0x52474241 */

/* What the portable layer asks the platform to create. All sizes in bytes,
 * already validated and overflow-checked by cg_metal.c. */
typedef struct cg_metal_surface_desc {
    int width, height;         /* pixels, 1..CG_MAX_DIM */
    size_t bytes_per_element;  /* 4 for the 8-bit RGBA/BGRA formats */
    size_t bytes_per_row;      /* already aligned with align_bytes_per_row */
    size_t alloc_size;         /* bytes_per_row * height */
    uint32_t pixel_format;     /* CG_METAL_FORMAT_* */
} cg_metal_surface_desc;

typedef struct cg_metal_platform cg_metal_platform;

struct cg_metal_platform {
    /* Short name for messages ("apple-iosurface", "none", "fake"). */
    const char *name;

    /* CG_OK when this platform can create surfaces at all, else
     * CG_E_UNSUPPORTED with a message naming what is missing. Cheap; called
     * before any other entry. */
    cg_status (*available)(const cg_metal_platform *self, cg_err *err);

    /* *out = the smallest row pitch >= bytes_per_row that the platform
     * requires (IOSurfaceAlignProperty(kIOSurfaceBytesPerRow, ...)). */
    cg_status (*align_bytes_per_row)(const cg_metal_platform *self, size_t bytes_per_row,
                                     size_t *out, cg_err *err);

    /* Create a surface as described; *out gets one owned reference. */
    cg_status (*surface_create)(const cg_metal_platform *self, const cg_metal_surface_desc *desc,
                                void **out, cg_err *err);

    /* The row pitch the platform actually gave the surface. */
    size_t (*surface_bytes_per_row)(const cg_metal_platform *self, void *surface);

    /* CPU address of the surface memory (valid while it is alive; the
     * caller locks/unlocks around CPU access as IOSurface requires). */
    void *(*surface_base_address)(const cg_metal_platform *self, void *surface);

    /* Drop the reference surface_create gave. */
    void (*surface_release)(const cg_metal_platform *self, void *surface);

    /* A new send right for the surface in this task (IOSurfaceCreateMachPort). */
    cg_status (*port_create)(const cg_metal_platform *self, void *surface, uint32_t *port,
                             cg_err *err);

    /* Give the task of process `pid` a copy of the send right `port` under
     * the same name (task_for_pid + mach_port_insert_right COPY_SEND). Our
     * own right is left as it was. */
    cg_status (*port_insert)(const cg_metal_platform *self, int pid, uint32_t port,
                             cg_err *err);

    /* Drop our send right `port` (mach_port_deallocate). */
    void (*port_release)(const cg_metal_platform *self, uint32_t port);

    /* The id of this process (getpid). */
    int (*self_pid)(const cg_metal_platform *self);
};

/* The platform this library was built for: the Apple table on Apple, the
 * "unsupported" table elsewhere. Static storage, never NULL. */
const cg_metal_platform *cg_metal_platform_native(void);

#ifdef __cplusplus
}
#endif

#endif /* CG_METAL_PLATFORM_H */
