/*
 * depth_check.h - what the tests of the GL depth plane (test_gl_depth.c:
 * the pass; test_gl_ring.c: the ring's depth planes) share: depth textures
 * of known content in every accepted format, the oracles, and the
 * comparison.
 *
 * Oracles: raw planes are compared bit for bit with glReadPixels
 * (GL_DEPTH_COMPONENT, GL_FLOAT) of the texture, read here through a
 * framebuffer of the test's own; linear planes with captureDepthImpl's C
 * core (cg_gl_read_depth with cg_gl_depth_linear: the library's CPU
 * readback + cg_depth_linearize, the named oracle) within 2 float
 * ulps, and with the formula applied to the raw plane (the shader's own
 * error) within 2. Both oracles give GL's rows (bottom first); depth_expect maps them
 * to the plane by the RGB plane's nearest rule (docs/zero-copy-v2/protocol.md),
 * upright. Call with the context current.
 */
#ifndef DEPTH_CHECK_H
#define DEPTH_CHECK_H

#include <epoxy/gl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The formats a depth plane accepts (cg_gl_texture_kind). */
static const GLenum DEPTH_FORMATS[] = {GL_DEPTH_COMPONENT32F, GL_DEPTH_COMPONENT24,
                                       GL_DEPTH_COMPONENT,    GL_DEPTH24_STENCIL8,
                                       GL_DEPTH32F_STENCIL8,  GL_DEPTH_COMPONENT16};
#define DEPTH_FORMAT_COUNT (sizeof DEPTH_FORMATS / sizeof DEPTH_FORMATS[0])

/* A fixed-point format (k / (2^b - 1) as a float): texelFetch and
 * glReadPixels each convert it, and drivers round that differently (Mesa
 * llvmpipe's texelFetch of a 24-bit texel is one ulp off its glReadPixels
 * for about 4 in 10 values), so the raw check allows one ulp there (the
 * linear check keeps its 2: one ulp in d moves the result by at most one). */
static inline int depth_fixed_point(GLenum f)
{
    return f != GL_DEPTH_COMPONENT32F && f != GL_DEPTH32F_STENCIL8;
}

static inline const char *depth_format_name(GLenum f)
{
    switch (f) {
    case GL_DEPTH_COMPONENT32F: return "DEPTH_COMPONENT32F";
    case GL_DEPTH_COMPONENT24: return "DEPTH_COMPONENT24";
    case GL_DEPTH_COMPONENT: return "DEPTH_COMPONENT";
    case GL_DEPTH24_STENCIL8: return "DEPTH24_STENCIL8";
    case GL_DEPTH32F_STENCIL8: return "DEPTH32F_STENCIL8";
    case GL_DEPTH_COMPONENT16: return "DEPTH_COMPONENT16";
    case GL_DEPTH_COMPONENT32: return "DEPTH_COMPONENT32";
    default: return "?";
    }
}

/* near/far pairs every linear check runs, each with zZeroToOne 0 and 1. */
static const float DEPTH_PLANES[][2] = {{0.05f, 1000.0f}, {0.1f, 100.0f}, {1.0f, 2.0f},
                                        {16.0f, 16.5f}};
#define DEPTH_PLANE_COUNT (sizeof DEPTH_PLANES / sizeof DEPTH_PLANES[0])

/* Reverse-Z content (1 = near, 0 = far): about 1/8 background 0, 1/16 exactly
 * 1, 1/16 just below 1, a quarter small (u^4), the rest uniform in [0, 1),
 * in GL's row order (row 0 the bottom). */
static inline void depth_fill(float *d, int w, int h, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 7u;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        float u = (float)(x >> 8) / 16777216.0f;
        switch (x & 15u) {
        case 0: case 8: d[i] = 0.0f; break;
        case 1: d[i] = 1.0f; break;
        case 2: d[i] = 1.0f - ldexpf(1.0f, -24 + (int)(x >> 28)); break;
        case 3: case 4: case 5: case 6: d[i] = u * u * u * u; break;
        default: d[i] = u;
        }
    }
}

/* A new GL_TEXTURE_2D of `format` holding d (rounded by GL to the format's
 * precision); 0 on a GL error. The GL_TEXTURE_2D binding is restored. */
