/*
 * cg_gl_table.h - Windows: the GL entry points src/gl_capture calls, as one
 * table of the library's own (no libepoxy or GLEW is built for MinGW, and a
 * player's machine has neither). cg_gl_wgl.c fills it for the context
 * current on the calling thread: wglGetProcAddress, and for the GL 1.1
 * functions (which wglGetProcAddress does not return) GetProcAddress on
 * opengl32.dll, the module the game already loaded. Nothing links
 * opengl32.dll: the DLL imports only what every Windows process has.
 */
#ifndef CG_GL_TABLE_H
#define CG_GL_TABLE_H

#include <windows.h>

#include <GL/gl.h>
#include <GL/glext.h>

/* An ANGLE pack state that GL/glext.h (desktop) does not list; the reader
 * saves it where the extension exists. */
#ifndef GL_PACK_REVERSE_ROW_ORDER_ANGLE
#define GL_PACK_REVERSE_ROW_ORDER_ANGLE 0x93A4
#endif

/* X(return type, name without "gl", parameters): every entry point of the
 * table, GL 3.0 at most. */
#define CG_GL_TABLE(X)                                                                      \
    X(void, BindBuffer, (GLenum target, GLuint buffer))                                     \
    X(void, BindFramebuffer, (GLenum target, GLuint framebuffer))                           \
    X(void, BindTexture, (GLenum target, GLuint texture))                                   \
    X(void, BufferData, (GLenum target, GLsizeiptr size, const void *data, GLenum usage))   \
    X(GLenum, CheckFramebufferStatus, (GLenum target))                                      \
    X(void, ClampColor, (GLenum target, GLenum clamp))                                      \
    X(void, DeleteBuffers, (GLsizei n, const GLuint *buffers))                              \
    X(void, DeleteFramebuffers, (GLsizei n, const GLuint *framebuffers))                    \
    X(void, Disable, (GLenum cap))                                                          \
    X(void, DrawBuffer, (GLenum buf))                                                       \
    X(void, Enable, (GLenum cap))                                                           \
    X(void, FramebufferTexture2D,                                                           \
      (GLenum target, GLenum attachment, GLenum textarget, GLuint texture, GLint level))    \
    X(void, GenBuffers, (GLsizei n, GLuint *buffers))                                       \
    X(void, GenFramebuffers, (GLsizei n, GLuint *framebuffers))                             \
    X(GLenum, GetError, (void))                                                             \
    X(void, GetFloatv, (GLenum pname, GLfloat *data))                                       \
    X(void, GetFramebufferAttachmentParameteriv,                                            \
      (GLenum target, GLenum attachment, GLenum pname, GLint *params))                      \
    X(void, GetIntegerv, (GLenum pname, GLint *data))                                       \
    X(const GLubyte *, GetString, (GLenum name))                                            \
    X(const GLubyte *, GetStringi, (GLenum name, GLuint index))                             \
    X(void, GetTexLevelParameteriv, (GLenum target, GLint level, GLenum pname, GLint *params)) \
    X(GLboolean, IsBuffer, (GLuint buffer))                                                 \
    X(GLboolean, IsEnabled, (GLenum cap))                                                   \
    X(GLboolean, IsFramebuffer, (GLuint framebuffer))                                       \
    X(GLboolean, IsTexture, (GLuint texture))                                               \
    X(void *, MapBufferRange,                                                               \
      (GLenum target, GLintptr offset, GLsizeiptr length, GLbitfield access))               \
    X(void, PixelStorei, (GLenum pname, GLint param))                                       \
    X(void, PixelTransferf, (GLenum pname, GLfloat param))                                  \
    X(void, PixelTransferi, (GLenum pname, GLint param))                                    \
    X(void, ReadBuffer, (GLenum src))                                                       \
    X(void, ReadPixels,                                                                     \
      (GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type,         \
       void *pixels))                                                                       \
    X(GLboolean, UnmapBuffer, (GLenum target))

#define CG_GL_TABLE_MEMBER(ret, name, params) ret(APIENTRY *name) params;
typedef struct cg_gl_table {
    CG_GL_TABLE(CG_GL_TABLE_MEMBER)
} cg_gl_table;
#undef CG_GL_TABLE_MEMBER

/* The table of the context current on this thread (loaded by
 * cg_gl_current_key, cg_gl_wgl.c, whenever that context changes). Every GL
 * call of src/gl_capture follows a cg_gl_current_key or
 * cg_gl_current_context call on the same thread that found a context. */
extern _Thread_local cg_gl_table cg_gl_fn;

/* As api/epoxy/cg_gl_api.h: the current context's version (10 * major +
 * minor), desktop GL or not, and whether it has an extension (GL 3.0's
 * glGetStringi list). */
int cg_gl_version(void);
int cg_gl_is_desktop(void);
int cg_gl_has_extension(const char *name);

#endif /* CG_GL_TABLE_H */
