/*
 * test_cuda_import_desc.c - the parts of the Vulkan->CUDA import that need
 * no GPU, in every build (label core, so also under ASan+UBSan): the
 * 68-byte IPC handle layout against hand-written bytes, the descriptor
 * checks at every edge, and handle ownership: a handle rejected by the
 * checks stays open, a handle that passed them is closed by the library
 * whatever happens next (no CUDA in the build, no driver, no device with
 * that UUID). The fds are real (pipe ends), so "closed" is observed with
 * fcntl, not taken from the code under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cg_cuda_import.h"
#include "check_tcase.h"
#include "cg_cuda_ipc.h"
#include "ck_main.h"

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* A fresh fd (the read end of a pipe; the write end is closed here). */
static int new_fd(void)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[1]);
    return p[0];
}

/* 16 x 8 RGBA8 = 512 bytes, fd-typed, all-zero UUID (no real device has it). */
static cg_ext_memory_desc valid_desc(int64_t handle)
{
    cg_ext_memory_desc d;
    memset(&d, 0, sizeof d);
    d.handle_type = CG_EXT_HANDLE_OPAQUE_FD;
    d.handle = handle;
    d.allocation_size = 512;
    d.width = 16;
    d.height = 8;
    d.dedicated = 1;
    d.color_attachment = 1;
    return d;
}

START_TEST(ipc_handle_layout)
{
    uint8_t mem[CG_CUDA_IPC_MEM_HANDLE_SIZE];
    for (int i = 0; i < CG_CUDA_IPC_MEM_HANDLE_SIZE; i++) mem[i] = (uint8_t)(0xA0 + i);
    uint8_t out[CG_CUDA_IPC_HANDLE_SIZE];
    memset(out, 0xEE, sizeof out);
    cg_cuda_ipc_pack(out, mem, 0x01020304);
    ck_assert_mem_eq(out, mem, 64);
    /* The ordinal is a little-endian int32 after the 64-byte handle. */
    static const uint8_t le[4] = {0x04, 0x03, 0x02, 0x01};
    ck_assert_mem_eq(out + 64, le, 4);
    ck_assert_int_eq(cg_cuda_ipc_device(out), 0x01020304);

    cg_cuda_ipc_pack(out, mem, 2);
    static const uint8_t two[4] = {0x02, 0x00, 0x00, 0x00};
    ck_assert_mem_eq(out + 64, two, 4);
    ck_assert_int_eq(cg_cuda_ipc_device(out), 2);

    cg_cuda_ipc_pack(out, mem, -1);
    static const uint8_t minus1[4] = {0xff, 0xff, 0xff, 0xff};
    ck_assert_mem_eq(out + 64, minus1, 4);
    ck_assert_int_eq(cg_cuda_ipc_device(out), -1);
}
END_TEST

START_TEST(desc_accepts)
{
    cg_ext_memory_desc d = valid_desc(7);
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
    d.allocation_size = 4096; /* larger than the image needs: padding is fine */
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
    d = valid_desc(INT32_MAX);
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
    d = valid_desc(1);
    d.width = d.height = 16384;
    d.allocation_size = (uint64_t)16384 * 16384 * 4;
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
    /* Win32 HANDLEs may be negative pseudo-values other than -1. */
    d = valid_desc(-5);
    d.handle_type = CG_EXT_HANDLE_OPAQUE_WIN32;
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
    d.handle = (int64_t)1 << 40;
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), CG_OK);
}
END_TEST

static const struct {
    int64_t handle;
    int type;
    int w, h;
    uint64_t alloc;
    cg_status want;
} k_bad[] = {
    {-1, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 512, CG_E_INVALID_ARG},
    {0, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 512, CG_E_INVALID_ARG},
    {-1, CG_EXT_HANDLE_OPAQUE_WIN32, 16, 8, 512, CG_E_INVALID_ARG},
    {0, CG_EXT_HANDLE_OPAQUE_WIN32, 16, 8, 512, CG_E_INVALID_ARG},
    {-2, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 512, CG_E_INVALID_ARG},
    {(int64_t)INT32_MAX + 1, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 512, CG_E_INVALID_ARG},
    {7, 2, 16, 8, 512, CG_E_INVALID_ARG},
    {7, -1, 16, 8, 512, CG_E_INVALID_ARG},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 0, 8, 512, CG_E_INVALID_ARG},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 16, -8, 512, CG_E_INVALID_ARG},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 16385, 8, UINT64_MAX, CG_E_TOO_LARGE},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 511, CG_E_BUFFER_TOO_SMALL},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 16, 8, 0, CG_E_BUFFER_TOO_SMALL},
    {7, CG_EXT_HANDLE_OPAQUE_FD, 16384, 16384, (uint64_t)16384 * 16384 * 4 - 1,
     CG_E_BUFFER_TOO_SMALL},
};

START_TEST(desc_rejects)
{
    cg_ext_memory_desc d = valid_desc(k_bad[_i].handle);
    d.handle_type = (cg_ext_handle_type)k_bad[_i].type;
    d.width = k_bad[_i].w;
    d.height = k_bad[_i].h;
    d.allocation_size = k_bad[_i].alloc;
    ck_assert_int_eq(cg_ext_memory_check_desc(&d, NULL), k_bad[_i].want);
    ck_assert_int_eq(cg_ext_memory_check_desc(NULL, NULL), CG_E_INVALID_ARG);
}
END_TEST

/* Rejected by the checks: a valid handle is still the library's (Java holds
 * an fd as a number and could never close it), so each refusal closes it;
 * a control fd that was never passed stays open. */
