/* Size helpers and status strings: every int from Java is checked. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cg_frame.h"
#include "check_tcase.h"
#include "ck_main.h"

START_TEST(dims_core)
{
    ck_assert_int_eq(cg_check_dims(1, 1), CG_OK);
    ck_assert_int_eq(cg_check_dims(640, 360), CG_OK);
    ck_assert_int_eq(cg_check_dims(16384, 16384), CG_OK);
}
END_TEST

START_TEST(dims_limits)
{
    ck_assert_int_eq(cg_check_dims(0, 1), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_check_dims(1, 0), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_check_dims(-1, 5), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_check_dims(5, -1), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_check_dims(INT_MIN, INT_MIN), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_check_dims(16385, 1), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_check_dims(1, 16385), CG_E_TOO_LARGE);
    ck_assert_int_eq(cg_check_dims(INT_MAX, INT_MAX), CG_E_TOO_LARGE);
}
END_TEST

/* The one text of a bad size: the name and both values, hand-written here. */
START_TEST(dims_named)
{
    cg_err e = {"untouched"};
    ck_assert_int_eq(cg_check_dims_named("target", 4, 4, &e), CG_OK);
    ck_assert_str_eq(e.text, "untouched"); /* nothing written on success */
    ck_assert_int_eq(cg_check_dims_named("target", 0, 7, &e), CG_E_INVALID_ARG);
    ck_assert_str_eq(e.text, "target size 0x7 is invalid: width and height must be 1..16384");
    ck_assert_int_eq(cg_check_dims_named("ring", 3, 16385, &e), CG_E_TOO_LARGE);
    ck_assert_str_eq(e.text, "ring size 3x16385 is invalid: width and height must be 1..16384");
    ck_assert_int_eq(cg_check_dims_named(NULL, -1, 2, NULL), CG_E_INVALID_ARG); /* why NULL */
}
END_TEST

START_TEST(image_size_core)
{
    size_t n = 0;
    ck_assert_int_eq(cg_image_size(640, 360, 3, &n), CG_OK);
    ck_assert_uint_eq(n, 691200);
    ck_assert_int_eq(cg_image_size(1, 1, 1, &n), CG_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(cg_image_size(16384, 16384, 16, &n), CG_OK);
    ck_assert_uint_eq(n, (size_t)4294967296ull);
}
END_TEST

START_TEST(image_size_limits)
{
    size_t n = 77;
    ck_assert_int_eq(cg_image_size(2, 2, 0, &n), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_image_size(2, 2, 17, &n), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_image_size(2, 2, 3, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_image_size(0, 2, 3, &n), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_image_size(-1, 2, 3, &n), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_image_size(16385, 2, 3, &n), CG_E_TOO_LARGE);
    ck_assert_uint_eq(n, 77); /* untouched on error */
}
END_TEST

START_TEST(mul_overflow)
{
    size_t n = 0;
    ck_assert_int_eq(cg_mul_size(SIZE_MAX, 1, &n), CG_OK);
    ck_assert_uint_eq(n, SIZE_MAX);
    ck_assert_int_eq(cg_mul_size(0, SIZE_MAX, &n), CG_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(cg_mul_size(SIZE_MAX, 0, &n), CG_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(cg_mul_size(SIZE_MAX / 2 + 1, 2, &n), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_mul_size(SIZE_MAX, 2, &n), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_mul_size((size_t)1 << (sizeof(size_t) * 4),
                                 (size_t)1 << (sizeof(size_t) * 4), &n),
                     CG_E_OVERFLOW);
    ck_assert_int_eq(cg_mul_size(3, 5, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_mul_size(SIZE_MAX / 3, 3, &n), CG_OK);
    ck_assert_uint_eq(n, SIZE_MAX / 3 * 3);
}
END_TEST

START_TEST(status_strings)
{
    ck_assert_str_eq(cg_strerror(CG_OK), "success");
    ck_assert_str_eq(cg_strerror(CG_E_OVERFLOW), "size computation overflows");
    ck_assert_str_eq(cg_status_name(CG_E_BUFFER_TOO_SMALL), "CG_E_BUFFER_TOO_SMALL");
    ck_assert_int_eq(CG_E_PNG, 12);
    ck_assert_ptr_nonnull(cg_strerror((cg_status)999));
    ck_assert_ptr_nonnull(cg_status_name((cg_status)-5));
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("size");
    TCase *core = test_tcase("core");
    tcase_add_test(core, dims_core);
    tcase_add_test(core, dims_named);
    tcase_add_test(core, image_size_core);
    tcase_add_test(core, status_strings);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, dims_limits);
    tcase_add_test(limits, image_size_limits);
    suite_add_tcase(s, limits);
    TCase *overflow = test_tcase("overflow");
    tcase_add_test(overflow, mul_overflow);
    suite_add_tcase(s, overflow);
    return s;
}
