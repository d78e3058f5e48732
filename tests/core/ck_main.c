/* One runner per test executable: each test file supplies make_suite(). */
#include <check.h>
#include <stdlib.h>

#include "ck_main.h"

int main(void)
{
    SRunner *sr = srunner_create(make_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
