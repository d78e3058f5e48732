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
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
