/*
 * test_gl_wgl.c - the Windows DLL's GL natives on a real WGL context, under
 * Wine (its opengl32 on the host's Mesa, llvmpipe under Xvfb: wgl_run.sh).
 *
 * The program plays the game: it makes a hidden window and a WGL context
 * (ChoosePixelFormat, SetPixelFormat, wglCreateContext, wglMakeCurrent),
 * prints the GL_RENDERER it got, fills textures with known content
 * (glTexImage2D) and calls native-lib.dll's natives as the JVM does, through
 * the fake JNIEnv of tests/common/fake_jni.c. Expected bytes are computed
 * here, independently of the library: the scene of tests/gl/GlCaptureTest
 * (the same quads, clear colour and sizes, so the same bytes as the Linux
 * GL tests) through the wire format's nearest mapping, the cursor as
 * tests/common/cursor_spec.h types it in from docs/wire-format.md, and
 * depth by docs/wire-format.md's formula.
 *
 * Usage: test_gl_wgl <native-lib.dll> <case> [OUT_DIR]
 *   color   sizes 1x1 to 640x360, resize down and up, the cursor, a texture
 *           reallocated at other sizes under its name; RAW (with
 *           isExtensionAvailable false and true) and PNG, in every reader
 *           mode (CG_GL_PACK, one render thread each); with OUT_DIR the
 *           PNGs, RAW bytes and expected pictures for the host's PIL
 *           (tests/core/png_raw_check.py)
 *   depth   raw and linearised depth, both clip ranges
 *   state   each read-affecting GL state set by the "game" (pack store,
 *           clamp, sRGB, pixel transfer, pack buffer, read framebuffer):
 *           bytes as expected and every state as it was; a texture deleted
 *           and made again under its name reads the new pixels
 *   errors  no context (before one, on another thread, after release),
 *           initializeGLEW, bad sizes, modes, texture names, near/far
 * Exits 1 on a failed check, 77 when no window or WGL context can be made.
 */
#include <windows.h>

#include <GL/gl.h>
#include <GL/glext.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h"
#include "cursor_spec.h"
#include "depth_ref.h"
#include "fake_jni.h"
#include "test_files.h"

#define IAE "java/lang/IllegalArgumentException"
#define ISE "java/lang/IllegalStateException"

/* ---- the "game": a hidden window, a WGL context, GL 1.2+ functions ----- */

static HDC g_dc;
static HGLRC g_rc;
static PFNGLGENFRAMEBUFFERSPROC pglGenFramebuffers;
static PFNGLBINDFRAMEBUFFERPROC pglBindFramebuffer;
static PFNGLFRAMEBUFFERTEXTURE2DPROC pglFramebufferTexture2D;
static PFNGLDELETEFRAMEBUFFERSPROC pglDeleteFramebuffers;
static PFNGLGENBUFFERSPROC pglGenBuffers;
static PFNGLBINDBUFFERPROC pglBindBuffer;
static PFNGLBUFFERDATAPROC pglBufferData;
static PFNGLDELETEBUFFERSPROC pglDeleteBuffers;
static PFNGLCLAMPCOLORPROC pglClampColor;
static PFNGLGETSTRINGIPROC pglGetStringi;

/* gl_hostile.h's GL 1.2+ calls, through these pointers. */
#define glClampColor pglClampColor
#define glBindBuffer pglBindBuffer
#define glBindFramebuffer pglBindFramebuffer
#define glGenBuffers pglGenBuffers
#define glBufferData pglBufferData
#define glDeleteBuffers pglDeleteBuffers
#define glGenFramebuffers pglGenFramebuffers
#define glFramebufferTexture2D pglFramebufferTexture2D
#define glDeleteFramebuffers pglDeleteFramebuffers
#include "gl_hostile.h"

static void (*gl_proc(const char *name))(void)
{
    return (void (*)(void))wglGetProcAddress(name);
}

