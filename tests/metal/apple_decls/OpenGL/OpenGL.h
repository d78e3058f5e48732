/*
 * Subset of <OpenGL/OpenGL.h> and <OpenGL/CGLCurrent.h> for the Linux
 * syntax check. OPENGL_* availability/nullability macros dropped.
 */
#ifndef CG_APPLE_DECLS_OPENGL_H
#define CG_APPLE_DECLS_OPENGL_H

#include <OpenGL/CGLTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CGLCurrent.h */
extern CGLContextObj CGLGetCurrentContext(void);
/* OpenGL.h */
const char *CGLErrorString(CGLError error);

#ifdef __cplusplus
}
#endif

#endif
