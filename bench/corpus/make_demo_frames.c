/*
 * make_demo_frames: the corpus's highly compressible frames, rendered by the
 * demo's voxel scene (demo/voxel_scene.c: flat-lit blocks with ambient
 * occlusion gradients, distance fog, a sky of one colour) on whatever EGL
 * device is present (Mesa llvmpipe headless), then, for some, turned into
 * the looks a player meets that the Minetest frames lack: night (the scene
 * darkened towards blue), thick fog, and a UI-heavy screen (an inventory
 * panel and a hotbar of small pixel-art icons and text over the world).
 * Large flat regions with fine detail: the frames where a fast encoder
 * without a general match search writes far more than libpng.
 *
 * How to build and run it: bench/corpus/README.md.
 */
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "voxel_scene.h"

static int save(const char *dir, const char *name, const uint8_t *rgb, int w, int h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    png_image im = {.version = PNG_IMAGE_VERSION,
                    .width = (png_uint_32)w,
                    .height = (png_uint_32)h,
                    .format = PNG_FORMAT_RGB};
    if (!png_image_write_to_file(&im, path, 0, rgb, w * 3, NULL)) {
        fprintf(stderr, "%s: %s\n", path, im.message);
        return 0;
    }
    printf("wrote %s\n", path);
    return 1;
}

/* Frame `frame` of `frames` at w x h as top-down RGB. */
static uint8_t *render(int w, int h, int frame, int frames)
{
    char why[256];
    if (vs_open(w, h, why, sizeof why) != 0) {
        fprintf(stderr, "no scene: %s\n", why);
        return NULL;
    }
    uint8_t *rgba = malloc((size_t)w * h * 4), *rgb = malloc((size_t)w * h * 3);
    if (rgba == NULL || rgb == NULL || vs_render(frame, frames) != 0 ||
        vs_readback(rgba, (size_t)w * h * 4) != 0) {
        free(rgba);
        free(rgb);
        vs_close();
        return NULL;
    }
    for (int y = 0; y < h; y++) /* bottom-up to top-down */
        for (int x = 0; x < w; x++)
            memcpy(rgb + ((size_t)y * w + x) * 3, rgba + ((size_t)(h - 1 - y) * w + x) * 4, 3);
    free(rgba);
    vs_close();
    return rgb;
}

static int is_sky(const uint8_t *p)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)p[c] - (int)lroundf(VS_SKY[c] * 255.0f)) > 1) return 0;
    return 1;
}

/* Night: the world at a fifth of its light with a blue cast; the sky a
 * dark gradient from top to horizon with a few stars. */
static void night(uint8_t *rgb, int w, int h)
{
    uint32_t seed = 12345;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            if (is_sky(p)) {
                const int v = 8 + 18 * y / h;
                p[0] = (uint8_t)v;
                p[1] = (uint8_t)(v + 2);
                p[2] = (uint8_t)(v + 14);
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % 1500 == 0) p[0] = p[1] = p[2] = 200;
            } else {
                p[0] = (uint8_t)(p[0] * 45 / 255);
                p[1] = (uint8_t)(p[1] * 50 / 255);
                p[2] = (uint8_t)(p[2] * 70 / 255 + 6);
            }
        }
}

/* Thick fog: everything three quarters of the way to the fog's colour. */
static void fog(uint8_t *rgb, int w, int h)
{
    static const int f[3] = {200, 206, 214};
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        rgb[i] = (uint8_t)((rgb[i] + 3 * f[i % 3]) / 4);
}

static void rect(uint8_t *rgb, int w, int h, int x0, int y0, int rw, int rh, const uint8_t c[3])
{
    for (int y = y0; y < y0 + rh; y++)
        for (int x = x0; x < x0 + rw; x++)
            if (x >= 0 && y >= 0 && x < w && y < h) memcpy(rgb + ((size_t)y * w + x) * 3, c, 3);
}

/* A slot: a dark recessed square with light and dark bevels, and an icon of
 * 16x16 texels (pixel art from a hash, in one of a few palettes) at scale. */