/* 0: a context is current; 77 (printed why): none can be made here. */
static int open_context(void)
{
    /* A desktop of this process's own: Wine binds a desktop to the display
     * driver of the process that made it, and the prefix's default one may
     * come from a Wine program started without a display (the core tests
     * run beside this one with DISPLAY unset), where no window can be made. */
    char desk[64];
    snprintf(desk, sizeof desk, "cg_gl_wgl_%lu", (unsigned long)GetCurrentProcessId());
    HDESK d = CreateDesktopA(desk, NULL, NULL, 0, GENERIC_ALL, NULL);
    if (!d || !SetThreadDesktop(d)) {
        printf("SKIP: no desktop of its own (%lu)\n", (unsigned long)GetLastError());
        return 77;
    }
    HINSTANCE inst = GetModuleHandleA(NULL);
    WNDCLASSA wc;
    memset(&wc, 0, sizeof wc);
    wc.style = CS_OWNDC;
    wc.lpfnWndProc = DefWindowProcA;
    wc.hInstance = inst;
    wc.lpszClassName = "cg_wgl_test";
    if (!RegisterClassA(&wc)) {
        printf("SKIP: RegisterClass failed (%lu)\n", (unsigned long)GetLastError());
        return 77;
    }
    HWND w = CreateWindowA("cg_wgl_test", "cg", WS_OVERLAPPEDWINDOW, 0, 0, 64, 64, NULL, NULL,
                           inst, NULL); /* never shown */
    if (!w) {
        printf("SKIP: no window (%lu): is an X server there (xvfb-run)?\n",
               (unsigned long)GetLastError());
        return 77;
    }
    g_dc = GetDC(w);
    PIXELFORMATDESCRIPTOR pfd;
    memset(&pfd, 0, sizeof pfd);
    pfd.nSize = sizeof pfd;
    pfd.nVersion = 1;
    pfd.dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
    pfd.iPixelType = PFD_TYPE_RGBA;
    pfd.cColorBits = 32;
    pfd.cDepthBits = 24;
    int pf = ChoosePixelFormat(g_dc, &pfd);
    if (!pf || !SetPixelFormat(g_dc, pf, &pfd)) {
        printf("SKIP: no GL pixel format (%lu)\n", (unsigned long)GetLastError());
        return 77;
    }
    g_rc = wglCreateContext(g_dc);
    if (!g_rc || !wglMakeCurrent(g_dc, g_rc)) {
        printf("SKIP: no WGL context (%lu)\n", (unsigned long)GetLastError());
        return 77;
    }
    fprintf(stderr, "WGL context: GL_RENDERER %s, GL_VERSION %s\n",
            (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
    printf("WGL context: GL_RENDERER %s, GL_VERSION %s\n", (const char *)glGetString(GL_RENDERER),
           (const char *)glGetString(GL_VERSION));
    pglGenFramebuffers = (PFNGLGENFRAMEBUFFERSPROC)gl_proc("glGenFramebuffers");
    pglBindFramebuffer = (PFNGLBINDFRAMEBUFFERPROC)gl_proc("glBindFramebuffer");
    pglFramebufferTexture2D = (PFNGLFRAMEBUFFERTEXTURE2DPROC)gl_proc("glFramebufferTexture2D");
    pglDeleteFramebuffers = (PFNGLDELETEFRAMEBUFFERSPROC)gl_proc("glDeleteFramebuffers");
    pglGenBuffers = (PFNGLGENBUFFERSPROC)gl_proc("glGenBuffers");
    pglBindBuffer = (PFNGLBINDBUFFERPROC)gl_proc("glBindBuffer");
    pglBufferData = (PFNGLBUFFERDATAPROC)gl_proc("glBufferData");
    pglDeleteBuffers = (PFNGLDELETEBUFFERSPROC)gl_proc("glDeleteBuffers");
    pglClampColor = (PFNGLCLAMPCOLORPROC)gl_proc("glClampColor");
    pglGetStringi = (PFNGLGETSTRINGIPROC)gl_proc("glGetStringi");
    if (!pglGenFramebuffers || !pglBindFramebuffer || !pglFramebufferTexture2D ||
        !pglDeleteFramebuffers || !pglGenBuffers || !pglBindBuffer || !pglBufferData ||
        !pglDeleteBuffers || !pglClampColor || !pglGetStringi) {
        printf("SKIP: the WGL context lacks GL 3.0 entry points\n");
        return 77;
    }
    return 0;
}

static int has_extension(const char *name)
{
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)pglGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0) return 1;
    }
    return 0;
}

static void check(int ok, const char *why, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL %s: %s\n", what, why);
        fake_failures++;
    }
}

/* ---- the natives, as the JVM calls them --------------------------------- */

typedef __typeof__(&Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferImpl)
    capture_fn;
typedef __typeof__(&Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureDepthImpl)
    depth_fn;
typedef __typeof__(&Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeGLEW)
    glew_fn;
static capture_fn capture;
static depth_fn depth;
static glew_fn glew;
static jobject self;

/* ---- the scene of tests/gl/GlCaptureTest.java ---------------------------- */

static const uint8_t k_clear[3] = {10, 20, 30};

/* x0, y0, x1, y1 (GL coordinates, bottom-up) and colour of each quad;
 * later quads cover earlier ones. */
static void scene_quads(int w, int h, int q[3][7])
{
    const int v[3][7] = {
        {0, 0, (w + 1) / 2, (h + 1) / 2, 255, 0, 0},
        {w / 3, h / 3, w, h, 0, 255, 0},
        {w / 4, 0, w / 4 + 1, h, 1, 2, 253},
    };
    memcpy(q, v, sizeof v);
}

