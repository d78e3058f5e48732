/*
 * make_desert.c - renders the corpus's desert frames (desert_*.png): a flat
 * voxel desert as a player sees it, by a ray caster written for this file
 * (no GPU, so the frames are bit-reproducible). Not built by CMake or CI:
 *   cc -O2 -o make_desert bench/corpus/make_desert.c $(pkg-config --cflags --libs libpng) -lm
 *   ./make_desert bench/corpus
 *
 * The world: sand blocks (1 m) on a plane, some columns raised 1-2 blocks
 * (dunes) and a few cacti; the game's flat lighting (top 1.0, +-z 0.8,
 * +-x 0.6), a 16x16 sand texture sampled nearest from mipmaps (the level
 * from the pixel's footprint, as GL_NEAREST_MIPMAP_NEAREST) or one flat
 * sand colour, distance fog towards the horizon's colour and a sky that
 * goes from the horizon's colour to the zenith's with the ray's elevation.
 * A crosshair in the middle. What makes these frames hard for an LZ77 that
 * looks only at the pixel to the left and the one above: large regions whose
 * colour changes slowly along curved bands (fog and sky), and textures that
 * repeat along a row at a pitch set by the distance.
 */
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEX = 16, WORLD = 512, LEVELS = 5 };

typedef struct view {
    const char *name;
    int w, h;
    float yaw, pitch;           /* degrees; pitch < 0 looks down */
    int textured, dunes;        /* sand texture; raised columns and cacti */
    float fog_start, fog_range; /* metres */
    float horizon[3], zenith[3];
} view;

static float tex[LEVELS][TEX][TEX][3]; /* level l: TEX >> l texels a side */
static uint8_t height[WORLD][WORLD];

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static float unit(uint32_t x) /* [0, 1) */
{
    return (float)(hash(x) >> 8) / 16777216.0f;
}

static void make_texture(void)
{
    static const float sand[3] = {219, 207, 163};
    for (int y = 0; y < TEX; y++)
        for (int x = 0; x < TEX; x++) {
            float f = 0.93f + 0.09f * unit((uint32_t)(y * TEX + x));
            if (unit((uint32_t)(y * TEX + x) + 1000) < 0.06f) f *= 0.86f; /* specks */
            for (int c = 0; c < 3; c++) tex[0][y][x][c] = sand[c] * f;
        }
    for (int l = 1; l < LEVELS; l++) /* box-filtered mipmaps */
        for (int y = 0; y < TEX >> l; y++)
            for (int x = 0; x < TEX >> l; x++)
                for (int c = 0; c < 3; c++)
                    tex[l][y][x][c] = (tex[l - 1][2 * y][2 * x][c] + tex[l - 1][2 * y][2 * x + 1][c] +
                                       tex[l - 1][2 * y + 1][2 * x][c] +
                                       tex[l - 1][2 * y + 1][2 * x + 1][c]) / 4;
}

static void make_world(int dunes)
{
    memset(height, 1, sizeof height);
    if (!dunes) return;
    /* long low dunes: 1-2 blocks where a slow wave crosses a threshold */
    for (int z = 0; z < WORLD; z++)
        for (int x = 0; x < WORLD; x++) {
            float v = sinf((float)x * 0.045f + (float)z * 0.02f) + 0.6f * sinf((float)z * 0.07f);
            height[z][x] = (uint8_t)(v > 1.1f ? 3 : v > 0.7f ? 2 : 1);
        }
    for (int i = 0; i < 40; i++) { /* cacti: 3 high, on flat sand */
        int x = (int)(hash((uint32_t)i * 2 + 7) % WORLD), z = (int)(hash((uint32_t)i * 2 + 8) % WORLD);
        if (height[z][x] == 1) height[z][x] = 4 | 0x80;
    }
}

/* The colour where the ray from eye along d first meets a block face;
 * 0 when it leaves the world (sky). */
