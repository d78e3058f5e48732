/* One runner per test executable: each test file supplies make_suite(). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "ck_main.h"

/* A suite that would check nothing on this build or CPU names why here;
 * the runner then exits 77 (SKIPPED by name) instead of passing. */
__attribute__((weak)) const char *suite_skip_reason(void)
{
    return NULL;
}

int main(void)
{
    const char *skip = suite_skip_reason();
    if (skip) {
        printf("SKIP: %s\n", skip);
        return 77;
    }
    SRunner *sr = srunner_create(make_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr), ran = srunner_ntests_run(sr);
    srunner_free(sr);
    /* A ctest entry for one case (CK_RUN_CASE) whose case was renamed or
     * removed would otherwise pass having checked nothing. */
    const char *only = getenv("CK_RUN_CASE");
    if (only && *only && ran == 0) {
        printf("FAIL: CK_RUN_CASE=%s names no test case of this suite\n", only);
        return EXIT_FAILURE;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
