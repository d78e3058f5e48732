/*
 * png_corpus_encode OUT_DIR FRAME.png...: encodes each corpus frame (read
 * with libpng) with the default and the fast settings and writes
 * OUT_DIR/<name>.default.png and OUT_DIR/<name>.fast.png, for
 * png_pil_check.py to decode with Python's PIL (a second independent
 * decoder) and compare with the frame as PIL reads it.
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_frame.h"

static int write_file(const char *path, const cg_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(b->data, 1, b->len, f) == b->len;
    return fclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    cg_buf b = {0};
    for (int i = 2; i < argc; i++) {
        png_image im;
        memset(&im, 0, sizeof im);
        im.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_file(&im, argv[i])) return 1;
        im.format = PNG_FORMAT_RGB;
        uint8_t *rgb = malloc(PNG_IMAGE_SIZE(im));
        if (rgb == NULL || !png_image_finish_read(&im, NULL, rgb, 0, NULL)) return 1;
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        const cg_png_options opts[2] = {cg_png_default_options(), cg_png_fast_options()};
        static const char *const tag[2] = {"default", "fast"};
        for (int k = 0; k < 2; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%.*s.%s.png", argv[1], (int)(strlen(base) - 4), base,
                     tag[k]);
            if (cg_png_encode_rgb(rgb, (int)im.width, (int)im.height, (size_t)im.width * 3,
                                  &opts[k], &b) != CG_OK ||
                !write_file(path, &b)) {
                fprintf(stderr, "png_corpus_encode: %s failed\n", path);
                return 1;
            }
        }
        free(rgb);
    }
    cg_buf_free(&b);
    return 0;
}
