/*
 * cg_cursor.h - the cursor of the wire format, and the one function that
 * places it.
 *
 * The arrow is the 16x16 mouse cursor of OpenAI's Video PreTraining (VPT)
 * Minecraft recordings (MIT licence; see THIRD_PARTY_NOTICES.md): agents
 * pretrained on those recordings have seen exactly these pixels.
 *
 * Placement (docs/wire-format.md, "Cursor"): the hot spot (cursor_x,
 * cursor_y) is in target pixels from the TOP-left. Bitmap row r, column c
 * lands on the upright pixel (cursor_x + c, cursor_y + r), which is row
 * h - 1 - (cursor_y + r) of the bottom-up buffer. A hot spot outside the
 * image (negative, or >= w / >= h) draws nothing, as a real pointer outside
 * the window; otherwise the arrow is clipped at the right and bottom edges.
 *
 * Every drawer (the CPU converter, the GL packed-RGB path, GL->CUDA, Metal)
 * draws the runs cg_cursor_runs returns, so they cannot disagree.
 */
#ifndef CG_CURSOR_H
#define CG_CURSOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cursor of one frame, as every path takes it (wire format,
 * "Cursor"): drawn when draw is nonzero; the hot spot (x, y) is in target
 * pixels from the TOP-left, any int valid (outside the image: nothing is
 * drawn, as the placement below says). The one type of it in the library. */
typedef struct cg_cursor {
    int draw;
    int x, y;
} cg_cursor;

/* Bitmap size (square). */
#define CG_CURSOR_SIZE 16

/* The bitmap, CG_CURSOR_SIZE rows top-down, each CG_CURSOR_SIZE chars:
 * 'B' black (0,0,0), 'W' white (255,255,255), '.' untouched. */
extern const char *const cg_cursor_rows[CG_CURSOR_SIZE];

/* The bitmap packed for a GPU drawer (the RGB slot's compute shader):
 * word r is bitmap row r, bits 2c..2c+1 its column c: 0 untouched,
 * 1 black, 2 white. */
void cg_cursor_bits(uint32_t rows[CG_CURSOR_SIZE]);

/* A horizontal run of one colour, in buffer coordinates. */
typedef struct cg_cursor_run {
    int x, y;  /* first pixel: column, and row of the BOTTOM-UP buffer */
    int len;   /* pixels, >= 1 */
    int white; /* 1: white (255,255,255); 0: black (0,0,0) */
    int r, c;  /* bitmap row and column of the run's first pixel */
} cg_cursor_run;

/* No placement yields more runs than this. */
#define CG_CURSOR_MAX_RUNS (CG_CURSOR_SIZE * CG_CURSOR_SIZE)

/* Write the runs of the arrow with its hot spot at (cursor_x, cursor_y) in
 * a w x h image, clipped, ordered by bitmap row then column; return how
 * many (0 when nothing is visible, when the hot spot is outside the image,
 * or when w/h are not valid dimensions or out is NULL). Any int position is
 * valid. */
int cg_cursor_runs(int w, int h, int cursor_x, int cursor_y,
                   cg_cursor_run out[CG_CURSOR_MAX_RUNS]);

#ifdef __cplusplus
}
#endif

#endif /* CG_CURSOR_H */