static inline GLuint depth_texture(GLenum format, int w, int h, const float *d)
{
    GLint prev = 0, align = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &prev);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &align);
    while (glGetError() != GL_NO_ERROR) {
    }
    GLuint tex = 0;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    size_t n = (size_t)w * (size_t)h;
    if (format == GL_DEPTH24_STENCIL8) {
        uint32_t *p = malloc(n * 4);
        for (size_t i = 0; p && i < n; i++)
            p[i] = ((uint32_t)lrint((double)d[i] * 16777215.0) << 8) | (uint32_t)(i & 255u);
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)format, w, h, 0, GL_DEPTH_STENCIL,
                     GL_UNSIGNED_INT_24_8, p);
        free(p);
    } else if (format == GL_DEPTH32F_STENCIL8) {
        uint32_t *p = malloc(n * 8);
        for (size_t i = 0; p && i < n; i++) {
            memcpy(&p[2 * i], &d[i], 4);
            p[2 * i + 1] = (uint32_t)(i & 255u);
        }
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)format, w, h, 0, GL_DEPTH_STENCIL,
                     GL_FLOAT_32_UNSIGNED_INT_24_8_REV, p);
        free(p);
    } else {
        glTexImage2D(GL_TEXTURE_2D, 0, (GLint)format, w, h, 0, GL_DEPTH_COMPONENT, GL_FLOAT, d);
    }
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, align);
    glBindTexture(GL_TEXTURE_2D, (GLuint)prev);
    if (glGetError() != GL_NO_ERROR) {
        glDeleteTextures(1, &tex);
        return 0;
    }
    return tex;
}

/* The raw oracle: glReadPixels(GL_DEPTH_COMPONENT, GL_FLOAT) of the texture
 * through a framebuffer of the test's own (bottom row first). 0: done. */
static inline int depth_read_pixels(GLuint tex, int w, int h, float *out)
{
    GLint prev_read = 0, prev_pack = 0, align = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &prev_read);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &prev_pack);
    glGetIntegerv(GL_PACK_ALIGNMENT, &align);
    GLuint fbo = 0;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, tex, 0);
    glReadBuffer(GL_NONE);
    int ok = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    if (ok) glReadPixels(0, 0, w, h, GL_DEPTH_COMPONENT, GL_FLOAT, out);
    glPixelStorei(GL_PACK_ALIGNMENT, align);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)prev_pack);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)prev_read);
    glDeleteFramebuffers(1, &fbo);
    return ok && glGetError() == GL_NO_ERROR ? 0 : 1;
}

/* The plane a dw x dh target must hold, upright, from the oracle's GL rows
 * (src, sw x sh, bottom row first): pixel (x, Y) = src[(yb*sh/dh)*sw +
 * x*sw/dw] with yb = dh-1-Y (the spec's mapping, flip 0). */
static inline void depth_expect(const float *src, int sw, int sh, int dw, int dh, float *out)
{
    for (int y = 0; y < dh; y++) {
        size_t sy = (size_t)(dh - 1 - y) * (size_t)sh / (size_t)dh;
        for (int x = 0; x < dw; x++)
            out[(size_t)y * dw + x] = src[sy * (size_t)sw + (size_t)x * (size_t)sw / (size_t)dw];
    }
}

/* Float ulps between a and b (both finite): the distance of their places
 * in the ordered sequence of floats (+0 and -0 at one place). */
static inline uint32_t depth_ulps(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    int64_t dist = (int64_t)ia - (int64_t)ib;
    return (uint32_t)(dist < 0 ? -dist : dist);
}

/* How a plane compares: the largest ulp distance, how many values are past
 * the limit and the first of them. */
typedef struct depth_diff {
    uint32_t max_ulps;
    size_t bad, first;
    float got, want;
} depth_diff;

/* Within max_ulps (0: bit for bit). Returns the count past it. */
static inline size_t depth_compare(const float *got, const float *want, size_t n,
                                   uint32_t max_ulps, depth_diff *dd)
{
    memset(dd, 0, sizeof *dd);
    for (size_t i = 0; i < n; i++) {
        uint32_t u = memcmp(&got[i], &want[i], 4) == 0 ? 0u : depth_ulps(got[i], want[i]);
        if (u == 0 && memcmp(&got[i], &want[i], 4) != 0) u = 1; /* +0 / -0, NaN */
        if (u > dd->max_ulps) dd->max_ulps = u;
        if (u > max_ulps && dd->bad++ == 0) {
            dd->first = i;
            dd->got = got[i];
            dd->want = want[i];
        }
    }
    return dd->bad;
}

#endif /* DEPTH_CHECK_H */
