/* Headless EGL context for tests, demo and benchmarks (see the header). */
#include "cg_egl_headless.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cg_egl_headless {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLSurface surf;
    char desc[256];
};

enum { CG_EGL_MAX_DEVICES = 16 };

static int cg_egl_init(EGLDisplay d)
{
    EGLint major = 0, minor = 0;
    return d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor);
}

/* Device enumeration: hardware first, software (llvmpipe) second. */
static EGLDisplay cg_egl_device_display(char *desc, size_t desc_len)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!client || !epoxy_extension_in_string(client, "EGL_EXT_platform_device") ||
        !epoxy_extension_in_string(client, "EGL_EXT_device_enumeration")) {
        return EGL_NO_DISPLAY;
    }
    EGLDeviceEXT devs[CG_EGL_MAX_DEVICES];
    EGLint n = 0;
    if (!eglQueryDevicesEXT(CG_EGL_MAX_DEVICES, devs, &n)) return EGL_NO_DISPLAY;
    for (int pass = 0; pass < 2; pass++) {
        for (EGLint i = 0; i < n; i++) {
            const char *ext = eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS);
            int software = ext && epoxy_extension_in_string(ext, "EGL_MESA_device_software");
            if (software != pass) continue;
            EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
            if (cg_egl_init(d)) {
                snprintf(desc, desc_len, "EGL device %d", (int)i);
                return d;
            }
        }
    }
    return EGL_NO_DISPLAY;
}

static EGLDisplay cg_egl_pick_display(char *desc, size_t desc_len)
{
    if (!epoxy_has_egl()) return EGL_NO_DISPLAY;
    EGLDisplay d = cg_egl_device_display(desc, desc_len);
    if (d != EGL_NO_DISPLAY) return d;
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (client && epoxy_extension_in_string(client, "EGL_MESA_platform_surfaceless")) {
        d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (cg_egl_init(d)) {
            snprintf(desc, desc_len, "EGL surfaceless");
            return d;
        }
    }
    d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (cg_egl_init(d)) {
        snprintf(desc, desc_len, "EGL default display");
        return d;
    }
    return EGL_NO_DISPLAY;
}

static int cg_egl_headless_open_profile(cg_egl_headless **out, int compat, char *why,
                                       size_t why_len)
{
    *out = NULL;
    cg_egl_headless *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(why, why_len, "out of memory");
        return 1;
    }
    h->dpy = cg_egl_pick_display(h->desc, sizeof h->desc);
    if (h->dpy == EGL_NO_DISPLAY) {
        snprintf(why, why_len, "no EGL display could be initialised");
        free(h);
        return 1;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(why, why_len, "eglBindAPI(EGL_OPENGL_API) failed: 0x%x", eglGetError());
        cg_egl_headless_close(h);
        return 1;
    }
    int surfaceless = epoxy_has_egl_extension(h->dpy, "EGL_KHR_surfaceless_context");
    int configless = epoxy_has_egl_extension(h->dpy, "EGL_KHR_no_config_context") ||
                     epoxy_has_egl_extension(h->dpy, "EGL_MESA_configless_context");
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    if (!(surfaceless && configless)) {
        const EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                EGL_BLUE_SIZE, 8, EGL_NONE};
        EGLint n = 0;
        if (!eglChooseConfig(h->dpy, attrs, &cfg, 1, &n) || n < 1) {
            snprintf(why, why_len, "%s: no pbuffer config for desktop GL", h->desc);
            cg_egl_headless_close(h);
            return 1;
        }
        const EGLint pb[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        h->surf = eglCreatePbufferSurface(h->dpy, cfg, pb);
    }
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                compat ? EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT
                                       : EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                EGL_NONE};
    h->ctx = eglCreateContext(h->dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (h->ctx == EGL_NO_CONTEXT) {
        snprintf(why, why_len, "%s: eglCreateContext(GL 3.3 %s) failed: 0x%x", h->desc,
                 compat ? "compatibility" : "core", eglGetError());
        cg_egl_headless_close(h);
        return 1;
    }
    if (cg_egl_headless_make_current(h) != 0) {
        snprintf(why, why_len, "%s: eglMakeCurrent failed: 0x%x", h->desc, eglGetError());
        cg_egl_headless_close(h);
        return 1;
    }
    size_t used = strlen(h->desc);
    snprintf(h->desc + used, sizeof h->desc - used, ": %s, GL %s",
             (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
    *out = h;
    return 0;
}

int cg_egl_headless_open(cg_egl_headless **out, char *why, size_t why_len)
{
    return cg_egl_headless_open_profile(out, 0, why, why_len);
}

int cg_egl_headless_open_compat(cg_egl_headless **out, char *why, size_t why_len)
{
    return cg_egl_headless_open_profile(out, 1, why, why_len);
}

int cg_egl_headless_make_current(cg_egl_headless *h)
{
    EGLSurface s = h->surf ? h->surf : EGL_NO_SURFACE;
    return eglMakeCurrent(h->dpy, s, s, h->ctx) ? 0 : 1;
}

int cg_egl_headless_release(cg_egl_headless *h)
{
    return eglMakeCurrent(h->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT) ? 0 : 1;
}

void cg_egl_headless_close(cg_egl_headless *h)
{
    if (!h) return;
    if (h->ctx != EGL_NO_CONTEXT && eglGetCurrentContext() == h->ctx) cg_egl_headless_release(h);
    if (h->ctx != EGL_NO_CONTEXT) eglDestroyContext(h->dpy, h->ctx);
    if (h->surf) eglDestroySurface(h->dpy, h->surf);
    /* eglTerminate would pull the display from under other contexts of this
     * process on the same device; the display is reference-free in EGL 1.5
     * only with EGL_KHR_display_reference, so it is left initialised. */
    free(h);
}

const char *cg_egl_headless_describe(const cg_egl_headless *h)
{
    return h ? h->desc : "";
}

static unsigned cg_gl_shader(GLenum kind, const char *src, char *err, size_t err_len)
{
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(s, (GLsizei)err_len, NULL, err);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

unsigned cg_gl_build_program(const char *vs, const char *fs, char *err, size_t err_len)
{
    GLuint v = cg_gl_shader(GL_VERTEX_SHADER, vs, err, err_len);
    if (!v) return 0;
    GLuint f = cg_gl_shader(GL_FRAGMENT_SHADER, fs, err, err_len);
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(p, (GLsizei)err_len, NULL, err);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}
