/*
 * cg_egl_headless.h - a headless desktop GL 3.3 core context through EGL, for
 * the GL tests, the demo and the benchmarks (never linked into native-lib:
 * in the mod, the game owns the context).
 *
 * Display choice: EGL_EXT_platform_device enumeration, a hardware device
 * (e.g. the NVIDIA GPU) before a software one (Mesa llvmpipe), then Mesa's
 * surfaceless platform, then the default display. The context is made
 * current without a surface (EGL_KHR_surfaceless_context) or, where that is
 * missing, on a 1x1 pbuffer; everything renders into framebuffer objects.
 */
#ifndef CG_EGL_HEADLESS_H
#define CG_EGL_HEADLESS_H

#include <stddef.h>

typedef struct cg_egl_headless cg_egl_headless;

/* Create the context and make it current on the calling thread. Returns 0
 * on success; nonzero with the reason in why (for a test, a reason to exit
 * 77) when no display or context can be made. */
int cg_egl_headless_open(cg_egl_headless **out, char *why, size_t why_len);

/* The same with a GL 3.3 compatibility-profile context (the legacy pixel
 * transfer state exists there), for the tests of state a game may leave. */
int cg_egl_headless_open_compat(cg_egl_headless **out, char *why, size_t why_len);

/* Release (if current on this thread) and destroy; NULL is a no-op. */
void cg_egl_headless_close(cg_egl_headless *h);

/* Make the context current on / release it from the calling thread. 0 = ok. */
int cg_egl_headless_make_current(cg_egl_headless *h);
int cg_egl_headless_release(cg_egl_headless *h);

/* "EGL device 0: llvmpipe (LLVM 15.0.6, 256 bits), GL 4.5 (Core Profile) Mesa 22.3.6" */
const char *cg_egl_headless_describe(const cg_egl_headless *h);

/* Compile and link a vertex+fragment program (GLSL 330 core). Returns the
 * program name, or 0 with the info log in err. */
unsigned cg_gl_build_program(const char *vs, const char *fs, char *err, size_t err_len);

#endif /* CG_EGL_HEADLESS_H */