START_TEST(rejected_handle_is_closed)
{
    cg_cuda_import *ci = NULL;
    ck_assert_int_eq(cg_cuda_import_create(&ci), CG_OK);
    int control = new_fd();
    uint8_t h[CG_CUDA_IPC_HANDLE_SIZE];
    for (int round = 0; round < 4; round++) {
        int fd = new_fd();
        cg_ext_memory_desc d = valid_desc(fd);
        cg_status want = CG_E_INVALID_ARG;
        cg_cuda_import *ctx = ci;
        uint8_t *out = h;
        if (round == 0) {
            d.allocation_size = 511;
            want = CG_E_BUFFER_TOO_SMALL;
        } else if (round == 1) {
            d.width = 0;
        } else if (round == 2) {
            out = NULL;
        } else {
            ctx = NULL;
        }
        ck_assert_int_eq(cg_cuda_import_init(ctx, &d, out), want);
        ck_assert_msg(!fd_is_open(fd), "round %d: refused fd %d left open", round, fd);
        ck_assert(fd_is_open(control));
    }
    /* Values that are no handle at all are left alone (and not closed). */
    cg_ext_memory_desc d = valid_desc(-1);
    ck_assert_int_eq(cg_cuda_import_init(ci, &d, h), CG_E_INVALID_ARG);
    d = valid_desc(control);
    d.handle_type = (cg_ext_handle_type)9;
    ck_assert_int_eq(cg_cuda_import_init(ci, &d, h), CG_E_INVALID_ARG);
    ck_assert(fd_is_open(control));
    close(control);
    cg_cuda_import_destroy(ci);
}
END_TEST

/* Passed the checks: the library closes the fd on its failure, whichever
 * failure this machine gives (no CUDA built, no driver, no device with an
 * all-zero UUID), and stays idle and usable. */
START_TEST(accepted_handle_is_closed_on_failure)
{
    cg_cuda_import *ci = NULL;
    ck_assert_int_eq(cg_cuda_import_create(&ci), CG_OK);
    for (int round = 0; round < 3; round++) {
        int fd = new_fd();
        cg_ext_memory_desc d = valid_desc(fd);
        uint8_t h[CG_CUDA_IPC_HANDLE_SIZE];
        cg_status st = cg_cuda_import_init(ci, &d, h);
#ifdef CG_TEST_HAVE_CUDA
        ck_assert_msg(st == CG_E_CUDA || st == CG_E_NO_DEVICE, "got %s", cg_status_name(st));
        ck_assert_int_eq(cg_cuda_import_copy(ci, 0), CG_E_NOT_INITIALIZED);
#else
        ck_assert_int_eq(st, CG_E_UNSUPPORTED);
        ck_assert_int_eq(cg_cuda_import_copy(ci, 0), CG_E_UNSUPPORTED);
#endif
        ck_assert_msg(!fd_is_open(fd), "fd %d left open after a failed import", fd);
        ck_assert_str_ne(cg_cuda_import_last_error(ci), "");
        ck_assert(!cg_cuda_import_is_initialized(ci));
        ck_assert_ptr_null(cg_cuda_import_shared_ptr(ci));
        ck_assert_int_eq(cg_cuda_import_device(ci), -1);
    }
    cg_cuda_import_reset(ci);
    cg_cuda_import_destroy(ci);
    cg_cuda_import_destroy(NULL);
    cg_cuda_import_reset(NULL);
    ck_assert_ptr_nonnull(cg_cuda_import_last_error(NULL));
}
END_TEST

/* The semaphore fd follows the same rule as the memory handle. */
START_TEST(semaphore_fd_ownership)
{
    cg_cuda_import *ci = NULL;
    ck_assert_int_eq(cg_cuda_import_create(&ci), CG_OK);
    int fd = new_fd();
    /* Rejected arguments: untouched. */
    ck_assert_int_eq(cg_cuda_import_semaphore(ci, (cg_cuda_sem_type)9, fd), CG_E_INVALID_ARG);
    ck_assert_msg(fd_is_open(fd), "fd closed although the semaphore type was rejected");
    ck_assert_int_eq(cg_cuda_import_semaphore(NULL, CG_CUDA_SEM_BINARY_FD, fd), CG_E_INVALID_ARG);
    ck_assert(fd_is_open(fd));
    ck_assert_int_eq(cg_cuda_import_semaphore(ci, CG_CUDA_SEM_BINARY_FD, -1), CG_E_INVALID_ARG);
    /* Accepted, but no import is live (or no CUDA): the library closes it. */
    cg_status st = cg_cuda_import_semaphore(ci, CG_CUDA_SEM_TIMELINE_FD, fd);
#ifdef CG_TEST_HAVE_CUDA
    ck_assert_int_eq(st, CG_E_NOT_INITIALIZED);
#else
    ck_assert_int_eq(st, CG_E_UNSUPPORTED);
#endif
    ck_assert_msg(!fd_is_open(fd), "fd %d left open after a refused semaphore import", fd);
    cg_cuda_import_destroy(ci);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("cuda_import_desc");
    TCase *core = test_tcase("core");
    tcase_add_test(core, ipc_handle_layout);
    tcase_add_test(core, desc_accepts);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_loop_test(limits, desc_rejects, 0, (int)(sizeof k_bad / sizeof k_bad[0]));
    suite_add_tcase(s, limits);
    TCase *own = test_tcase("ownership");
    tcase_add_test(own, rejected_handle_is_closed);
    tcase_add_test(own, accepted_handle_is_closed_on_failure);
    tcase_add_test(own, semaphore_fd_ownership);
    suite_add_tcase(s, own);
    return s;
}
