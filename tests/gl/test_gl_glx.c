/*
 * GL capture under a GLX context, the way Minecraft (GLFW/LWJGL on X11) runs:
 * the context comes from GLX, not EGL, so cg_gl_current_context must find it
 * through the process's GLX library. Needs an X server (the test runs under
 * xvfb-run when CMake finds it); exits 77 without one.
 */
#include <epoxy/gl.h>
#include <epoxy/glx.h>
#include <stdio.h>
#include <string.h>

#include "cg_gl.h"

static int fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    return 1;
}

int main(void)
{
    Display *dpy = XOpenDisplay(NULL);
    if (!dpy) {
        fprintf(stderr, "SKIP: no X display\n");
        return 77;
    }
    if (cg_gl_current_context(NULL) != CG_E_NO_CONTEXT) return fail("context before any");
    static const int fb_attrs[] = {GLX_DRAWABLE_TYPE, GLX_PBUFFER_BIT, GLX_RENDER_TYPE,
                                   GLX_RGBA_BIT, GLX_RED_SIZE, 8, None};
    int n = 0;
    GLXFBConfig *cfgs = glXChooseFBConfig(dpy, DefaultScreen(dpy), fb_attrs, &n);
    if (!cfgs || n < 1 || !epoxy_has_glx_extension(dpy, DefaultScreen(dpy),
                                                   "GLX_ARB_create_context_profile")) {
        fprintf(stderr, "SKIP: no GLX pbuffer config / core profile\n");
        return 77;
    }
    static const int ctx_attrs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB, 3,
                                    GLX_CONTEXT_MINOR_VERSION_ARB, 3,
                                    GLX_CONTEXT_PROFILE_MASK_ARB,
                                    GLX_CONTEXT_CORE_PROFILE_BIT_ARB, None};
    GLXContext ctx = glXCreateContextAttribsARB(dpy, cfgs[0], NULL, True, ctx_attrs);
    static const int pb_attrs[] = {GLX_PBUFFER_WIDTH, 1, GLX_PBUFFER_HEIGHT, 1, None};
    GLXPbuffer pb = glXCreatePbuffer(dpy, cfgs[0], pb_attrs);
    XFree(cfgs);
    if (!ctx || !glXMakeContextCurrent(dpy, pb, pb, ctx)) return fail("GLX context");
    fprintf(stderr, "GLX: %s, GL %s\n", (const char *)glGetString(GL_RENDERER),
            (const char *)glGetString(GL_VERSION));

    void *key = NULL;
    if (cg_gl_current_context(&key) != CG_OK || key != (void *)ctx)
        return fail("cg_gl_current_context does not see the GLX context");

    /* A 5x3 target: left 2 columns red, the rest cleared blue (scissor). */
    GLuint tex, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 5, 3, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glClearColor(0, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 2, 3);
    glClearColor(1, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glFinish();

    cg_gl_reader *r = NULL;
    uint8_t got[5 * 3 * 3];
    cg_gl_color_request rq = {tex, 5, 3, 5, 3, CG_FILTER_NEAREST, {0, 0, 0}};
    if (cg_gl_reader_create(NULL, &r) != CG_OK) return fail("reader");
    cg_status st = cg_gl_read_color(r, &rq, got, sizeof got, NULL);
    if (st != CG_OK) {
        fprintf(stderr, "%s: %s\n", cg_strerror(st), cg_gl_reader_last_error(r));
        return fail("read under GLX");
    }
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 5; x++) {
            const uint8_t want[3] = {x < 2 ? 255 : 0, 0, x < 2 ? 0 : 255};
            if (memcmp(got + (y * 5 + x) * 3, want, 3) != 0) return fail("pixels under GLX");
        }
    }
    glXMakeContextCurrent(dpy, None, None, NULL);
    if (cg_gl_current_context(NULL) != CG_E_NO_CONTEXT) return fail("released GLX context seen");
    if (cg_gl_read_color(r, &rq, got, sizeof got, NULL) != CG_E_NO_CONTEXT)
        return fail("read without context");
    glXMakeContextCurrent(dpy, pb, pb, ctx);
    cg_gl_reader_destroy(r);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    glXMakeContextCurrent(dpy, None, None, NULL);
    glXDestroyPbuffer(dpy, pb);
    glXDestroyContext(dpy, ctx);
    XCloseDisplay(dpy);
    fprintf(stderr, "GLX capture: ok\n");
    return 0;
}