/* The scene's pixel (x, y), y from the bottom. */
static void scene_rgb(int w, int h, int x, int y, uint8_t out[3])
{
    int q[3][7];
    scene_quads(w, h, q);
    memcpy(out, k_clear, 3);
    for (int i = 0; i < 3; i++) {
        if (x >= q[i][0] && x < q[i][2] && y >= q[i][1] && y < q[i][3]) {
            out[0] = (uint8_t)q[i][4];
            out[1] = (uint8_t)q[i][5];
            out[2] = (uint8_t)q[i][6];
        }
    }
}

/* Upload the scene into `tex` (made when 0) as RGBA8, w x h. */
static GLuint scene_texture(GLuint tex, int w, int h)
{
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) exit(3);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *p = px + ((size_t)y * (size_t)w + (size_t)x) * 4;
            scene_rgb(w, h, x, y, p);
            p[3] = 255;
        }
    }
    if (!tex) glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    free(px);
    if (glGetError() != GL_NO_ERROR) {
        fprintf(stderr, "FAIL uploading a %dx%d scene\n", w, h);
        fake_failures++;
    }
    return tex;
}

/* What RAW must hold for the w x h scene read into tw x th: bottom-up RGB8,
 * pixel (x, y) = scene (x*w/tw, y*h/th), then the cursor at (cx, cy). */
static uint8_t *expect_rgb(int w, int h, int tw, int th, int cursor, int cx, int cy)
{
    uint8_t *e = malloc((size_t)tw * (size_t)th * 3);
    if (!e) exit(3);
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++)
            scene_rgb(w, h, (int)((long long)x * w / tw), (int)((long long)y * h / th),
                      e + ((size_t)y * (size_t)tw + (size_t)x) * 3);
    if (cursor) spec_overlay_cursor(e, tw, th, cx, cy);
    return e;
}

/* ---- color ---------------------------------------------------------------- */

static const char *g_out;  /* OUT_DIR for the host's PIL, or NULL */
static FILE *g_manifest;

/* The expected picture upright as RGBA (png_raw_check.py's .rgba), the RAW
 * bytes and the PNG, for the host's PIL. */
static void dump_for_pil(const char *name, const uint8_t *want, int tw, int th, jobject raw,
                         jobject png)
{
    size_t n = (size_t)tw * (size_t)th * 4;
    uint8_t *up = malloc(n);
    if (!up) exit(3);
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++) {
            const uint8_t *s = want + ((size_t)(th - 1 - y) * (size_t)tw + (size_t)x) * 3;
            uint8_t *d = up + ((size_t)y * (size_t)tw + (size_t)x) * 4;
            d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = 255;
        }
    if (!cg_test_write_file(g_out, name, "rgba", up, n) ||
        !cg_test_write_file(g_out, name, "raw", F(raw)->bytes, (size_t)F(raw)->len) ||
        !cg_test_write_file(g_out, name, "jni.png", F(png)->bytes, (size_t)F(png)->len)) {
        fprintf(stderr, "FAIL %s: not written to %s\n", name, g_out);
        fake_failures++;
    } else {
        fprintf(g_manifest, "%s %d %d jni\n", name, tw, th);
    }
    free(up);
}

static const char *g_mode = "auto";

/* One capture of the scene in tex (w x h) into tw x th: RAW twice
 * (isExtensionAvailable false, true) against the expected bytes, and PNG
 * (checked by the host's PIL in the "auto" round). */
static void color_case(GLuint tex, int w, int h, int tw, int th, int cursor, int cx, int cy)
{
    char what[160];
    snprintf(what, sizeof what, "mode %s: %dx%d -> %dx%d%s", g_mode, w, h, tw, th,
             cursor ? " cursor" : "");
    uint8_t *want = expect_rgb(w, h, tw, th, cursor, cx, cy);
    size_t len = (size_t)tw * (size_t)th * 3;
    jobject raw = NULL;
    for (int ext = 0; ext < 2; ext++) {
        raw = capture(fake_env, self, (jint)tex, w, h, tw, th, 0, ext ? JNI_TRUE : JNI_FALSE,
                      cursor ? JNI_TRUE : JNI_FALSE, cx, cy);
        expect_no_throw(what);
        int ok = raw && (size_t)F(raw)->len == len && memcmp(F(raw)->bytes, want, len) == 0;
        if (!ok && raw && (size_t)F(raw)->len == len) {
            for (size_t i = 0; i < len; i += 3) {
                if (memcmp(F(raw)->bytes + i, want + i, 3) != 0) {
                    const uint8_t *g = (const uint8_t *)F(raw)->bytes + i;
                    fprintf(stderr, "  pixel (%d,%d): got %u,%u,%u want %u,%u,%u\n",
                            (int)(i / 3 % (size_t)tw), (int)(i / 3 / (size_t)tw), g[0], g[1],
                            g[2], want[i], want[i + 1], want[i + 2]);
                    break;
                }
            }
        }
        check(ok, "RAW bytes differ from the expected ones", what);
    }
    jobject png = capture(fake_env, self, (jint)tex, w, h, tw, th, 1, JNI_TRUE,
                          cursor ? JNI_TRUE : JNI_FALSE, cx, cy);
    expect_no_throw(what);
    static const jbyte sig[8] = {-119, 'P', 'N', 'G', '\r', '\n', 26, '\n'};
    check(png && F(png)->len > 8 && memcmp(F(png)->bytes, sig, 8) == 0, "no PNG signature", what);
    if (g_out && g_manifest && raw && png && !fake_failures) {
        char name[64];
        snprintf(name, sizeof name, "wgl_%dx%d_%dx%d%s", w, h, tw, th, cursor ? "_cursor" : "");
        dump_for_pil(name, want, tw, th, raw, png);
    }
    free(want);
}

