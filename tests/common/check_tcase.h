/*
 * check_tcase.h - every Check test case with an explicit timeout.
 *
 * Check's default (4 s per test) is shorter than some cases take under
 * ASan+UBSan on a loaded 2-core CI machine; a timeout there is a flake, not
 * a finding. Cases that loop over huge inputs still finish far inside this.
 */
#ifndef CHECK_TCASE_H
#define CHECK_TCASE_H

#include <check.h>

#define TEST_TCASE_TIMEOUT_S 300

/* Each case is also tagged with its name: a ctest entry that runs "every
 * case but these" (CK_EXCLUDE_TAGS, tests/core/CMakeLists.txt) can list them. */
static inline TCase *test_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, TEST_TCASE_TIMEOUT_S);
    tcase_set_tags(tc, name);
    return tc;
}

#endif /* CHECK_TCASE_H */
