/*
 * cg_gl_api.h (WGL) - how src/gl_capture's portable files (the reader, its
 * saved state, the checker) reach GL on Windows: the library's own table
 * of exactly the entry points they call (cg_gl_table.h), loaded per thread
 * for the context current on it (cg_gl_wgl.c). Each gl* name below is the
 * table's member, so the capture code reads the same on both platforms
 * (api/epoxy/cg_gl_api.h is libepoxy's side). A new GL call in those files
 * is a line in CG_GL_TABLE and a line here.
 */
#ifndef CG_GL_API_H
#define CG_GL_API_H

#include "cg_gl_table.h"

#define glBindBuffer cg_gl_fn.BindBuffer
#define glBindFramebuffer cg_gl_fn.BindFramebuffer
#define glBindTexture cg_gl_fn.BindTexture
#define glBufferData cg_gl_fn.BufferData
#define glCheckFramebufferStatus cg_gl_fn.CheckFramebufferStatus
#define glClampColor cg_gl_fn.ClampColor
#define glDeleteBuffers cg_gl_fn.DeleteBuffers
#define glDeleteFramebuffers cg_gl_fn.DeleteFramebuffers
#define glDisable cg_gl_fn.Disable
#define glDrawBuffer cg_gl_fn.DrawBuffer
#define glEnable cg_gl_fn.Enable
#define glFramebufferTexture2D cg_gl_fn.FramebufferTexture2D
#define glGenBuffers cg_gl_fn.GenBuffers
#define glGenFramebuffers cg_gl_fn.GenFramebuffers
#define glGetError cg_gl_fn.GetError
#define glGetFloatv cg_gl_fn.GetFloatv
#define glGetFramebufferAttachmentParameteriv cg_gl_fn.GetFramebufferAttachmentParameteriv
#define glGetIntegerv cg_gl_fn.GetIntegerv
#define glGetString cg_gl_fn.GetString
#define glGetStringi cg_gl_fn.GetStringi
#define glGetTexLevelParameteriv cg_gl_fn.GetTexLevelParameteriv
#define glIsBuffer cg_gl_fn.IsBuffer
#define glIsEnabled cg_gl_fn.IsEnabled
#define glIsFramebuffer cg_gl_fn.IsFramebuffer
#define glIsTexture cg_gl_fn.IsTexture
#define glMapBufferRange cg_gl_fn.MapBufferRange
#define glPixelStorei cg_gl_fn.PixelStorei
#define glPixelTransferf cg_gl_fn.PixelTransferf
#define glPixelTransferi cg_gl_fn.PixelTransferi
#define glReadBuffer cg_gl_fn.ReadBuffer
#define glReadPixels cg_gl_fn.ReadPixels
#define glUnmapBuffer cg_gl_fn.UnmapBuffer

#endif /* CG_GL_API_H */