static void color_round(void)
{
    static const int sizes[][2] = {{37, 19}, {1, 1}, {640, 360}, {64, 64}, {2, 3}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        GLuint t = scene_texture(0, sizes[i][0], sizes[i][1]);
        color_case(t, sizes[i][0], sizes[i][1], sizes[i][0], sizes[i][1], 0, 0, 0);
        glDeleteTextures(1, &t);
    }
    GLuint t = scene_texture(0, 37, 19);
    color_case(t, 37, 19, 20, 10, 0, 0, 0);
    color_case(t, 37, 19, 80, 41, 1, 70, -3);
    color_case(t, 37, 19, 37, 19, 1, 3, 4);
    color_case(t, 37, 19, 37, 19, 1, 30, 10);
    glDeleteTextures(1, &t);
    /* The same name reallocated at other sizes between calls. */
    t = scene_texture(0, 64, 32);
    color_case(t, 64, 32, 64, 32, 0, 0, 0);
    scene_texture(t, 33, 45);
    color_case(t, 33, 45, 33, 45, 0, 0, 0);
    scene_texture(t, 128, 72);
    color_case(t, 128, 72, 64, 36, 0, 0, 0);
    glDeleteTextures(1, &t);
}

/* Each reader mode on a render thread of its own (the natives keep one
 * reader per thread, its mode read from CG_GL_PACK when it is made). */
static DWORD WINAPI color_thread(LPVOID arg)
{
    (void)arg;
    if (!wglMakeCurrent(g_dc, g_rc)) {
        fprintf(stderr, "FAIL wglMakeCurrent on the render thread\n");
        fake_failures++;
        return 1;
    }
    color_round();
    wglMakeCurrent(NULL, NULL);
    return 0;
}

static void run_color(void)
{
    g_manifest = NULL;
    if (g_out) {
        char path[1024];
        snprintf(path, sizeof path, "%s/manifest.txt", g_out);
        g_manifest = fopen(path, "w");
        check(g_manifest != NULL, "cannot write the manifest", path);
    }
    color_round(); /* this thread: CG_GL_PACK unset, the mode llvmpipe gets (bands) */
    if (g_manifest) fclose(g_manifest);
    g_out = NULL;
    static const char *modes[] = {"rgba", "rgb", "bands", "pbo", "pbo_rgb"};
    wglMakeCurrent(NULL, NULL);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        char env[64];
        snprintf(env, sizeof env, "CG_GL_PACK=%s", modes[m]);
        _putenv(env);
        g_mode = modes[m];
        HANDLE th = CreateThread(NULL, 0, color_thread, NULL, 0, NULL);
        if (!th) exit(3);
        WaitForSingleObject(th, INFINITE);
        CloseHandle(th);
    }
    _putenv("CG_GL_PACK=");
    wglMakeCurrent(g_dc, g_rc);
}

/* ---- depth ------------------------------------------------------------------ */

/* Reverse-Z window depth of eye distance z (1 = near, 0 = far). */
static double window_depth(double z, double n, double f, int z01)
{
    return z01 ? n * (f - z) / (z * (f - n)) : ((2 * n * f / z - n - f) / (f - n) + 1) / 2;
}

enum { DW = 37, DH = 19 };
static const double k_dq[][5] = {
    {0, 0, 7, 19, 0.1},   {7, 0, 14, 19, 1.0},   {14, 0, 21, 19, 2.5},
    {21, 0, 28, 10, 10.0}, {28, 0, 33, 19, 50.0}, {21, 10, 28, 19, 99.0},
};

/* Eye distance at (x, y): the nearest quad there, the far plane elsewhere. */
static double eye_z(int x, int y, double f)
{
    double z = f;
    for (size_t i = 0; i < sizeof k_dq / sizeof k_dq[0]; i++)
        if (x >= k_dq[i][0] && x < k_dq[i][2] && y >= k_dq[i][1] && y < k_dq[i][3] &&
            k_dq[i][4] < z)
            z = k_dq[i][4];
    return z;
}

