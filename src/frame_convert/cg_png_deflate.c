/*
 * The zlib stream of the PNG encoder, from a deflate library opened with
 * dlopen: libdeflate (whole-buffer, faster than zlib at equal levels and
 * smaller at equal time), else zlib. Neither is linked, so the library loads
 * on a machine without them and only PNG encoding reports the missing part.
 * The headers give the types only.
 */
#include <dlfcn.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cg_png_internal.h"

struct cg_deflate_lib {
    cg_deflate_kind kind;
    void *handle;
    struct libdeflate_compressor *(*ld_alloc)(int level);
    size_t (*ld_zlib)(struct libdeflate_compressor *c, const void *in, size_t n, void *out,
                      size_t cap);
    size_t (*ld_bound)(struct libdeflate_compressor *c, size_t n);
    void (*ld_free)(struct libdeflate_compressor *c);
    int (*z_init2)(z_streamp s, int level, int method, int bits, int mem, int strategy,
                   const char *version, int stream_size);
    int (*z_deflate)(z_streamp s, int flush);
    int (*z_end)(z_streamp s);
};

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
#define CG_SYM(lib, field, name)                                                  \
    (*(void **)(void *)&(lib)->field = dlsym((lib)->handle, name), (lib)->field != NULL)

static int open_libdeflate(cg_deflate_lib *lib, const char *soname)
{
    lib->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib->handle == NULL) return 0;
    lib->kind = CG_DEFLATE_LIBDEFLATE;
    if (CG_SYM(lib, ld_alloc, "libdeflate_alloc_compressor") &&
        CG_SYM(lib, ld_zlib, "libdeflate_zlib_compress") &&
        CG_SYM(lib, ld_bound, "libdeflate_zlib_compress_bound") &&
        CG_SYM(lib, ld_free, "libdeflate_free_compressor"))
        return 1;
    dlclose(lib->handle);
    lib->handle = NULL;
    return 0;
}

static int open_zlib(cg_deflate_lib *lib, const char *soname)
{
    lib->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib->handle == NULL) return 0;
    lib->kind = CG_DEFLATE_ZLIB;
    if (CG_SYM(lib, z_init2, "deflateInit2_") && CG_SYM(lib, z_deflate, "deflate") &&
        CG_SYM(lib, z_end, "deflateEnd"))
        return 1;
    dlclose(lib->handle);
    lib->handle = NULL;
    return 0;
}

cg_status cg_deflate_open(const char *libdeflate_soname, const char *zlib_soname,
                          cg_deflate_lib **out)
{
    CG_RETURN_IF(out == NULL, CG_E_INVALID_ARG);
    *out = NULL;
    cg_deflate_lib *lib = calloc(1, sizeof *lib);
    CG_RETURN_IF(lib == NULL, CG_E_NO_MEMORY);
    if ((libdeflate_soname != NULL && open_libdeflate(lib, libdeflate_soname)) ||
        (zlib_soname != NULL && open_zlib(lib, zlib_soname))) {
        *out = lib;
        return CG_OK;
    }
    free(lib);
    return CG_E_UNSUPPORTED;
}

void cg_deflate_close(cg_deflate_lib *lib)
{
    if (lib == NULL) return;
    dlclose(lib->handle);
    free(lib);
}

cg_deflate_kind cg_deflate_lib_kind(const cg_deflate_lib *lib)
{
    return lib->kind;
}

static cg_deflate_lib *process_lib, *process_zlib;
static pthread_once_t process_once = PTHREAD_ONCE_INIT, zlib_once = PTHREAD_ONCE_INIT;

static void open_process_lib(void)
{
    if (cg_deflate_open("libdeflate.so.0", "libz.so.1", &process_lib) != CG_OK)
        process_lib = NULL;
}

static void open_process_zlib(void)
{
    if (cg_deflate_open(NULL, "libz.so.1", &process_zlib) != CG_OK) process_zlib = NULL;
}

const cg_deflate_lib *cg_deflate_default(void)
{
    pthread_once(&process_once, open_process_lib);
    return process_lib;
}

const cg_deflate_lib *cg_deflate_for_strategy(int strategy)
{
    const cg_deflate_lib *lib = cg_deflate_default();
    if (strategy < 0 || lib == NULL || lib->kind == CG_DEFLATE_ZLIB) return lib;
    pthread_once(&zlib_once, open_process_zlib);
    return process_zlib != NULL ? process_zlib : lib;
}

const char *cg_deflate_unavailable_reason(void)
{
    return "PNG encoding loads libdeflate (libdeflate.so.0, Debian/Ubuntu package libdeflate0) "
           "or else zlib (libz.so.1) at run time, and neither could be loaded; install "
           "libdeflate, or use RAW (0)";
}

/* Above both libraries' own bounds: libdeflate's is 5 bytes per 5000 input
 * bytes (a block each) plus a few, zlib's about 0.03 % plus a few. */
size_t cg_deflate_bound(const cg_deflate_lib *lib, size_t n)
{
    (void)lib;
    return n + n / 128 + 1024;
}

static cg_status via_libdeflate(const cg_deflate_lib *lib, int level, const uint8_t *in,
                                size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    struct libdeflate_compressor *c = lib->ld_alloc(level);
    CG_RETURN_IF(c == NULL, CG_E_NO_MEMORY);
    size_t len = cap >= lib->ld_bound(c, n) ? lib->ld_zlib(c, in, n, out, cap) : 0;
    lib->ld_free(c);
    CG_RETURN_IF(len == 0, CG_E_PNG); /* out of room: cannot happen with the bound */
    *out_len = len;
    return CG_OK;
}

static cg_status via_zlib(const cg_deflate_lib *lib, int level, int strategy, const uint8_t *in,
                          size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    int zst = lib->z_init2(&s, level, Z_DEFLATED, 15, 8, strategy < 0 ? Z_DEFAULT_STRATEGY : strategy,
                           ZLIB_VERSION, (int)sizeof s);
    CG_RETURN_IF(zst == Z_MEM_ERROR, CG_E_NO_MEMORY);
    CG_RETURN_IF(zst != Z_OK, CG_E_PNG);
    /* avail_in/out are 32-bit: feed in slices. */
    const size_t slice = 1u << 30;
    s.next_out = out;
    size_t in_left = n, out_left = cap;
    do {
        if (s.avail_in == 0 && in_left > 0) {
            s.next_in = (Bytef *)(uintptr_t)(in + (n - in_left));
            s.avail_in = (uInt)(in_left < slice ? in_left : slice);
            in_left -= s.avail_in;
        }
        if (s.avail_out == 0) {
            if (out_left == 0) break;
            s.avail_out = (uInt)(out_left < slice ? out_left : slice);
            out_left -= s.avail_out;
        }
        zst = lib->z_deflate(&s, in_left == 0 ? Z_FINISH : Z_NO_FLUSH);
    } while (zst == Z_OK || zst == Z_BUF_ERROR);
    size_t len = (size_t)(s.next_out - out);
    lib->z_end(&s);
    CG_RETURN_IF(zst != Z_STREAM_END, CG_E_PNG);
    *out_len = len;
    return CG_OK;
}

cg_status cg_deflate_zlib(const cg_deflate_lib *lib, int level, int strategy, const uint8_t *in,
                          size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    CG_RETURN_IF(lib == NULL, CG_E_UNSUPPORTED);
    if (lib->kind == CG_DEFLATE_LIBDEFLATE)
        return via_libdeflate(lib, level, in, n, out, cap, out_len);
    return via_zlib(lib, level, strategy, in, n, out, cap, out_len);
}