static int trace(const float eye[3], const float d[3], float pix_angle, const view *v,
                 float out[3], float *dist)
{
    int ix = (int)floorf(eye[0]), iz = (int)floorf(eye[2]);
    const int sx = d[0] > 0 ? 1 : -1, sz = d[2] > 0 ? 1 : -1;
    const float tdx = d[0] != 0 ? fabsf(1 / d[0]) : 1e30f, tdz = d[2] != 0 ? fabsf(1 / d[2]) : 1e30f;
    float tx = d[0] != 0 ? ((sx > 0 ? (float)ix + 1 - eye[0] : eye[0] - (float)ix) * tdx) : 1e30f;
    float tz = d[2] != 0 ? ((sz > 0 ? (float)iz + 1 - eye[2] : eye[2] - (float)iz) * tdz) : 1e30f;
    float t0 = 0;
    int side = -1; /* the face crossed into this cell: 0 x, 1 z */
    for (int steps = 0; steps < 4 * WORLD; steps++) {
        if (ix < 0 || iz < 0 || ix >= WORLD || iz >= WORLD) return 0;
        const int hcell = height[iz][ix] & 0x7f, cactus = height[iz][ix] >> 7;
        const float y0 = eye[1] + d[1] * t0;
        if (y0 < (float)hcell && side >= 0) { /* a side face at t0 */
            float shade = side == 0 ? 0.6f : 0.8f, base[3];
            static const float cactus_c[3] = {86, 130, 52};
            const float u = side == 0 ? eye[2] + d[2] * t0 : eye[0] + d[0] * t0;
            if (cactus) {
                memcpy(base, cactus_c, sizeof base);
            } else {
                const int tu = (int)floorf((u - floorf(u)) * TEX) & (TEX - 1);
                const int tv = (int)floorf((y0 - floorf(y0)) * TEX) & (TEX - 1);
                memcpy(base, v->textured ? tex[0][tv][tu] : tex[LEVELS - 1][0][0], sizeof base);
            }
            for (int c = 0; c < 3; c++) out[c] = base[c] * shade;
            *dist = t0;
            return 1;
        }
        const float t1 = tx < tz ? tx : tz;
        if (d[1] < 0) { /* the top face inside this cell */
            const float th = ((float)hcell - eye[1]) / d[1];
            if (th >= t0 && th <= t1) {
                const float px = eye[0] + d[0] * th, pz = eye[2] + d[2] * th;
                const float *base;
                static const float cactus_top[3] = {100, 150, 62};
                if (cactus) {
                    base = cactus_top;
                } else if (v->textured) {
                    /* footprint: texels per pixel, stretched by the slant */
                    const float fp = th * pix_angle * TEX / fabsf(d[1]);
                    int l = (int)floorf(log2f(fp > 1 ? fp : 1) + 0.5f);
                    l = l < 0 ? 0 : l >= LEVELS ? LEVELS - 1 : l;
                    const int n = TEX >> l;
                    const int tu = (int)floorf((px - floorf(px)) * (float)n) & (n - 1);
                    const int tv = (int)floorf((pz - floorf(pz)) * (float)n) & (n - 1);
                    base = tex[l][tv][tu];
                } else {
                    base = tex[LEVELS - 1][0][0];
                }
                memcpy(out, base, 3 * sizeof *out);
                *dist = th;
                return 1;
            }
        }
        if (tx < tz) {
            ix += sx;
            t0 = tx;
            tx += tdx;
            side = 0;
        } else {
            iz += sz;
            t0 = tz;
            tz += tdz;
            side = 1;
        }
    }
    return 0;
}