/* A GL_DEPTH_COMPONENT32F texture holding the scene's window depth. */
static GLuint depth_texture(float *d, double n, double f, int z01)
{
    for (int y = 0; y < DH; y++)
        for (int x = 0; x < DW; x++) d[y * DW + x] = (float)window_depth(eye_z(x, y, f), n, f, z01);
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, DW, DH, 0, GL_DEPTH_COMPONENT, GL_FLOAT,
                 d);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    check(glGetError() == GL_NO_ERROR, "GL error", "depth texture upload");
    return t;
}

/* The ends of [0, 1] and between (0, 1, subnormals, the floats next to 1:
 * depth_ref.h's edge values) in a 64x8 texture: raw bit for bit, linear
 * within one ulp of the formula, both clip ranges. */
static void run_depth_edges(void)
{
    enum { EW = 64, EH = 8 };
    static float e[EW * EH];
    depth_edges(e, EW * EH, 7);
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT32F, EW, EH, 0, GL_DEPTH_COMPONENT, GL_FLOAT,
                 e);
    glBindTexture(GL_TEXTURE_2D, 0);
    for (int z01 = 0; z01 < 2; z01++) {
        char what[64];
        snprintf(what, sizeof what, "depth edge values zZeroToOne %d", z01);
        jobject raw = depth(fake_env, self, (jint)t, EW, EH, JNI_FALSE, 0.0f, 0.0f,
                            z01 ? JNI_TRUE : JNI_FALSE);
        expect_no_throw(what);
        jobject lin = depth(fake_env, self, (jint)t, EW, EH, JNI_TRUE, 0.05f, 1000.0f,
                            z01 ? JNI_TRUE : JNI_FALSE);
        expect_no_throw(what);
        int bad = !raw || !lin || F(raw)->len != EW * EH || F(lin)->len != EW * EH;
        for (int i = 0; !bad && i < EW * EH; i++) {
            float want = depth_reference(e[i], 0.05f, 1000.0f, z01);
            if (memcmp(&F(raw)->floats[i], &e[i], 4) != 0 ||
                depth_ulps(F(lin)->floats[i], want) > 1) {
                fprintf(stderr, "  %s [%d]: raw %.9g want %.9g, linear %.9g want %.9g\n", what,
                        i, (double)F(raw)->floats[i], (double)e[i], (double)F(lin)->floats[i],
                        (double)want);
                bad = 1;
            }
        }
        check(!bad, "values off", what);
        if (!bad) printf("ok   %s: %d values\n", what, EW * EH);
    }
    glDeleteTextures(1, &t);
}

static void run_depth(void)
{
    /* Pairs whose [near, far] holds every quad's eye distance (0.1 to 99). */
    static const float planes[][2] = {{0.1f, 100.0f}, {0.05f, 1000.0f}, {0.1f, 99.5f}};
    float d[DW * DH];
    for (size_t p = 0; p < sizeof planes / sizeof planes[0]; p++) {
        for (int z01 = 0; z01 < 2; z01++) {
            const double n = planes[p][0], f = planes[p][1];
            GLuint t = depth_texture(d, n, f, z01);
            char what[96];
            snprintf(what, sizeof what, "depth near %g far %g zZeroToOne %d", n, f, z01);
            jobject raw = depth(fake_env, self, (jint)t, DW, DH, JNI_FALSE, 0.0f, 0.0f,
                                z01 ? JNI_TRUE : JNI_FALSE);
            expect_no_throw(what);
            jobject lin = depth(fake_env, self, (jint)t, DW, DH, JNI_TRUE, planes[p][0],
                                planes[p][1], z01 ? JNI_TRUE : JNI_FALSE);
            expect_no_throw(what);
            if (!raw || !lin || F(raw)->len != DW * DH || F(lin)->len != DW * DH) {
                check(0, "no array of 37x19 floats", what);
                glDeleteTextures(1, &t);
                continue;
            }
            int bad = 0;
            for (int i = 0; i < DW * DH; i++) {
                const float r = F(raw)->floats[i], l = F(lin)->floats[i];
                /* raw: the stored float, bit for bit; linear: the documented
                 * formula of that float within one ulp, and the scene's eye
                 * distance / far as the Linux tests allow */
                float want = depth_reference(d[i], planes[p][0], planes[p][1], z01);
                double scene = eye_z(i % DW, i / DW, f) / f;
                double tol = z01 ? 1e-6 : 1e-4;
                if (memcmp(&r, &d[i], 4) != 0 || depth_ulps(l, want) > 1 || fabs(l - scene) > tol) {
                    if (bad++ < 3)
                        fprintf(stderr, "  %s (%d,%d): raw %.9g want %.9g, linear %.9g want "
                                        "%.9g (scene %.9g)\n",
                                what, i % DW, i / DW, (double)r, (double)d[i], (double)l,
                                (double)want, scene);
                }
            }
            check(bad == 0, "values off", what);
            if (!bad) printf("ok   %s: %d raw and linear values\n", what, DW * DH);
            glDeleteTextures(1, &t);
        }
    }
    run_depth_edges();
}

