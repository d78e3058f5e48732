/* The VPT arrow and its placement (see cg_cursor.h). */
#include "cg_cursor.h"

#include <stddef.h>

#include "cg_size.h"

/* Rows top-down; hot spot at the top-left pixel. */
const char *const cg_cursor_rows[CG_CURSOR_SIZE] = {
    "B...............",
    "BB..............",
    "BWB.............",
    "BWWB............",
    "BWWWB...........",
    "BWWWWB..........",
    "BWWWWWB.........",
    "BWWWWWWB........",
    "BWWWWWWWB.......",
    "BWWWWWWWWB......",
    "BWWWWWBBBB......",
    "BWWWWWB.........",
    "BWBBWWB.........",
    "BB.BWWWB........",
    "B...BWWB........",
    ".....BBB........",
};

void cg_cursor_bits(uint32_t rows[CG_CURSOR_SIZE])
{
    for (int r = 0; r < CG_CURSOR_SIZE; r++) {
        rows[r] = 0;
        for (int c = 0; c < CG_CURSOR_SIZE; c++) {
            char k = cg_cursor_rows[r][c];
            rows[r] |= (uint32_t)(k == 'B' ? 1 : k == 'W' ? 2 : 0) << (2 * c);
        }
    }
}

int cg_cursor_runs(int w, int h, int cursor_x, int cursor_y,
                   cg_cursor_run out[CG_CURSOR_MAX_RUNS])
{
    if (out == NULL || cg_check_dims(w, h) != CG_OK) return 0;
    if (cursor_x < 0 || cursor_y < 0 || cursor_x >= w || cursor_y >= h) return 0;
    int n = 0;
    /* cursor_x, cursor_y < CG_MAX_DIM here, so + CG_CURSOR_SIZE cannot
     * overflow. */
    for (int r = 0; r < CG_CURSOR_SIZE && cursor_y + r < h; r++) {
        const char *row = cg_cursor_rows[r];
        for (int c = 0; c < CG_CURSOR_SIZE && cursor_x + c < w;) {
            const char kind = row[c];
            int end = c + 1;
            while (end < CG_CURSOR_SIZE && row[end] == kind) end++;
            if (cursor_x + end > w) end = w - cursor_x;
            if (kind != '.') {
                out[n].x = cursor_x + c;
                out[n].y = h - 1 - (cursor_y + r);
                out[n].len = end - c;
                out[n].white = kind == 'W';
                out[n].r = r;
                out[n].c = c;
                n++;
            }
            c = end;
        }
    }
    return n;
}
