/*
 * cg_metal_gl.h - GL zero-copy on macOS: the game's GL color texture is
 * blitted each frame into a GL_TEXTURE_RECTANGLE backed by a shared
 * IOSurface (CGLTexImageIOSurface2D), which the Python process maps through
 * the exported mach port. macOS GL stops at 4.1, so the copy is a
 * glBlitFramebuffer (core since 3.0), not glCopyImageSubData (4.3).
 *
 * Apple only (cg_metal_gl_apple.c). Type-checked on Linux CI; not run on a
 * Mac by this project.
 *
 * Layout seen by the consumer: the surface is 'BGRA' (bytes B, G, R, A per
 * pixel: GL_BGRA + GL_UNSIGNED_INT_8_8_8_8_REV), height rows of
 * cg_metal_surface_bytes_per_row bytes, row 0 = the bottom row of the GL
 * image (glReadPixels order; the Python side flips).
 *
 * Thread affinity: every call on the thread whose CGL context is current,
 * the same context for create, capture and destroy.
 */
#ifndef CG_METAL_GL_H
#define CG_METAL_GL_H

#include <stdint.h>

#include "cg_cursor.h"
#include "cg_metal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_metal_gl cg_metal_gl;

/* Create the shared surface (w x h), its rectangle texture and the two
 * framebuffers, in the current CGL context. Leaves every GL binding as it
 * found it. Errors: dims, CG_E_NO_CONTEXT (no current CGL context),
 * CG_E_PLATFORM (IOSurface/CGL failure), CG_E_GL (a GL call failed, or
 * the framebuffer is incomplete), CG_E_NO_MEMORY. On failure *out is NULL,
 * everything made on the way is released, and err holds the text. */
cg_status cg_metal_gl_create(const cg_metal_platform *pf, int w, int h, cg_metal_gl **out,
                             cg_err *err);

/* Export the surface's mach port to `pid` (cg_metal_surface_export_port). */
cg_status cg_metal_gl_export_port(cg_metal_gl *g, int pid, uint32_t *port);

/* Copy color texture `src_texture` (GL_TEXTURE_2D, any size; scaled with
 * GL_NEAREST when it differs) into the surface, then draw the 16x16 cursor
 * at (cursor->x, cursor->y) target pixels from the top-left when cursor
 * (may be NULL) is set to draw. Finishes the GL work before returning, so the surface is complete
 * for the consumer. Restores the bindings and state it touches (read/draw
 * framebuffer, 2D texture binding, scissor test and box, clear color,
 * color mask).
 * Errors: CG_E_INVALID_ARG (w/h differ from create), CG_E_NO_CONTEXT
 * (none current, or not the one of create), CG_E_BAD_TEXTURE (not a
 * complete color texture), CG_E_GL. */
cg_status cg_metal_gl_capture(cg_metal_gl *g, uint32_t src_texture, int w, int h,
                              const cg_cursor *cursor);

/* The surface (for its bytes per row, handle). Owned by g. */
const cg_metal_surface *cg_metal_gl_surface(const cg_metal_gl *g);

/* Last failure text; "" when none. Never NULL. */
const char *cg_metal_gl_last_error(const cg_metal_gl *g);
/* The same as the cg_err it is (NULL for NULL), for cg_fail_from. */
const cg_err *cg_metal_gl_error(const cg_metal_gl *g);

/* Delete the GL objects (when the context of create is current; otherwise
 * they are left to that context's destruction) and release the surface.
 * NULL is a no-op. */
void cg_metal_gl_destroy(cg_metal_gl *g);

#ifdef __cplusplus
}
#endif

#endif /* CG_METAL_GL_H */
