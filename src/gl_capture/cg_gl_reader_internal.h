/*
 * cg_gl_reader_internal.h - internal to src/gl_capture: what the compute
 * dispatch (cg_gl_compute.c) shares with the reader (cg_gl_reader.c),
 * whose struct stays private to it.
 */
#ifndef CG_GL_READER_INTERNAL_H
#define CG_GL_READER_INTERNAL_H

#include <epoxy/gl.h>

#include "cg_err.h"
#include "cg_gl.h"

/* CG_E_BAD_STATE while the reader is failed. */
cg_status cg_gl_usable(cg_gl_reader *r);
/* A GL failure (CG_E_GL) fails the reader; returns st. */
cg_status cg_gl_mark(cg_gl_reader *r, cg_status st);
/* The current context (made the reader's; its GL objects made fresh in a
 * new one) and its capabilities. */
cg_status cg_gl_enter(cg_gl_reader *r);
/* tex is a GL_TEXTURE_2D with a level 0 of at least w x h (*format: its
 * internal format); binds it to GL_TEXTURE_2D of the active unit (the
 * caller restores that). */
cg_status cg_gl_check_texture(cg_gl_reader *r, GLuint tex, int w, int h, int *format);
/* The entered context runs compute shaders (cg_gl_has_compute). */
int cg_gl_reader_can_compute(const cg_gl_reader *r);
/* Where the reader's failures are written (cg_gl_reader_last_error). */
cg_err *cg_gl_reader_err(cg_gl_reader *r);

#endif /* CG_GL_READER_INTERNAL_H */
