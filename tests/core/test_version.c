/* The public version: cg_version() and the CG_VERSION_* macros against
 * CMake's PROJECT_VERSION, passed to this test as CG_TEST_PROJECT_VERSION
 * (the same string names the natives jar). */
#include <stdio.h>
#include <string.h>

#include "cg_version.h"
#include "check_tcase.h"
#include "ck_main.h"

#ifndef CG_TEST_PROJECT_VERSION
#error "CG_TEST_PROJECT_VERSION (CMake's PROJECT_VERSION) must be defined"
#endif

START_TEST(macros_match_project)
{
    int major = -1, minor = -1, patch = -1;
    char tail = 0;
    ck_assert_int_eq(sscanf(CG_TEST_PROJECT_VERSION, "%d.%d.%d%c", &major, &minor, &patch, &tail),
                     3);
    ck_assert_int_eq(CG_VERSION_MAJOR, major);
    ck_assert_int_eq(CG_VERSION_MINOR, minor);
    ck_assert_int_eq(CG_VERSION_PATCH, patch);
    ck_assert_str_eq(CG_VERSION_STRING, CG_TEST_PROJECT_VERSION);
    ck_assert_int_eq(CG_VERSION_NUMBER, major * 10000 + minor * 100 + patch);
}
END_TEST

START_TEST(function_matches_macros)
{
    ck_assert_uint_eq(cg_version(), CG_VERSION_NUMBER);
    ck_assert_str_eq(cg_version_string(), CG_TEST_PROJECT_VERSION);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("version");
    TCase *core = test_tcase("core");
    tcase_add_test(core, macros_match_project);
    tcase_add_test(core, function_matches_macros);
    suite_add_tcase(s, core);
    return s;
}
