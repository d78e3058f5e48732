/*
 * demo_frame: the demo's first pictures (frames 0, 45 and 59 of the default
 * 60 at 640x360) rendered by the demo's scene, compared pixel by pixel with
 * an independent ray caster of the scene as voxel_scene.h documents it
 * (heights, block colours, face shading, ambient occlusion, fog). A wrong
 * winding, a missing face, a depth or clear problem or a shading that is
 * not the documented one shows as pixels of the wrong colour. Exit 77 when
 * no EGL context can be made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "voxel_scene.h"

enum { W = 640, H = 360, FRAMES = 60 };
/* A channel may be off by 2 of 255 (rounding of the interpolated colour);
 * pixels whose centre grazes a face's edge may show the neighbouring face:
 * at most 1 in 1000 pixels. */
#define TOLERANCE 2
#define MAX_BAD_FRACTION 0.001

typedef struct {
    double eye[3], fw[3], right[3], up[3], tan_half, aspect;
} camera;

static void normalize(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++) v[i] /= l;
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static camera make_camera(int frame)
{
    float eye[3], at[3];
    vs_camera(frame, FRAMES, eye, at);
    camera c;
    const double world_up[3] = {0, 1, 0};
    for (int i = 0; i < 3; i++) {
        c.eye[i] = eye[i];
        c.fw[i] = (double)at[i] - eye[i];
    }
    normalize(c.fw);
    cross(c.fw, world_up, c.right);
    normalize(c.right);
    cross(c.right, c.fw, c.up);
    c.tan_half = tan(VS_FOVY * 0.5);
    c.aspect = (double)W / H;
    return c;
}

static int solid(int x, int y, int z)
{
    return y >= 0 && y < vs_height_at(x, z);
}

/* The occlusion factor at corner (a, b) (0 or 1 along the face's two other
 * axes) of the face of block blk facing `side` along `axis`. */
static double corner_factor(const int blk[3], int axis, int side, int a, int b)
{
    int t1 = (axis + 1) % 3, t2 = (axis + 2) % 3, p[3];
    memcpy(p, blk, sizeof p);
    p[axis] += side;
    int da = a ? 1 : -1, db = b ? 1 : -1;
    int pa[3] = {p[0], p[1], p[2]}, pb[3] = {p[0], p[1], p[2]}, pd[3] = {p[0], p[1], p[2]};
    pa[t1] += da;
    pb[t2] += db;
    pd[t1] += da;
    pd[t2] += db;
    int sa = solid(pa[0], pa[1], pa[2]), sb = solid(pb[0], pb[1], pb[2]);
    int occ = (sa && sb) ? 3 : sa + sb + solid(pd[0], pd[1], pd[2]);
    return 1.0 - VS_AO_STEP * occ;
}

/* The face's shading at local (u, v) in [0,1]^2: corner factors linear on
 * each triangle of the split along the brighter diagonal. */
static double face_factor(const int blk[3], int axis, int side, double u, double v)
{
    double c00 = corner_factor(blk, axis, side, 0, 0), c10 = corner_factor(blk, axis, side, 1, 0),
           c01 = corner_factor(blk, axis, side, 0, 1), c11 = corner_factor(blk, axis, side, 1, 1);
    if (c00 + c11 >= c10 + c01) {
        if (u >= v) return c00 + (c10 - c00) * u + (c11 - c10) * v;
        return c00 + (c01 - c00) * v + (c11 - c01) * u;
    }
    if (u + v <= 1.0) return c00 + (c10 - c00) * u + (c01 - c00) * v;
    return c11 + (c01 - c11) * (1.0 - u) + (c10 - c11) * (1.0 - v);
}

/* The colour the scene shows along the ray through pixel (px, py), rows
 * bottom-up as glReadPixels returns them. */
