/*
 * cg_gl_api.h (libepoxy) - how src/gl_capture's portable files (the reader,
 * its saved state, the checker) reach GL on Linux: libepoxy's dispatch,
 * which resolves each entry point on first use in the current context.
 * CMake puts this folder or api/wgl/ (Windows: the library's own table) on
 * the include path; both give the same names: GL's types, enums and
 * gl* functions, and the three helpers below.
 */
#ifndef CG_GL_API_H
#define CG_GL_API_H

#include <epoxy/gl.h>

/* The current context's version as 10 * major + minor (4.5: 45). Call with
 * a context current whose glGetString(GL_VERSION) answers. */
static inline int cg_gl_version(void)
{
    return epoxy_gl_version();
}

/* Nonzero for desktop GL (not OpenGL ES). */
static inline int cg_gl_is_desktop(void)
{
    return epoxy_is_desktop_gl();
}

/* Nonzero when the current context has the extension `name`. */
static inline int cg_gl_has_extension(const char *name)
{
    return epoxy_has_gl_extension(name);
}

#endif /* CG_GL_API_H */