/* ---- state ----------------------------------------------------------------- */

static hostile_objects g_objs;
static int g_compat; /* a compatibility profile: the pixel transfer state exists */

static int hostile_applies(const struct hostile *h)
{
    return (!h->compat || g_compat) && (h->ext == NULL || has_extension(h->ext));
}

/* Every hostile state's value (-1 where its extension is missing), then the
 * bindings and the other values the library saves and restores. */
enum { STATE_N = HS_COUNT + 7 };
static void query_state(float *v)
{
    for (int i = 0; i < HS_COUNT; i++) {
        v[i] = -1.0f;
        if (!hostile_applies(&k_hostile[i])) continue;
        if (k_hostile[i].kind == HS_ENABLE) v[i] = glIsEnabled(k_hostile[i].pname);
        else glGetFloatv(k_hostile[i].pname, &v[i]);
    }
    static const GLenum more[7] = {GL_DRAW_FRAMEBUFFER_BINDING, GL_TEXTURE_BINDING_2D,
                                   GL_ACTIVE_TEXTURE, GL_READ_BUFFER, GL_UNPACK_ALIGNMENT,
                                   GL_PACK_ALIGNMENT, GL_PIXEL_PACK_BUFFER_BINDING};
    for (int i = 0; i < 7; i++) {
        GLint x = 0;
        glGetIntegerv(more[i], &x);
        v[HS_COUNT + i] = (float)x;
    }
}

static void run_state(void)
{
    GLint mask = 0;
    glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
    g_compat = (mask & GL_CONTEXT_COMPATIBILITY_PROFILE_BIT) != 0;
    printf("     a %s profile context\n", g_compat ? "compatibility" : "core");
    hostile_objects *o = &g_objs;
    check(hostile_objects_create(o) == GL_NO_ERROR, "GL error",
          "the game's pack buffer and framebuffer");
    GLuint col = scene_texture(0, 37, 19);
    float d[DW * DH];
    GLuint dep = depth_texture(d, 0.1, 100.0, 0);
    /* The game's own texture binding, which the reads must leave. */
    glBindTexture(GL_TEXTURE_2D, o->tex[0]);
    uint8_t *want = expect_rgb(37, 19, 37, 19, 0, 0, 0);

    for (int i = 0; i < HS_COUNT; i++) {
        const struct hostile *h = &k_hostile[i];
        if (!hostile_applies(h)) {
            printf("--   %s: not in this context (%s), not tested\n", h->name,
                   h->ext ? h->ext : "compatibility profile");
            continue;
        }
        hostile_set(h, o, 1);
        check(glGetError() == GL_NO_ERROR, "GL error", h->name);
        float before[STATE_N], after[STATE_N];
        query_state(before);
        int ok = 1;
        for (int k = 0; k < 2; k++) {
            jobject raw = capture(fake_env, self, (jint)col, 37, 19, 37, 19, 0, JNI_FALSE,
                                  JNI_FALSE, 0, 0);
            expect_no_throw(h->name);
            ok &= raw && F(raw)->len == 37 * 19 * 3 &&
                  memcmp(F(raw)->bytes, want, 37 * 19 * 3) == 0;
            jobject png = capture(fake_env, self, (jint)col, 37, 19, 20, 10, 1, JNI_FALSE,
                                  JNI_FALSE, 0, 0);
            expect_no_throw(h->name);
            ok &= png != NULL;
            jobject dr = depth(fake_env, self, (jint)dep, DW, DH, JNI_FALSE, 0.0f, 0.0f,
                               JNI_FALSE);
            expect_no_throw(h->name);
            ok &= dr && F(dr)->len == DW * DH && memcmp(F(dr)->floats, d, sizeof d) == 0;
            query_state(after);
            for (int s = 0; s < STATE_N; s++) {
                if (memcmp(&before[s], &after[s], sizeof before[s]) != 0) {
                    fprintf(stderr, "  %s: state %d was %g, is %g after the reads\n", h->name,
                            s, (double)before[s], (double)after[s]);
                    ok = 0;
                }
            }
        }
        check(ok, "bytes or state changed", h->name);
        if (ok) printf("ok   %s set by the game: bytes as expected, state as it was\n", h->name);
        hostile_set(h, o, 0);
    }
    free(want);

    /* The game deletes its texture and makes a new one that gets the same
     * name (bound again by hand, which this compatibility context allows):
     * the read gives the new pixels, never the deleted texture's. */
    enum { W = 8, H = 4 };
    uint8_t px[W * H * 4];
    GLuint tex = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 0) glGenTextures(1, &tex);
        else glDeleteTextures(1, &tex);
        glBindTexture(GL_TEXTURE_2D, tex);
        for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(round ? 200 - i : 3 * i + 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
        check(glGetError() == GL_NO_ERROR && glIsTexture(tex), "GL error",
              "a texture made again under its name");
        jobject raw = capture(fake_env, self, (jint)tex, W, H, W, H, 0, JNI_FALSE, JNI_FALSE, 0, 0);
        expect_no_throw("a texture made again under its name");
        int ok = raw && F(raw)->len == W * H * 3;
        for (int i = 0; ok && i < W * H; i++)
            ok = memcmp(F(raw)->bytes + i * 3, px + i * 4, 3) == 0;
        check(ok, round ? "the deleted texture's pixels" : "wrong pixels",
              "a texture made again under its name");
        if (ok) printf("ok   texture %u, round %d: its own pixels\n", tex, round);
    }
    glDeleteTextures(1, &tex);
    glDeleteTextures(1, &col);
    glDeleteTextures(1, &dep);
    hostile_objects_destroy(o);
}

