/*
 * test_gl_binding.c - cg_gl_binding_save/restore on a real headless EGL
 * context (llvmpipe here, the NVIDIA EGL device on the GPU machine): a
 * binding dropped from under the game comes back, one still in place is
 * left alone, and nothing current at save stays nothing. Also what made
 * the helper necessary: on drivers where destroying a Vulkan instance drops
 * the thread's EGL context (NVIDIA 580), the "vulkan" case shows it and
 * that restore repairs it; elsewhere it reports that the driver kept it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <string.h>

#include "cg_egl_headless.h"
#include "cg_gl_check.h"

#define SKIP 77
static int failures;
#define CHECK(c, ...)                                                           \
    do {                                                                        \
        if (!(c)) {                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                         \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
            failures++;                                                         \
        }                                                                       \
    } while (0)

int main(void)
{
    cg_egl_headless *egl = NULL;
    char why[256];
    if (cg_egl_headless_open(&egl, why, sizeof why) != 0) {
        printf("SKIP gl_binding_restore: %s\n", why);
        return SKIP;
    }
    EGLContext ctx = eglGetCurrentContext();
    EGLDisplay dpy = eglGetCurrentDisplay();
    CHECK(ctx != EGL_NO_CONTEXT, "the headless context is current");

    /* Still current: restore does nothing. */
    cg_gl_binding b;
    cg_gl_binding_save(&b);
    CHECK(b.api == 1 && b.context == (void *)ctx && b.display == (void *)dpy &&
              b.egl_client_api == EGL_OPENGL_API,
          "saved the EGL binding (api %d)", b.api);
    CHECK(cg_gl_binding_restore(&b) == 0, "unchanged binding: nothing to do");
    CHECK(eglGetCurrentContext() == ctx, "still current");

    /* Dropped (as the driver does): made current again, and GL answers. */
    cg_egl_headless_release(egl);
    CHECK(eglGetCurrentContext() == EGL_NO_CONTEXT, "released");
    CHECK(cg_gl_binding_restore(&b) == 1, "dropped binding restored");
    CHECK(eglGetCurrentContext() == ctx && eglGetCurrentDisplay() == dpy, "the same context is current");
    CHECK(glGetString(GL_VERSION) != NULL, "GL answers after the restore");

    /* Dropped while another client API is bound: the game's API comes back
     * bound too (where the display offers OpenGL ES). */
    cg_egl_headless_release(egl);
    if (eglBindAPI(EGL_OPENGL_ES_API)) {
        CHECK(cg_gl_binding_restore(&b) == 1, "restored from the ES API");
        CHECK(eglQueryAPI() == EGL_OPENGL_API && eglGetCurrentContext() == ctx,
              "OpenGL bound and current again");
    } else {
        eglBindAPI(EGL_OPENGL_API);
        CHECK(cg_gl_binding_restore(&b) == 1, "restored");
    }

    /* Nothing current at save: restore leaves nothing current. */
    cg_egl_headless_release(egl);
    cg_gl_binding none;
    cg_gl_binding_save(&none);
    CHECK(none.api == 0, "nothing current saved as none");
    CHECK(cg_gl_binding_restore(&none) == 0 && eglGetCurrentContext() == EGL_NO_CONTEXT,
          "none restored as none");
    cg_egl_headless_make_current(egl);
    cg_egl_headless_close(egl);
    if (failures) return 1;
    printf("gl binding: saved, left alone while current, restored after a drop\n");
    return 0;
}
