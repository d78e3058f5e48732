/*
 * test_metal_backend.c - the Metal GPU backend's table
 * (src/metal/cg_metal_backend.c) on Linux, over a fake cg_metal_gl
 * (fake_metal_gl.c): the handle is the port's 4 bytes little-endian, the
 * peer's pid reaches the port export and pid <= 0 is refused before any GL
 * work, captures get init's size, every made surface is destroyed once, and
 * the Vulkan import half refuses while closing a valid fd. Expected bytes
 * and texts are written out by hand.
 */
#include <check.h>

#include "check_tcase.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg_gpu_backend.h"
#include "fake_metal_gl.h"

#define PEER_PID 4242

static const cg_gpu_backend *be;
static void *ctx;

static void setup(void)
{
    fake_metal_gl_reset();
    be = cg_gpu_backend_get();
    ctx = NULL;
    ck_assert_int_eq(be->gl_create(&ctx), CG_OK);
    ck_assert_ptr_nonnull(ctx);
}

static void teardown(void)
{
    be->gl_reset(ctx);
    free(ctx); /* gl_create's calloc; jni keeps it for the process */
    ck_assert_int_eq(fake_gl.live, 0);
}

static const char *err_text(void)
{
    return cg_err_text(be->gl_error(ctx));
}

START_TEST(table_names_metal_and_a_4_byte_handle)
{
    ck_assert_str_eq(be->name, "Metal");
    ck_assert_uint_eq(be->handle_size, 4);
    ck_assert_ptr_nonnull(be->import_create);
    ck_assert_ptr_nonnull(be->import_error);
    ck_assert_ptr_nonnull(be->gl_capture);
    ck_assert_ptr_nonnull(be->gl_error);
}
END_TEST

START_TEST(init_writes_the_port_little_endian)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    memset(handle, 0xAB, sizeof handle);
    ck_assert_int_eq(be->gl_init(ctx, 64, 32, PEER_PID, handle), CG_OK);
    /* port 0x11223344, least significant byte first; nothing past 4 bytes. */
    ck_assert_uint_eq(handle[0], 0x44);
    ck_assert_uint_eq(handle[1], 0x33);
    ck_assert_uint_eq(handle[2], 0x22);
    ck_assert_uint_eq(handle[3], 0x11);
    ck_assert_uint_eq(handle[4], 0xAB);
    ck_assert_int_eq(fake_gl.create_w, 64);
    ck_assert_int_eq(fake_gl.create_h, 32);
    ck_assert_int_eq(fake_gl.export_pid, PEER_PID);
    ck_assert_int_eq(be->gl_live(ctx), 1);
    ck_assert_int_eq(fake_gl.live, 1);
}
END_TEST

static const int k_bad_pids[] = {0, -7};

START_TEST(pid_not_a_process_is_refused_before_gl)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    int pid = k_bad_pids[_i];
    ck_assert_int_eq(be->gl_init(ctx, 64, 32, pid, handle), CG_E_INVALID_ARG);
    char want[64];
    snprintf(want, sizeof want, "pythonPid %d is not a process id", pid);
    ck_assert_str_eq(err_text(), want);
    ck_assert_int_eq(fake_gl.creates, 0);
    ck_assert_int_eq(be->gl_live(ctx), 0);
}
END_TEST

START_TEST(capture_gets_inits_size_texture_and_cursor)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    ck_assert_int_eq(be->gl_init(ctx, 640, 360, PEER_PID, handle), CG_OK);
    cg_gpu_gl_frame f = {7, {1, 12, 34}};
    ck_assert_int_eq(be->gl_capture(ctx, &f), CG_OK);
    ck_assert_int_eq(fake_gl.captures, 1);
    ck_assert_uint_eq(fake_gl.capture_texture, 7);
    ck_assert_int_eq(fake_gl.capture_w, 640);
    ck_assert_int_eq(fake_gl.capture_h, 360);
    ck_assert_int_eq(fake_gl.capture_cursor.draw, 1);
    ck_assert_int_eq(fake_gl.capture_cursor.x, 12);
    ck_assert_int_eq(fake_gl.capture_cursor.y, 34);
}
END_TEST

START_TEST(capture_failure_carries_the_text)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_OK);
    fake_gl.fail_capture = CG_E_BAD_TEXTURE;
    cg_gpu_gl_frame f = {3, {0, 0, 0}};
    ck_assert_int_eq(be->gl_capture(ctx, &f), CG_E_BAD_TEXTURE);
    ck_assert_str_eq(err_text(), "fake capture failed");
    ck_assert_int_eq(be->gl_live(ctx), 1); /* a bad texture is the caller's, not the surface's */
}
END_TEST

START_TEST(capture_before_init_is_not_initialized)
{
    cg_gpu_gl_frame f = {3, {0, 0, 0}};
    ck_assert_int_eq(be->gl_capture(ctx, &f), CG_E_NOT_INITIALIZED);
    ck_assert_int_eq(fake_gl.captures, 0);
}
END_TEST

