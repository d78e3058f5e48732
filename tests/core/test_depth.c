/* Depth linearisation against values computed by hand from the formulas. */
#include <math.h>
#include <string.h>

#include "cg_frame.h"
#include "check_tcase.h"
#include "ck_main.h"

/* near = 1, far = 3; z/far = n/(n + d*(f-n)) = 1/(1+2d) (both ranges reduce
 * to it algebraically; computed separately by hand for each):
 *   d = 1    -> z = 1 (near)       -> 1/3
 *   d = 0.5  -> z = 3/2            -> 0.5
 *   d = 0.25 -> z = 3/1.5 = 2      -> 2/3
 *   d = 0    -> z = 3 (far)        -> 1
 * [-1,1]: z = 2nf/(n+f+(2d-1)(f-n)) = 6/(4+(2d-1)*2):
 *   d = 1 -> 6/6 = 1; d = 0.5 -> 6/4; d = 0.25 -> 6/3 = 2; d = 0 -> 6/2 = 3. */
static const float in[4] = {1.0f, 0.5f, 0.25f, 0.0f};
static const float want[4] = {1.0f / 3.0f, 0.5f, 2.0f / 3.0f, 1.0f};

static void check_near(const float *got, const float *exp, int n)
{
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(got[i], exp[i], 1e-6f);
}

/* Loop index: 1 = [0,1] clip range, 0 = [-1,1]. */
START_TEST(both_ranges)
{
    float d[4];
    memcpy(d, in, sizeof d);
    ck_assert_int_eq(cg_depth_linearize(d, 4, 1.0f, 3.0f, _i), CG_OK);
    check_near(d, want, 4);
}
END_TEST

START_TEST(typical_planes)
{
    /* near 0.05, far 1000 (Minecraft-like). d = 0.001 with [0,1]:
     * 0.05 / (0.05 + 0.001*999.95) = 0.05 / 1.04995 = 0.0476213... */
    float d[3] = {0.001f, 1.0f, 0.0f};
    const float exp[3] = {0.0476213f, 0.00005f, 1.0f};
    ck_assert_int_eq(cg_depth_linearize(d, 3, 0.05f, 1000.0f, 1), CG_OK);
    for (int i = 0; i < 3; i++) ck_assert_float_eq_tol(d[i], exp[i], exp[i] * 1e-5f);
}
END_TEST

START_TEST(empty_ok)
{
    float d[1] = {0.5f};
    ck_assert_int_eq(cg_depth_linearize(d, 0, 1.0f, 3.0f, 1), CG_OK);
    ck_assert_float_eq(d[0], 0.5f);
}
END_TEST

START_TEST(bad_planes)
{
    float d[2] = {0.5f, 0.25f};
    const float nan = NAN, inf = INFINITY;
    const float bad[][2] = {{0.0f, 3.0f}, {-1.0f, 3.0f}, {3.0f, 3.0f}, {3.0f, 1.0f},
                            {nan, 3.0f}, {1.0f, nan}, {1.0f, inf}, {-inf, 3.0f}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(cg_depth_linearize(d, 2, bad[i][0], bad[i][1], 1), CG_E_INVALID_ARG);
        ck_assert_int_eq(cg_depth_linearize(d, 2, bad[i][0], bad[i][1], 0), CG_E_INVALID_ARG);
    }
    ck_assert_float_eq(d[0], 0.5f); /* untouched */
    ck_assert_float_eq(d[1], 0.25f);
    ck_assert_int_eq(cg_depth_linearize(NULL, 2, 1.0f, 3.0f, 1), CG_E_INVALID_ARG);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("depth");
    TCase *core = test_tcase("core");
    tcase_add_loop_test(core, both_ranges, 0, 2);
    tcase_add_test(core, typical_planes);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, empty_ok);
    tcase_add_test(limits, bad_planes);
    suite_add_tcase(s, limits);
    return s;
}