static void slot(uint8_t *rgb, int w, int h, int x0, int y0, int size, int icon, int scale)
{
    static const uint8_t dark[3] = {55, 55, 55}, light[3] = {255, 255, 255},
                         fill[3] = {139, 139, 139};
    rect(rgb, w, h, x0, y0, size, size, fill);
    rect(rgb, w, h, x0, y0, size, 2, dark);
    rect(rgb, w, h, x0, y0, 2, size, dark);
    rect(rgb, w, h, x0, y0 + size - 2, size, 2, light);
    rect(rgb, w, h, x0 + size - 2, y0, 2, size, light);
    if (icon < 0) return;
    static const uint8_t pal[4][4][3] = {
        {{92, 168, 61}, {70, 130, 45}, {120, 85, 50}, {95, 65, 38}},
        {{160, 160, 160}, {120, 120, 120}, {90, 90, 90}, {200, 200, 200}},
        {{219, 204, 140}, {190, 175, 115}, {160, 149, 102}, {240, 230, 170}},
        {{200, 40, 40}, {150, 30, 30}, {240, 200, 60}, {100, 20, 20}},
    };
    const int off = (size - 16 * scale) / 2;
    for (int ty = 0; ty < 16; ty++)
        for (int tx = 0; tx < 16; tx++) {
            /* a round-ish item: texels outside a circle are transparent */
            const int dx = 2 * tx - 15, dy = 2 * ty - 15;
            if (dx * dx + dy * dy > 15 * 15 - icon % 5 * 20) continue;
            uint32_t v = (uint32_t)(tx * 73856093u ^ ty * 19349663u ^ (uint32_t)icon * 83492791u);
            v = (v ^ v >> 13) * 0x5bd1e995u;
            const uint8_t *c = pal[icon % 4][(v >> 24) % 4];
            rect(rgb, w, h, x0 + off + tx * scale, y0 + off + ty * scale, scale, scale, c);
        }
}

/* Text in a 5x7 pixel font of blocky glyphs (a glyph per character from a
 * hash: shapes, not letters), with a one-pixel drop shadow, at scale. */
static void text(uint8_t *rgb, int w, int h, int x0, int y0, const char *s, int scale,
                 const uint8_t c[3])
{
    static const uint8_t shadow[3] = {63, 63, 63};
    for (int i = 0; s[i]; i++) {
        if (s[i] == ' ') continue;
        uint32_t g = (uint32_t)s[i] * 2654435761u;
        for (int gy = 0; gy < 7; gy++)
            for (int gx = 0; gx < 5; gx++) {
                g = g * 1664525u + 1013904223u;
                if ((g >> 28) < 7 && !(gy == 6 && gx == 4)) {
                    const int px = x0 + (i * 6 + gx) * scale, py = y0 + gy * scale;
                    rect(rgb, w, h, px + scale, py + scale, scale, scale, shadow);
                    rect(rgb, w, h, px, py, scale, scale, c);
                }
            }
    }
}

/* A UI-heavy screen: the world dimmed behind an open inventory (a grey
 * panel of 4 rows of 9 slots, a title) and the hotbar with a crosshair. */
static void ui(uint8_t *rgb, int w, int h)
{
    for (size_t i = 0; i < (size_t)w * h * 3; i++) rgb[i] = (uint8_t)(rgb[i] * 5 / 8 + 16);
    static const uint8_t panel[3] = {198, 198, 198}, edge[3] = {85, 85, 85},
                         title[3] = {64, 64, 64}, white[3] = {255, 255, 255};
    const int s = 36, pw = 9 * s + 28, ph = 4 * s + 90;
    const int px = (w - pw) / 2, py = (h - ph) / 2 - 20;
    rect(rgb, w, h, px - 2, py - 2, pw + 4, ph + 4, edge);
    rect(rgb, w, h, px, py, pw, ph, panel);
    text(rgb, w, h, px + 14, py + 10, "INVENTORY", 2, title);
    int icon = 0;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 9; c++) {
            const int y = py + 40 + r * s + (r == 3 ? 10 : 0);
            slot(rgb, w, h, px + 14 + c * s, y, s, (r * 9 + c) % 3 == 1 ? -1 : icon++, 2);
        }
    text(rgb, w, h, px + 14, py + ph - 30, "CRAFTING 2X2  ARMOR", 2, title);
    const int hs = 40, hx = (w - 9 * hs) / 2, hy = h - hs - 6;
    for (int c = 0; c < 9; c++) slot(rgb, w, h, hx + c * hs, hy, hs, 40 + c, 2);
    rect(rgb, w, h, hx - 2, hy - 2, hs + 4, 2, white); /* the selected slot */
    text(rgb, w, h, 8, 8, "XYZ 24.5 9.0 -13.2  FPS 60", 2, white);
    rect(rgb, w, h, w / 2 - 9, h / 2 - 1, 18, 2, white);
    rect(rgb, w, h, w / 2 - 1, h / 2 - 9, 2, 18, white);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    static const struct {
        const char *name;
        int w, h, frame;
        void (*look)(uint8_t *, int, int);
    } views[] = {
        {"demo_854x480", 854, 480, 48, NULL},
        {"demo_end_854x480", 854, 480, 54, NULL},
        {"demo_night_854x480", 854, 480, 12, night},
        {"demo_fog_640x360", 640, 360, 45, fog},
        {"demo_ui_854x480", 854, 480, 52, ui},
        {"demo_1920x1080", 1920, 1080, 20, NULL},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        uint8_t *rgb = render(views[i].w, views[i].h, views[i].frame, 60);
        if (rgb == NULL) return 1;
        if (views[i].look) views[i].look(rgb, views[i].w, views[i].h);
        const int ok = save(dir, views[i].name, rgb, views[i].w, views[i].h);
        free(rgb);
        if (!ok) return 1;
    }
    return 0;
}
