/*
 * Subset of <OpenGL/CGLIOSurface.h> ("(c) 2008-2012 Apple Inc.") for the
 * Linux syntax check. Apple's header declares IOSurfaceRef itself with the
 * same `struct __IOSurface *` type as IOSurfaceRef.h.
 */
#ifndef CG_APPLE_DECLS_CGLIOSURFACE_H
#define CG_APPLE_DECLS_CGLIOSURFACE_H

#include <OpenGL/CGLTypes.h>
#include <OpenGL/gltypes.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __IOSurface *IOSurfaceRef;

extern CGLError CGLTexImageIOSurface2D(CGLContextObj ctx, GLenum target, GLenum internal_format,
                                       GLsizei width, GLsizei height, GLenum format, GLenum type,
                                       IOSurfaceRef ioSurface, GLuint plane);

#ifdef __cplusplus
}
#endif

#endif