static void trace(const camera *c, int px, int py, double out[3])
{
    double nx = (px + 0.5) / W * 2.0 - 1.0, ny = (py + 0.5) / H * 2.0 - 1.0, d[3];
    for (int i = 0; i < 3; i++)
        d[i] = c->fw[i] + c->right[i] * nx * c->aspect * c->tan_half + c->up[i] * ny * c->tan_half;
    int x = (int)floor(c->eye[0]), z = (int)floor(c->eye[2]);
    int sx = d[0] > 0 ? 1 : -1, sz = d[2] > 0 ? 1 : -1;
    double tx = d[0] != 0 ? ((x + (sx > 0)) - c->eye[0]) / d[0] : INFINITY;
    double tz = d[2] != 0 ? ((z + (sz > 0)) - c->eye[2]) / d[2] : INFINITY;
    double dtx = d[0] != 0 ? fabs(1.0 / d[0]) : INFINITY, dtz = d[2] != 0 ? fabs(1.0 / d[2]) : INFINITY;
    double t = 0;
    int entered = -1; /* the axis crossed into this cell: 0 = x, 2 = z */
    memcpy(out, (double[3]){VS_SKY[0], VS_SKY[1], VS_SKY[2]}, sizeof(double[3]));
    for (int steps = 0; steps < 4 * VS_WORLD + 200; steps++) {
        int h = vs_height_at(x, z);
        double y_in = c->eye[1] + d[1] * t, t_out = fmin(tx, tz), y_out = c->eye[1] + d[1] * t_out;
        if (y_in < 0 || (d[1] >= 0 && y_in > VS_MAX_H)) return; /* under the world, or up and away */
        int blk[3], axis, side;
        double hit_t;
        if (h > 0 && entered >= 0 && y_in < h) { /* through the side of this column */
            axis = entered;
            side = entered == 0 ? -sx : -sz;
            hit_t = t;
            blk[0] = x, blk[1] = (int)floor(y_in), blk[2] = z;
        } else if (h > 0 && y_out < h) { /* down onto its top */
            axis = 1;
            side = 1;
            hit_t = (h - c->eye[1]) / d[1];
            blk[0] = x, blk[1] = h - 1, blk[2] = z;
        } else {
            if (tx < tz) x += sx, t = tx, tx += dtx, entered = 0;
            else z += sz, t = tz, tz += dtz, entered = 2;
            continue;
        }
        double p[3], col[3], depth = 0;
        for (int i = 0; i < 3; i++) {
            p[i] = c->eye[i] + d[i] * hit_t;
            depth += (p[i] - c->eye[i]) * c->fw[i];
        }
        int t1 = (axis + 1) % 3, t2 = (axis + 2) % 3;
        double u = fmin(fmax(p[t1] - blk[t1], 0.0), 1.0), v = fmin(fmax(p[t2] - blk[t2], 0.0), 1.0);
        float base[3];
        vs_block_color(blk[1], h, axis == 1, base);
        double shade = axis == 1 ? VS_SHADE_TOP : axis == 2 ? VS_SHADE_Z : VS_SHADE_X;
        double f = shade * face_factor(blk, axis, side, u, v);
        double fog = fmin(fmax((depth - VS_FOG_START) / VS_FOG_RANGE, 0.0), 1.0);
        for (int i = 0; i < 3; i++) {
            col[i] = base[i] * f;
            out[i] = col[i] + (VS_SKY[i] - col[i]) * fog;
        }
        return;
    }
}

static int check_frame(int frame, unsigned char *rgba)
{
    if (vs_render(frame, FRAMES) != 0 || vs_readback(rgba, (size_t)W * H * 4) != 0) {
        fprintf(stderr, "FAIL frame %d: render or readback failed\n", frame);
        return 1;
    }
    camera c = make_camera(frame);
    long bad = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            double want[3];
            trace(&c, px, py, want);
            const unsigned char *got = rgba + ((size_t)py * W + px) * 4;
            int worst = 0;
            for (int i = 0; i < 3; i++) {
                int e = abs((int)lround(fmin(fmax(want[i], 0.0), 1.0) * 255.0) - got[i]);
                if (e > worst) worst = e;
            }
            if (worst <= TOLERANCE) continue;
            if (bad++ < 5)
                fprintf(stderr,
                        "frame %d pixel (%d, %d) from the top-left: got %d,%d,%d, the scene has "
                        "%.0f,%.0f,%.0f\n",
                        frame, px, H - 1 - py, got[0], got[1], got[2], want[0] * 255, want[1] * 255,
                        want[2] * 255);
        }
    long limit = (long)(MAX_BAD_FRACTION * W * H);
    fprintf(stderr, "%s frame %d: %ld of %d pixels differ from the ray caster by more than %d "
                    "(at most %ld allowed)\n",
            bad > limit ? "FAIL" : "ok", frame, bad, W * H, TOLERANCE, limit);
    return bad > limit;
}

int main(void)
{
    char why[512];
    if (vs_open(W, H, why, sizeof why) != 0) {
        fprintf(stderr, "SKIP demo_frame: %s\n", why);
        return 77;
    }
    fprintf(stderr, "context: %s\n", vs_describe());
    unsigned char *rgba = malloc((size_t)W * H * 4);
    int failed = !rgba;
    static const int frames[] = {0, 45, 59};
    for (size_t i = 0; rgba && i < sizeof frames / sizeof *frames; i++) failed |= check_frame(frames[i], rgba);
    free(rgba);
    vs_close();
    return failed;
}
