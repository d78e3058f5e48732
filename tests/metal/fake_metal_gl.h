/*
 * fake_metal_gl.h - a cg_metal_gl for the Linux test of the Metal backend
 * table (test_metal_backend.c): records what the backend asked of it and
 * fails on demand, so cg_metal_backend.c runs without a Mac.
 */
#ifndef CG_FAKE_METAL_GL_H
#define CG_FAKE_METAL_GL_H

#include <stdint.h>

#include "cg_cursor.h"
#include "cg_status.h"

typedef struct fake_metal_gl_log {
    int creates, destroys, live; /* live: made and not yet destroyed */
    int create_w, create_h;
    int export_pid;
    uint32_t capture_texture;
    int capture_w, capture_h;
    cg_cursor capture_cursor;
    int captures;
    uint32_t port;              /* what export_port hands out */
    cg_status fail_create;      /* CG_OK: succeed */
    cg_status fail_export;
    cg_status fail_capture;
} fake_metal_gl_log;

/* Zeroed by fake_metal_gl_reset; port set to 0x11223344. */
extern fake_metal_gl_log fake_gl;
void fake_metal_gl_reset(void);

#endif /* CG_FAKE_METAL_GL_H */
