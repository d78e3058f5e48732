/*
 * test_metal_lifecycle.c - the portable IOSurface lifecycle and size logic
 * (src/metal/cg_metal.c) against the fake platform: sizes and alignment,
 * one release per resource on every path, injected failures at each step,
 * port export, and the handle registry. Expected sizes are worked out by
 * hand in the comments.
 */
#include <check.h>

#include "check_tcase.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg_size.h"
#include "cg_metal.h"
#include "fake_platform.h"

#define OTHER_PID 4242
#define SELF_PID 777

static fake_platform F;
static cg_err errbuf;
#define err (errbuf.text)

static void setup(void)
{
    fake_init(&F, 64, SELF_PID);
    cg_err_clear(&errbuf);
}

static void teardown(void)
{
    fake_cleanup(&F);
}

static cg_metal_surface *make(int w, int h)
{
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(&F.base, w, h, CG_METAL_FORMAT_RGBA, &s, &errbuf),
                     CG_OK);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Every resource the fake handed out came back exactly once. */
static void assert_balanced(void)
{
    ck_assert_int_eq(fake_live_surfaces(&F), 0);
    ck_assert_int_eq(fake_live_ports(&F), 0);
    ck_assert_int_eq(F.bad_releases, 0);
}

/* ---- core ------------------------------------------------------------------ */

START_TEST(create_destroy_640x360)
{
    cg_metal_surface *s = make(640, 360);
    /* 640 * 4 = 2560 = 40 * 64: already aligned. 2560 * 360 = 921600. */
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(s), 2560);
    ck_assert_uint_eq(cg_metal_surface_alloc_size(s), 921600);
    ck_assert_int_eq(cg_metal_surface_width(s), 640);
    ck_assert_int_eq(cg_metal_surface_height(s), 360);
    ck_assert_uint_eq(cg_metal_surface_pixel_format(s), 0x52474241u); /* 'RGBA' */
    ck_assert_int_eq(F.create_calls, 1);
    ck_assert_int_eq(F.last_desc.width, 640);
    ck_assert_int_eq(F.last_desc.height, 360);
    ck_assert_uint_eq(F.last_desc.bytes_per_element, 4);
    ck_assert_uint_eq(F.last_desc.bytes_per_row, 2560);
    ck_assert_uint_eq(F.last_desc.alloc_size, 921600);
    ck_assert_ptr_nonnull(cg_metal_surface_handle(s));
    ck_assert_int_eq(fake_live_surfaces(&F), 1);
    cg_metal_surface_destroy(s);
    ck_assert_int_eq(F.surface_releases, 1);
    assert_balanced();
}
END_TEST

START_TEST(padded_rows_are_exported)
{
    /* 3 pixels = 12 bytes, aligned up to 64; 5 rows = 320 bytes. The
     * consumer must be told 64, not 12 (the predecessor's bug). */
    cg_metal_surface *s = make(3, 5);
    ck_assert_uint_eq(F.last_desc.bytes_per_row, 64);
    ck_assert_uint_eq(F.last_desc.alloc_size, 320);
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(s), 64);
    ck_assert_uint_eq(cg_metal_surface_alloc_size(s), 320);
    /* The whole allocation is addressable (ASan checks the bounds). */
    uint8_t *p = cg_metal_surface_base_address(s);
    ck_assert_ptr_nonnull(p);
    memset(p, 0xab, 320);
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

START_TEST(platform_pitch_wins)
{
    /* The platform may pad more than it said when aligning: 64 + 128. */
    F.extra_row_bytes = 128;
    cg_metal_surface *s = make(3, 5);
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(s), 192);
    ck_assert_uint_eq(cg_metal_surface_alloc_size(s), 960);
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

START_TEST(one_by_one_and_bgra)
{
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(&F.base, 1, 1, CG_METAL_FORMAT_BGRA, &s, &errbuf),
                     CG_OK);
    /* 4 bytes aligned to 64. */
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(s), 64);
    ck_assert_uint_eq(cg_metal_surface_alloc_size(s), 64);
    ck_assert_uint_eq(F.last_desc.pixel_format, 0x42475241u); /* 'BGRA' */
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

START_TEST(destroy_null_and_getters_null)
{
    cg_metal_surface_destroy(NULL);
    ck_assert_ptr_null(cg_metal_surface_handle(NULL));
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(NULL), 0);
    ck_assert_str_eq(cg_metal_surface_last_error(NULL), "");
    ck_assert_int_eq(fake_total_calls(&F), 0);
}
END_TEST

