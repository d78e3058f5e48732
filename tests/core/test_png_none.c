/* Built when CG_WITH_PNG=OFF: PNG must report CG_E_UNSUPPORTED, not crash. */
#include "cg_frame.h"
#include "check_tcase.h"
#include "ck_main.h"

START_TEST(unsupported)
{
    uint8_t img[12] = {0};
    cg_buf b = {0};
    cg_png_options o = cg_png_default_options();
    ck_assert_int_eq(cg_png_encode_rgb(img, 2, 2, 6, &o, &b), CG_E_UNSUPPORTED);
    ck_assert_ptr_null(b.data);
    cg_buf_free(&b);
    cg_buf_free(NULL);
    cg_png_encoder *e = (cg_png_encoder *)&b; /* overwritten with NULL */
    ck_assert_int_eq(cg_png_encoder_create(0, &e), CG_E_UNSUPPORTED);
    ck_assert_ptr_null(e);
    cg_png_encoder_destroy(NULL);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("png_none");
    TCase *core = test_tcase("core");
    tcase_add_test(core, unsupported);
    suite_add_tcase(s, core);
    return s;
}