START_TEST(create_failure_carries_the_text)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    fake_gl.fail_create = CG_E_NO_CONTEXT;
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_E_NO_CONTEXT);
    ck_assert_str_eq(err_text(), "fake create failed");
    ck_assert_int_eq(be->gl_live(ctx), 0);
}
END_TEST

START_TEST(export_failure_destroys_the_surface)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    fake_gl.fail_export = CG_E_PLATFORM;
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_E_PLATFORM);
    ck_assert_str_eq(err_text(), "fake export failed");
    ck_assert_int_eq(fake_gl.creates, 1);
    ck_assert_int_eq(fake_gl.destroys, 1);
    ck_assert_int_eq(be->gl_live(ctx), 0);
    /* The context is usable again once the cause is gone. */
    fake_gl.fail_export = CG_OK;
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_OK);
    ck_assert_int_eq(be->gl_live(ctx), 1);
}
END_TEST

START_TEST(reset_destroys_once_and_init_again_works)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_OK);
    ck_assert_int_eq(be->gl_init(ctx, 16, 16, PEER_PID, handle), CG_E_ALREADY_INITIALIZED);
    ck_assert_int_eq(fake_gl.creates, 1);
    be->gl_reset(ctx);
    be->gl_reset(ctx);
    ck_assert_int_eq(fake_gl.destroys, 1);
    ck_assert_int_eq(be->gl_live(ctx), 0);
    ck_assert_int_eq(be->gl_init(ctx, 32, 8, PEER_PID, handle), CG_OK);
    ck_assert_int_eq(fake_gl.create_w, 32);
    ck_assert_int_eq(fake_gl.create_h, 8);
}
END_TEST

START_TEST(null_context_is_refused)
{
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    cg_gpu_gl_frame f = {3, {0, 0, 0}};
    ck_assert_int_eq(be->gl_init(NULL, 16, 16, PEER_PID, handle), CG_E_INVALID_ARG);
    ck_assert_int_eq(be->gl_capture(NULL, &f), CG_E_INVALID_ARG);
    ck_assert_int_eq(be->gl_live(NULL), 0);
    ck_assert_ptr_null(be->gl_error(NULL));
    be->gl_reset(NULL);
}
END_TEST

/* ---- the import half ----------------------------------------------------- */

static cg_ext_memory_desc desc_of(int64_t fd)
{
    cg_ext_memory_desc d = {CG_EXT_HANDLE_OPAQUE_FD, fd, 64 * 64 * 4, {0}, 64, 64, 1, 1};
    return d;
}

START_TEST(import_refuses_and_closes_a_valid_fd)
{
    void *ic = NULL;
    ck_assert_int_eq(be->import_create(&ic), CG_OK);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    cg_ext_memory_desc d = desc_of(fds[0]);
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    ck_assert_int_eq(be->import_init(ic, &d, handle), CG_E_UNSUPPORTED);
    errno = 0;
    ck_assert_int_eq(fcntl(fds[0], F_GETFD), -1); /* closed by the backend */
    ck_assert_int_eq(errno, EBADF);
    close(fds[1]);
    ck_assert_int_eq(be->import_live(ic), 0);
    ck_assert_int_eq(be->import_copy(ic), CG_E_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(cg_err_text(be->import_error(ic)), "Metal"));
    be->import_reset(ic);
    free(ic);
}
END_TEST

START_TEST(import_bad_descriptor_is_invalid_arg)
{
    void *ic = NULL;
    ck_assert_int_eq(be->import_create(&ic), CG_OK);
    cg_ext_memory_desc d = desc_of(-1);
    uint8_t handle[CG_GPU_HANDLE_MAX_SIZE];
    ck_assert_int_eq(be->import_init(ic, &d, handle), CG_E_INVALID_ARG);
    ck_assert_int_eq(be->import_init(NULL, &d, handle), CG_E_INVALID_ARG);
    free(ic);
}
END_TEST

static Suite *backend_suite(void)
{
    Suite *s = suite_create("metal_backend");
    TCase *gl = test_tcase("gl");
    tcase_add_checked_fixture(gl, setup, teardown);
    tcase_add_test(gl, table_names_metal_and_a_4_byte_handle);
    tcase_add_test(gl, init_writes_the_port_little_endian);
    tcase_add_loop_test(gl, pid_not_a_process_is_refused_before_gl, 0,
                        (int)(sizeof k_bad_pids / sizeof k_bad_pids[0]));
    tcase_add_test(gl, capture_gets_inits_size_texture_and_cursor);
    tcase_add_test(gl, capture_failure_carries_the_text);
    tcase_add_test(gl, capture_before_init_is_not_initialized);
    tcase_add_test(gl, create_failure_carries_the_text);
    tcase_add_test(gl, export_failure_destroys_the_surface);
    tcase_add_test(gl, reset_destroys_once_and_init_again_works);
    tcase_add_test(gl, null_context_is_refused);
    suite_add_tcase(s, gl);

    TCase *import = test_tcase("import");
    tcase_add_checked_fixture(import, setup, teardown);
    tcase_add_test(import, import_refuses_and_closes_a_valid_fd);
    tcase_add_test(import, import_bad_descriptor_is_invalid_arg);
    suite_add_tcase(s, import);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(backend_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
