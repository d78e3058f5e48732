/*
 * cg_metal.h - shared IOSurface + mach port for the macOS zero-copy path.
 *
 * The library creates an IOSurface, the game copies each frame into it
 * (MoltenVK through VK_EXT_metal_objects, or GL through cg_metal_gl.h), and
 * the Python process receives a mach port for it (4 bytes, little-endian
 * mach_port_t: docs/wire-format.md) and maps it with
 * IOSurfaceLookupFromMachPort.
 *
 * Memory layout the consumer must honour: height rows of bytes_per_row
 * bytes, row 0 first in memory, 4 bytes per pixel in the surface's pixel
 * format. bytes_per_row is aligned by the platform and is usually LARGER
 * than width * 4: read it with cg_metal_surface_bytes_per_row here, or with
 * IOSurfaceGetBytesPerRow on the surface the consumer looked up; never
 * assume tightly packed rows.
 *
 * All platform work goes through a cg_metal_platform (cg_metal_platform.h);
 * pass cg_metal_platform_native(). On a build for anything but Apple every
 * call that needs the platform returns CG_E_UNSUPPORTED.
 *
 * Thread affinity: none; a surface and a registry are not internally
 * locked, so the caller serialises calls on one object.
 */
#ifndef CG_METAL_H
#define CG_METAL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_size.h"
#include "cg_status.h"
#include "cg_metal_platform.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_metal_surface cg_metal_surface;

/* Bytes per pixel of every surface made here (8-bit RGBA or BGRA). */
#define CG_METAL_BYTES_PER_PIXEL 4

/* Length of the last-error text kept in each surface. */
#define CG_METAL_ERROR_LEN 256

/* Compute the row pitch and allocation size a w x h surface will request:
 * *bytes_per_row = align(w * 4), *alloc_size = *bytes_per_row * h. Checks
 * dims (cg_check_dims), every product for overflow, and that the platform's
 * alignment did not shrink the pitch. Touches nothing but `pf->align_*`. */
cg_status cg_metal_surface_layout(const cg_metal_platform *pf, int w, int h,
                                  size_t *bytes_per_row, size_t *alloc_size,
                                  cg_err *err);

/* Create a w x h surface of `pixel_format` (CG_METAL_FORMAT_RGBA or _BGRA).
 * On success *out owns one surface reference. On failure *out is NULL and
 * everything created on the way has been released.
 * Errors: CG_E_INVALID_ARG (NULL pf/out, unknown format), dims as
 * cg_check_dims, CG_E_OVERFLOW, CG_E_NO_MEMORY, CG_E_UNSUPPORTED (not
 * Apple), CG_E_PLATFORM (an IOSurface call failed, or the surface came back
 * with a row pitch below width * 4). When err is not NULL it receives the
 * failure text. */
cg_status cg_metal_surface_create(const cg_metal_platform *pf, int w, int h,
                                  uint32_t pixel_format, cg_metal_surface **out,
                                  cg_err *err);

/* Release the surface and every mach port right this library still holds
 * for it. NULL is a no-op. Call once per create (a registry, below, makes
 * a repeated destroy through a handle harmless). */
void cg_metal_surface_destroy(cg_metal_surface *s);

/* Export a mach port for the surface to process `pid`.
 *  - pid of another process: a send right is created, a copy is inserted
 *    into that task under the same name, and our own right is dropped, so
 *    nothing stays owned here; *port is the name valid in that task. Needs
 *    the rights task_for_pid needs (same user; on recent macOS an
 *    entitlement or disabled SIP), otherwise CG_E_PLATFORM naming it.
 *  - pid of this process: one send right is created on the first call and
 *    kept by the surface (released by destroy); later calls return it.
 * Errors: CG_E_INVALID_ARG (NULL, pid <= 0), CG_E_UNSUPPORTED, CG_E_PLATFORM
 * (text in cg_metal_surface_last_error). On failure no right is left
 * behind. */
cg_status cg_metal_surface_export_port(cg_metal_surface *s, int pid, uint32_t *port);

/* The platform handle (an IOSurfaceRef on Apple): what Vulkan's
 * VkImportMetalIOSurfaceInfoEXT.ioSurface and CGLTexImageIOSurface2D take.
 * Owned by the surface; retain it yourself to keep it past destroy. */
void *cg_metal_surface_handle(const cg_metal_surface *s);

int cg_metal_surface_width(const cg_metal_surface *s);
int cg_metal_surface_height(const cg_metal_surface *s);
/* The real row pitch in bytes (>= width * 4): what the consumer must use. */
size_t cg_metal_surface_bytes_per_row(const cg_metal_surface *s);
/* bytes_per_row * height. */
size_t cg_metal_surface_alloc_size(const cg_metal_surface *s);
uint32_t cg_metal_surface_pixel_format(const cg_metal_surface *s);
/* CPU address of the pixels (see the platform's locking rules); NULL when
 * the platform gives none. */
void *cg_metal_surface_base_address(const cg_metal_surface *s);
/* Last failure text of this surface; "" when none. Never NULL. */
const char *cg_metal_surface_last_error(const cg_metal_surface *s);
/* The same as the cg_err it is (NULL for NULL), for cg_fail_from. */
const cg_err *cg_metal_surface_error(const cg_metal_surface *s);

/* The wire form of a port: 4 bytes, little-endian mach_port_t
 * (docs/wire-format.md, "Mach port"). */
#define CG_METAL_PORT_BYTES 4
void cg_metal_port_bytes(uint32_t port, uint8_t out[CG_METAL_PORT_BYTES]);

/* ---- handle registry ---------------------------------------------------
 * Java holds surfaces as a `long` (the IOSurfaceRef value, because the mod
 * hands it to MoltenVK). A registry maps such a value back to the surface
 * this library created, so a stale, forged or repeated handle is refused
 * (or, for destroy, ignored) instead of being dereferenced. The caller owns
 * the registry (zero-initialise it) and serialises access to it. */

#define CG_METAL_MAX_SURFACES 16

typedef struct cg_metal_registry {
    cg_metal_surface *slots[CG_METAL_MAX_SURFACES];
} cg_metal_registry;

/* The key a surface is registered under (its handle as an integer). */
uint64_t cg_metal_surface_key(const cg_metal_surface *s);

/* Add a live surface. CG_E_INVALID_ARG (NULL, already present),
 * CG_E_BAD_STATE when CG_METAL_MAX_SURFACES are live. */
cg_status cg_metal_registry_add(cg_metal_registry *r, cg_metal_surface *s);

/* The live surface registered under `key`, or NULL. */
cg_metal_surface *cg_metal_registry_find(const cg_metal_registry *r, uint64_t key);

/* Remove the surface under `key` and destroy it. CG_E_NOT_INITIALIZED
 * when none is registered under that key (never created, or destroyed
 * already): nothing is touched, so a second destroy is harmless. */
cg_status cg_metal_registry_destroy(cg_metal_registry *r, uint64_t key);

/* Destroy every registered surface (library unload). */
void cg_metal_registry_clear(cg_metal_registry *r);

/* Number of live surfaces. */
int cg_metal_registry_count(const cg_metal_registry *r);

#ifdef __cplusplus
}
#endif

#endif /* CG_METAL_H */