START_TEST(bad_format_and_null_args)
{
    cg_metal_surface *s = (cg_metal_surface *)(uintptr_t)1; /* must be reset to NULL */
    ck_assert_int_eq(cg_metal_surface_create(&F.base, 8, 8, 0x34324241u, &s, &errbuf),
                     CG_E_INVALID_ARG);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(cg_metal_surface_create(NULL, 8, 8, CG_METAL_FORMAT_RGBA, &s, &errbuf),
                     CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_metal_surface_create(&F.base, 8, 8, CG_METAL_FORMAT_RGBA, NULL, &errbuf),
                     CG_E_INVALID_ARG);
    cg_metal_platform incomplete = F.base;
    incomplete.port_insert = NULL;
    ck_assert_int_eq(cg_metal_surface_create(&incomplete, 8, 8, CG_METAL_FORMAT_RGBA, &s, &errbuf),
                     CG_E_INVALID_ARG);
    ck_assert_int_eq(fake_total_calls(&F), 0);
}
END_TEST

/* ---- limits: bad sizes never reach the platform --------------------------- */

static const struct {
    int w, h;
    cg_status want;
} k_bad_dims[] = {
    {0, 1, CG_E_INVALID_ARG},     {1, 0, CG_E_INVALID_ARG},       {-1, 5, CG_E_INVALID_ARG},
    {5, -1, CG_E_INVALID_ARG},    {INT_MIN, 1, CG_E_INVALID_ARG}, {16385, 1, CG_E_TOO_LARGE},
    {1, 16385, CG_E_TOO_LARGE},   {INT_MAX, INT_MAX, CG_E_TOO_LARGE},
};