/* ---- errors ---------------------------------------------------------------- */

static void no_context(const char *when)
{
    char what[96];
    snprintf(what, sizeof what, "initializeGLEW %s", when);
    check(glew(fake_env, self) == JNI_FALSE, "true without a context", what);
    expect_no_throw(what);
    snprintf(what, sizeof what, "captureFramebufferImpl %s", when);
    capture(fake_env, self, 1, 8, 8, 8, 8, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_throw(what, ISE);
    snprintf(what, sizeof what, "captureDepthImpl %s", when);
    depth(fake_env, self, 1, 8, 8, JNI_TRUE, 0.1f, 100.0f, JNI_FALSE);
    expect_throw(what, ISE);
}

static DWORD WINAPI no_context_thread(LPVOID arg)
{
    (void)arg;
    no_context("on another thread");
    return 0;
}

/* expect_throw, and the message names the field and the size. */
static void expect_naming(const char *what, const char *field, int a, int b)
{
    char size[40];
    snprintf(size, sizeof size, "%dx%d", a, b);
    if (fake_pending && (!strstr(fake_message, field) || !strstr(fake_message, size))) {
        fprintf(stderr, "FAIL %s: the message does not name %s %s: %s\n", what, field, size,
                fake_message);
        fake_failures++;
    }
    expect_throw(what, IAE);
}

static void run_errors_with_context(void)
{
    check(glew(fake_env, self) == JNI_TRUE, "false with a context", "initializeGLEW");
    GLuint tex = scene_texture(0, 37, 19);
    float d[DW * DH];
    GLuint dep = depth_texture(d, 0.1, 100.0, 0);
    const int w = 37, h = 19;
    static const int dims[][2] = {{0, 19}, {37, 0}, {-1, 19}, {37, -5}, {16385, 19},
                                  {37, 16385}, {INT32_MIN, 19}};
    char what[96];
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        const int a = dims[i][0], b = dims[i][1];
        snprintf(what, sizeof what, "texture size %dx%d", a, b);
        capture(fake_env, self, (jint)tex, a, b, 8, 8, 0, JNI_FALSE, JNI_FALSE, 0, 0);
        expect_naming(what, "texture", a, b);
        snprintf(what, sizeof what, "target size %dx%d", a, b);
        capture(fake_env, self, (jint)tex, w, h, a, b, 0, JNI_FALSE, JNI_FALSE, 0, 0);
        expect_naming(what, "target", a, b);
        snprintf(what, sizeof what, "PNG target size %dx%d", a, b);
        capture(fake_env, self, (jint)tex, w, h, a, b, 1, JNI_FALSE, JNI_FALSE, 0, 0);
        expect_naming(what, "target", a, b);
        snprintf(what, sizeof what, "depth size %dx%d", a, b);
        depth(fake_env, self, (jint)dep, a, b, JNI_FALSE, 0.0f, 0.0f, JNI_FALSE);
        expect_naming(what, "depth", a, b);
    }
    static const int modes[] = {2, 3, 4, -1, 99};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        snprintf(what, sizeof what, "encoding mode %d", modes[i]);
        capture(fake_env, self, (jint)tex, w, h, w, h, modes[i], JNI_FALSE, JNI_FALSE, 0, 0);
        expect_throw(what, IAE);
    }
    GLuint empty = 0; /* a name with no storage: generated and bound, never defined */
    glGenTextures(1, &empty);
    glBindTexture(GL_TEXTURE_2D, empty);
    glBindTexture(GL_TEXTURE_2D, 0);
    const jint colour_ids[] = {0, -1, 987654, (jint)empty, (jint)dep};
    for (size_t i = 0; i < 5; i++) {
        snprintf(what, sizeof what, "color texture id %d", (int)colour_ids[i]);
        capture(fake_env, self, colour_ids[i], w, h, w, h, 0, JNI_FALSE, JNI_FALSE, 0, 0);
        expect_throw(what, IAE);
    }
    const jint depth_ids[] = {0, -3, 987654, (jint)empty, (jint)tex};
    for (size_t i = 0; i < 5; i++) {
        snprintf(what, sizeof what, "depth texture id %d", (int)depth_ids[i]);
        depth(fake_env, self, depth_ids[i], w, h, JNI_FALSE, 0.0f, 0.0f, JNI_FALSE);
        expect_throw(what, IAE);
    }
    capture(fake_env, self, (jint)tex, w + 1, h, w, h, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_throw("texture smaller than asked", IAE);
    depth(fake_env, self, (jint)dep, w, h + 1, JNI_FALSE, 0.0f, 0.0f, JNI_FALSE);
    expect_throw("depth texture smaller than asked", IAE);
    static const float planes[][2] = {{0.0f, 100.0f}, {-1.0f, 100.0f}, {10.0f, 10.0f},
                                      {10.0f, 1.0f},  {NAN, 1.0f},     {0.1f, INFINITY}};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++) {
        snprintf(what, sizeof what, "near=%g far=%g", (double)planes[i][0], (double)planes[i][1]);
        depth(fake_env, self, (jint)dep, w, h, JNI_TRUE, planes[i][0], planes[i][1], JNI_FALSE);
        expect_throw(what, IAE);
    }
    /* Planes are used (and checked) only when converting. */
    jobject raw = depth(fake_env, self, (jint)dep, w, h, JNI_FALSE, NAN, -1.0f, JNI_TRUE);
    expect_no_throw("raw depth ignores planes");
    check(raw && F(raw)->len == w * h, "no array", "raw depth ignores planes");
    /* After the errors the natives work as before. */
    uint8_t *want = expect_rgb(w, h, w, h, 0, 0, 0);
    raw = capture(fake_env, self, (jint)tex, w, h, w, h, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_no_throw("a capture after the errors");
    check(raw && F(raw)->len == w * h * 3 && memcmp(F(raw)->bytes, want, (size_t)w * h * 3) == 0,
          "wrong bytes", "a capture after the errors");
    free(want);
    glDeleteTextures(1, &empty);
    glDeleteTextures(1, &tex);
    glDeleteTextures(1, &dep);
}

