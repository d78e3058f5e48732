/* Parts of the PNG API that exist with and without the encoder. */
#include <stdlib.h>

#include "cg_frame.h"

void cg_buf_free(cg_buf *b)
{
    if (b == NULL) return;
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

cg_png_options cg_png_default_options(void)
{
    /* Chosen from the measured table (bench_core, README.md). */
    cg_png_options o = {3, CG_PNG_FILTER_SUB, -1, CG_PNG_DEFLATE_OWN};
    return o;
}

cg_png_options cg_png_fast_options(void)
{
    /* Chosen from the measured table (bench_core, README.md). */
    cg_png_options o = {1, CG_PNG_FILTER_SUB, -1, CG_PNG_DEFLATE_OWN};
    return o;
}

cg_png_options cg_png_libpng_defaults(void)
{
    cg_png_options o = {-1, -1, -1, CG_PNG_DEFLATE_LIBRARY};
    return o;
}