START_TEST(bad_dims_rejected)
{
    cg_metal_surface *s = NULL;
    cg_status st = cg_metal_surface_create(&F.base, k_bad_dims[_i].w, k_bad_dims[_i].h,
                                           CG_METAL_FORMAT_RGBA, &s, &errbuf);
    ck_assert_int_eq(st, k_bad_dims[_i].want);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(fake_total_calls(&F), 0);
    ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(largest_surface_size)
{
    /* 16384 * 4 = 65536 (a multiple of 64); * 16384 rows = 1 GiB. */
    cg_metal_surface *s = make(16384, 16384);
    ck_assert_uint_eq(cg_metal_surface_bytes_per_row(s), 65536);
    ck_assert_uint_eq(cg_metal_surface_alloc_size(s), (size_t)1 << 30);
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

START_TEST(layout_alone)
{
    size_t bpr = 0, alloc = 0;
    /* 17 px = 68 bytes -> 128; 3 rows = 384. */
    ck_assert_int_eq(cg_metal_surface_layout(&F.base, 17, 3, &bpr, &alloc, &errbuf), CG_OK);
    ck_assert_uint_eq(bpr, 128);
    ck_assert_uint_eq(alloc, 384);
    ck_assert_int_eq(F.create_calls, 0);
}
END_TEST

/* ---- overflow and platform arithmetic ------------------------------------- */

START_TEST(alignment_overflow)
{
    F.fail = FAKE_FAIL_ALIGN_HUGE; /* SIZE_MAX per row: times 2 rows overflows */
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(&F.base, 8, 2, CG_METAL_FORMAT_RGBA, &s, &errbuf),
                     CG_E_OVERFLOW);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(F.create_calls, 0);
    assert_balanced();
}
END_TEST

START_TEST(alignment_shrinks)
{
    F.fail = FAKE_FAIL_ALIGN_SHRINK;
    cg_metal_surface *s = NULL;
    ck_assert_int_eq(cg_metal_surface_create(&F.base, 8, 2, CG_METAL_FORMAT_RGBA, &s, &errbuf),
                     CG_E_PLATFORM);
    ck_assert_int_eq(F.create_calls, 0);
    ck_assert_ptr_nonnull(strstr(err, "down to"));
    assert_balanced();
}
END_TEST

/* ---- injected failures: nothing leaks, nothing is released twice ---------- */

static const struct {
    fake_fail fail;
    cg_status want;
    int creates;  /* surface_create calls expected */
    int releases; /* surface releases expected */
    int fake_text; /* the fake's own message must be in err */
} k_create_failures[] = {
    {FAKE_FAIL_AVAILABLE, CG_E_UNSUPPORTED, 0, 0, 1},
    {FAKE_FAIL_ALIGN, CG_E_PLATFORM, 0, 0, 1},
    {FAKE_FAIL_CREATE, CG_E_PLATFORM, 1, 0, 1},
    {FAKE_FAIL_CREATE_NULL, CG_E_PLATFORM, 1, 0, 0},
    {FAKE_FAIL_SHORT_ROW, CG_E_PLATFORM, 1, 1, 0},
};

START_TEST(create_failure_paths)
{
    F.fail = k_create_failures[_i].fail;
    cg_metal_surface *s = NULL;
    cg_status st = cg_metal_surface_create(&F.base, 10, 4, CG_METAL_FORMAT_RGBA, &s, &errbuf);
    ck_assert_int_eq(st, k_create_failures[_i].want);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(F.create_calls, k_create_failures[_i].creates);
    ck_assert_int_eq(F.surface_releases, k_create_failures[_i].releases);
    ck_assert_str_ne(err, "");
    if (k_create_failures[_i].fake_text) ck_assert_ptr_nonnull(strstr(err, FAKE_ERR_TEXT));
    assert_balanced();
}
END_TEST

/* ---- mach port export ------------------------------------------------------- */

START_TEST(export_to_other_process)
{
    cg_metal_surface *s = make(64, 32);
    uint32_t port = 0;
    ck_assert_int_eq(cg_metal_surface_export_port(s, OTHER_PID, &port), CG_OK);
    ck_assert_uint_eq(port, 0x1103); /* the fake's first port name */
    ck_assert_int_eq(F.port_creates, 1);
    ck_assert_int_eq(F.port_inserts, 1);
    ck_assert_int_eq(F.last_insert_pid, OTHER_PID);
    ck_assert_uint_eq(F.last_insert_port, 0x1103);
    /* Our own right was a copy and is gone already. */
    ck_assert_int_eq(F.port_releases, 1);
    ck_assert_int_eq(fake_live_ports(&F), 0);
    /* A second export makes a second right for the other task. */
    ck_assert_int_eq(cg_metal_surface_export_port(s, OTHER_PID, &port), CG_OK);
    ck_assert_int_eq(F.port_creates, 2);
    ck_assert_int_eq(F.port_releases, 2);
    cg_metal_surface_destroy(s);
    ck_assert_int_eq(F.port_releases, 2);
    assert_balanced();
}
END_TEST

START_TEST(export_to_self_kept_until_destroy)
{
    cg_metal_surface *s = make(64, 32);
    uint32_t a = 0, b = 0;
    ck_assert_int_eq(cg_metal_surface_export_port(s, SELF_PID, &a), CG_OK);
    ck_assert_int_eq(cg_metal_surface_export_port(s, SELF_PID, &b), CG_OK);
    ck_assert_uint_eq(a, b);
    ck_assert_uint_ne(a, 0);
    ck_assert_int_eq(F.port_creates, 1);
    ck_assert_int_eq(F.port_inserts, 0);
    ck_assert_int_eq(fake_live_ports(&F), 1);
    cg_metal_surface_destroy(s);
    ck_assert_int_eq(F.port_releases, 1);
    assert_balanced();
}
END_TEST

static const struct {
    fake_fail fail;
    int inserts;
    int port_releases;
} k_port_failures[] = {
    {FAKE_FAIL_PORT_CREATE, 0, 0},
    {FAKE_FAIL_PORT_NULL, 0, 0},
    {FAKE_FAIL_PORT_INSERT, 1, 1},
};

START_TEST(export_failure_paths)
{
    cg_metal_surface *s = make(16, 16);
    F.fail = k_port_failures[_i].fail;
    uint32_t port = 0xdead;
    ck_assert_int_eq(cg_metal_surface_export_port(s, OTHER_PID, &port), CG_E_PLATFORM);
    ck_assert_uint_eq(port, 0xdead); /* untouched on failure */
    ck_assert_int_eq(F.port_inserts, k_port_failures[_i].inserts);
    ck_assert_int_eq(F.port_releases, k_port_failures[_i].port_releases);
    ck_assert_int_eq(fake_live_ports(&F), 0);
    ck_assert_str_ne(cg_metal_surface_last_error(s), "");
    /* The surface is still usable afterwards. */
    F.fail = FAKE_FAIL_NONE;
    ck_assert_int_eq(cg_metal_surface_export_port(s, OTHER_PID, &port), CG_OK);
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

START_TEST(export_bad_args)
{
    cg_metal_surface *s = make(16, 16);
    uint32_t port = 0;
    ck_assert_int_eq(cg_metal_surface_export_port(s, 0, &port), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_metal_surface_export_port(s, -5, &port), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_metal_surface_export_port(s, OTHER_PID, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_metal_surface_export_port(NULL, OTHER_PID, &port), CG_E_INVALID_ARG);
    ck_assert_int_eq(F.port_creates, 0);
    cg_metal_surface_destroy(s);
    assert_balanced();
}
END_TEST

/* ---- registry ----------------------------------------------------------------- */

START_TEST(registry_destroy_twice_is_harmless)
{
    cg_metal_registry r;
    memset(&r, 0, sizeof r);
    cg_metal_surface *s = make(32, 32);
    const uint64_t key = cg_metal_surface_key(s);
    ck_assert_uint_eq(key, (uint64_t)(uintptr_t)cg_metal_surface_handle(s));
    ck_assert_int_eq(cg_metal_registry_add(&r, s), CG_OK);
    ck_assert_int_eq(cg_metal_registry_add(&r, s), CG_E_INVALID_ARG); /* already there */
    ck_assert_ptr_eq(cg_metal_registry_find(&r, key), s);
    ck_assert_ptr_null(cg_metal_registry_find(&r, 0));
    ck_assert_ptr_null(cg_metal_registry_find(&r, key + 1));
    ck_assert_int_eq(cg_metal_registry_count(&r), 1);
    ck_assert_int_eq(cg_metal_registry_destroy(&r, key), CG_OK);
    ck_assert_int_eq(F.surface_releases, 1);
    ck_assert_int_eq(cg_metal_registry_destroy(&r, key), CG_E_NOT_INITIALIZED);
    ck_assert_int_eq(cg_metal_registry_destroy(&r, 0), CG_E_NOT_INITIALIZED);
    ck_assert_int_eq(F.surface_releases, 1);
    ck_assert_ptr_null(cg_metal_registry_find(&r, key));
    assert_balanced();
}
END_TEST

START_TEST(registry_full_and_clear)
{
    cg_metal_registry r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < CG_METAL_MAX_SURFACES; i++) {
        ck_assert_int_eq(cg_metal_registry_add(&r, make(8, 8)), CG_OK);
    }
    cg_metal_surface *extra = make(8, 8);
    ck_assert_int_eq(cg_metal_registry_add(&r, extra), CG_E_BAD_STATE);
    cg_metal_surface_destroy(extra);
    ck_assert_int_eq(cg_metal_registry_count(&r), CG_METAL_MAX_SURFACES);
    cg_metal_registry_clear(&r);
    ck_assert_int_eq(cg_metal_registry_count(&r), 0);
    ck_assert_int_eq(F.surface_releases, CG_METAL_MAX_SURFACES + 1);
    cg_metal_registry_clear(&r); /* again: nothing left to release */
    ck_assert_int_eq(F.surface_releases, CG_METAL_MAX_SURFACES + 1);
    assert_balanced();
}
END_TEST


static Suite *metal_suite(void)
{
    Suite *s = suite_create("metal_lifecycle");
    TCase *core = test_tcase("core");
    tcase_add_checked_fixture(core, setup, teardown);
    tcase_add_test(core, create_destroy_640x360);
    tcase_add_test(core, padded_rows_are_exported);
    tcase_add_test(core, platform_pitch_wins);
    tcase_add_test(core, one_by_one_and_bgra);
    tcase_add_test(core, destroy_null_and_getters_null);
    tcase_add_test(core, bad_format_and_null_args);
    suite_add_tcase(s, core);

    TCase *limits = test_tcase("limits");
    tcase_add_checked_fixture(limits, setup, teardown);
    tcase_add_loop_test(limits, bad_dims_rejected, 0,
                        (int)(sizeof k_bad_dims / sizeof k_bad_dims[0]));
    tcase_add_test(limits, largest_surface_size);
    tcase_add_test(limits, layout_alone);
    suite_add_tcase(s, limits);

    TCase *overflow = test_tcase("overflow");
    tcase_add_checked_fixture(overflow, setup, teardown);
    tcase_add_test(overflow, alignment_overflow);
    tcase_add_test(overflow, alignment_shrinks);
    suite_add_tcase(s, overflow);

    TCase *failures = test_tcase("failures");
    tcase_add_checked_fixture(failures, setup, teardown);
    tcase_add_loop_test(failures, create_failure_paths, 0,
                        (int)(sizeof k_create_failures / sizeof k_create_failures[0]));
    tcase_add_loop_test(failures, export_failure_paths, 0,
                        (int)(sizeof k_port_failures / sizeof k_port_failures[0]));
    suite_add_tcase(s, failures);

    TCase *ports = test_tcase("ports");
    tcase_add_checked_fixture(ports, setup, teardown);
    tcase_add_test(ports, export_to_other_process);
    tcase_add_test(ports, export_to_self_kept_until_destroy);
    tcase_add_test(ports, export_bad_args);
    suite_add_tcase(s, ports);

    TCase *registry = test_tcase("registry");
    tcase_add_checked_fixture(registry, setup, teardown);
    tcase_add_test(registry, registry_destroy_twice_is_harmless);
    tcase_add_test(registry, registry_full_and_clear);
    suite_add_tcase(s, registry);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(metal_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
