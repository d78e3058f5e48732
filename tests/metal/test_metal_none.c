/*
 * test_metal_none.c - on a build for anything but Apple the native
 * platform is the "unsupported" table: every path that needs IOSurface
 * refuses with CG_E_UNSUPPORTED and says the path is macOS-only, without
 * crashing or leaving anything behind. Built only when not targeting Apple.
 */
#include <check.h>

#include "check_tcase.h"
#include <stdlib.h>
#include <string.h>

#include "cg_metal.h"

START_TEST(native_is_unsupported)
{
    const cg_metal_platform *pf = cg_metal_platform_native();
    ck_assert_ptr_nonnull(pf);
    ck_assert_str_eq(pf->name, "none");
    cg_err err = {""};
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(pf, 640, 360, CG_METAL_FORMAT_RGBA, &s, &err),
                     CG_E_UNSUPPORTED);
    ck_assert_ptr_null(s);
    ck_assert_ptr_nonnull(strstr(err.text, "macOS-only"));
    size_t bpr = 0, alloc = 0;
    ck_assert_int_eq(cg_metal_surface_layout(pf, 640, 360, &bpr, &alloc, &err),
                     CG_E_UNSUPPORTED);
}
END_TEST

START_TEST(bad_dims_still_invalid)
{
    /* Argument errors win over "unsupported", as in the JNI layer. */
    cg_err err = {""};
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(cg_metal_platform_native(), 0, 360,
                                             CG_METAL_FORMAT_RGBA, &s, &err),
                     CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_metal_surface_create(cg_metal_platform_native(), 640, 16385,
                                             CG_METAL_FORMAT_RGBA, &s, &err),
                     CG_E_TOO_LARGE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("metal_none");
    TCase *tc = test_tcase("core");
    tcase_add_test(tc, native_is_unsupported);
    tcase_add_test(tc, bad_dims_still_invalid);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
