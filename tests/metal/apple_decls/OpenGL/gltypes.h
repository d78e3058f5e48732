/*
 * Subset of <OpenGL/gltypes.h> ("(c) 2010-2012 Apple Inc.") for the Linux
 * syntax check; same include guard as Apple's. Only the types CGL's
 * prototypes use. libepoxy declares these as unsigned int / int, the same
 * types as uint32_t / int32_t on every target we build for.
 */
#ifndef __gltypes_h_
#define __gltypes_h_

#include <stdint.h>

typedef uint32_t GLenum;
typedef int32_t GLint;
typedef int32_t GLsizei;
typedef uint32_t GLuint;

#endif