static int render(const view *v, const char *dir)
{
    make_world(v->dunes);
    const float eye[3] = {WORLD / 2 + 0.5f, 1 + 1.62f, WORLD / 2 + 0.5f};
    const float yaw = v->yaw * 3.14159265f / 180, pitch = v->pitch * 3.14159265f / 180;
    const float fwd[3] = {sinf(yaw) * cosf(pitch), sinf(pitch), cosf(yaw) * cosf(pitch)};
    const float right[3] = {cosf(yaw), 0, -sinf(yaw)};
    const float up[3] = {-sinf(yaw) * sinf(pitch), cosf(pitch), -cosf(yaw) * sinf(pitch)};
    const float th = tanf(70.0f * 3.14159265f / 360), tw = th * (float)v->w / (float)v->h;
    const float pix_angle = 2 * th / (float)v->h;
    uint8_t *img = malloc((size_t)v->w * (size_t)v->h * 3);
    if (img == NULL) return 1;
    for (int y = 0; y < v->h; y++)
        for (int x = 0; x < v->w; x++) {
            const float sx = (2 * ((float)x + 0.5f) / (float)v->w - 1) * tw;
            const float sy = (1 - 2 * ((float)y + 0.5f) / (float)v->h) * th;
            float d[3], c[3], dist, n = 0;
            for (int k = 0; k < 3; k++) {
                d[k] = fwd[k] + sx * right[k] + sy * up[k];
                n += d[k] * d[k];
            }
            n = sqrtf(n);
            for (int k = 0; k < 3; k++) d[k] /= n;
            /* the sky: horizon to zenith with the elevation */
            const float e = d[1] > 0 ? sqrtf(d[1]) : 0;
            float sky[3];
            for (int k = 0; k < 3; k++) sky[k] = v->horizon[k] + (v->zenith[k] - v->horizon[k]) * e;
            if (trace(eye, d, pix_angle, v, c, &dist)) {
                float f = (dist - v->fog_start) / v->fog_range;
                f = f < 0 ? 0 : f > 1 ? 1 : f;
                for (int k = 0; k < 3; k++) c[k] += (v->horizon[k] - c[k]) * f;
            } else {
                memcpy(c, sky, sizeof c);
            }
            uint8_t *p = img + ((size_t)y * (size_t)v->w + (size_t)x) * 3;
            for (int k = 0; k < 3; k++) p[k] = (uint8_t)(c[k] < 0 ? 0 : c[k] > 255 ? 255 : c[k] + 0.5f);
        }
    /* the crosshair: 2 px wide, 20 px long, white */
    for (int i = -10; i < 10; i++)
        for (int j = -1; j < 1; j++) {
            memset(img + ((size_t)(v->h / 2 + j) * (size_t)v->w + (size_t)(v->w / 2 + i)) * 3, 255, 3);
            memset(img + ((size_t)(v->h / 2 + i) * (size_t)v->w + (size_t)(v->w / 2 + j)) * 3, 255, 3);
        }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%dx%d.png", dir, v->name, v->w, v->h);
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)v->w;
    im.height = (png_uint_32)v->h;
    im.format = PNG_FORMAT_RGB;
    const int ok = png_image_write_to_file(&im, path, 0, img, 0, NULL);
    free(img);
    if (!ok) fprintf(stderr, "make_desert: cannot write %s: %s\n", path, im.message);
    return !ok;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    static const view views[] = {
        {"desert", 640, 360, 20, -8, 1, 0, 40, 120, {200, 216, 236}, {120, 160, 225}},
        {"dunes", 854, 480, -35, -12, 1, 1, 30, 90, {214, 206, 190}, {132, 170, 226}},
        {"desert", 1920, 1080, 5, -4, 0, 0, 20, 160, {222, 200, 170}, {96, 128, 200}},
        /* the first two at an RL observation's size: the near sand a
         * magnified texture, every row a new mix of its texels */
        {"desert", 320, 180, 20, -8, 1, 0, 40, 120, {200, 216, 236}, {120, 160, 225}},
        {"dunes", 320, 180, -35, -12, 1, 1, 30, 90, {214, 206, 190}, {132, 170, 226}},
    };
    make_texture();
    int bad = 0;
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) bad |= render(&views[i], dir);
    return bad;
}
