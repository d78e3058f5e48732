/*
 * cursor_spec.h - the cursor as the wire format specifies it, typed in from
 * docs/wire-format.md for the tests (never taken from the library), and the
 * placement rule written independently of the library's run splitter.
 */
#ifndef CURSOR_SPEC_H
#define CURSOR_SPEC_H

#include <stdint.h>
#include <string.h>

#define SPEC_CURSOR_SIZE 16

static const char *const spec_cursor[SPEC_CURSOR_SIZE] = {
    "B...............", "BB..............", "BWB.............", "BWWB............",
    "BWWWB...........", "BWWWWB..........", "BWWWWWB.........", "BWWWWWWB........",
    "BWWWWWWWB.......", "BWWWWWWWWB......", "BWWWWWBBBB......", "BWWWWWB.........",
    "BWBBWWB.........", "BB.BWWWB........", "B...BWWB........", ".....BBB........",
};

/* Draw the arrow onto a bottom-up RGB8 image w x h (rows w*3 bytes) pixel
 * by pixel: hot spot (cx, cy) from the top-left; nothing when it lies
 * outside the image; bitmap (r, c) -> upright (cx+c, cy+r) -> buffer row
 * h-1-(cy+r); clipped right and bottom. */
static inline void spec_overlay_cursor(uint8_t *img, int w, int h, int cx, int cy)
{
    if (cx < 0 || cy < 0 || cx >= w || cy >= h) return;
    for (int r = 0; r < SPEC_CURSOR_SIZE; r++) {
        for (int c = 0; c < SPEC_CURSOR_SIZE; c++) {
            long long x = (long long)cx + c, uy = (long long)cy + r;
            char b = spec_cursor[r][c];
            if (b == '.' || x >= w || uy >= h) continue;
            long long y = (long long)h - 1 - uy;
            memset(img + ((size_t)y * (size_t)w + (size_t)x) * 3, b == 'B' ? 0 : 255, 3);
        }
    }
}

#endif /* CURSOR_SPEC_H */