static void run_errors_without_context(void)
{
    HANDLE th = CreateThread(NULL, 0, no_context_thread, NULL, 0, NULL);
    if (!th) exit(3);
    WaitForSingleObject(th, INFINITE);
    CloseHandle(th);
    wglMakeCurrent(NULL, NULL);
    no_context("after the context was released");
    wglMakeCurrent(g_dc, g_rc);
    GLuint tex = scene_texture(0, 4, 4);
    uint8_t *want = expect_rgb(4, 4, 4, 4, 0, 0, 0);
    jobject raw = capture(fake_env, self, (jint)tex, 4, 4, 4, 4, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_no_throw("current again");
    check(raw && F(raw)->len == 48 && memcmp(F(raw)->bytes, want, 48) == 0, "wrong bytes",
          "current again");
    free(want);
    glDeleteTextures(1, &tex);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: test_gl_wgl <native-lib.dll> <color|depth|state|errors> [OUT_DIR]\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *c = argv[2];
    if (strcmp(c, "color") && strcmp(c, "depth") && strcmp(c, "state") && strcmp(c, "errors")) {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    g_out = argc == 4 ? argv[3] : NULL;
    void *lib = fake_jni_load(argv[1]);
    if (!lib) return 1;
    self = fake_object();
    capture = LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferImpl);
    depth = LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureDepthImpl);
    glew = LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeGLEW);
    if (!capture || !depth || !glew) {
        fprintf(stderr, "FAIL the GL natives are not exported\n");
        return 1;
    }
    if (strcmp(c, "errors") == 0) no_context("before any context");
    int rc = open_context();
    if (rc) return rc;
    if (strcmp(c, "color") == 0) run_color();
    if (strcmp(c, "depth") == 0) run_depth();
    if (strcmp(c, "state") == 0) run_state();
    if (strcmp(c, "errors") == 0) {
        run_errors_with_context();
        run_errors_without_context();
    }
    if (glGetError() != GL_NO_ERROR) {
        fprintf(stderr, "FAIL a GL error was left pending\n");
        fake_failures++;
    }
    if (fake_failures) {
        fprintf(stderr, "%d check(s) failed\n", fake_failures);
        return 1;
    }
    printf("test_gl_wgl %s: every check passed\n", c);
    return 0;
}
