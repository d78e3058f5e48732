/*
 * Built instead of cg_png_deflate.c where no deflate library is loaded
 * (Windows: the library has no dlopen there, and a player's machine has no
 * standard zlib or libdeflate DLL to find). PNG encoding itself works: the
 * default, CG_PNG_DEFLATE_OWN, needs no library. Only options that ask for
 * CG_PNG_DEFLATE_LIBRARY get CG_E_UNSUPPORTED.
 */
#include "cg_png_internal.h"

/* Never allocated: every opener below fails. */
struct cg_deflate_lib {
    cg_deflate_kind kind;
};

cg_status cg_deflate_open(const char *libdeflate_soname, const char *zlib_soname,
                          cg_deflate_lib **out)
{
    (void)libdeflate_soname;
    (void)zlib_soname;
    CG_RETURN_IF(out == NULL, CG_E_INVALID_ARG);
    *out = NULL;
    return CG_E_UNSUPPORTED;
}

void cg_deflate_close(cg_deflate_lib *lib)
{
    (void)lib;
}

cg_deflate_kind cg_deflate_lib_kind(const cg_deflate_lib *lib)
{
    return lib->kind;
}

const cg_deflate_lib *cg_deflate_default(void)
{
    return NULL;
}

const cg_deflate_lib *cg_deflate_for_strategy(int strategy)
{
    (void)strategy;
    return NULL;
}

const char *cg_deflate_unavailable_reason(void)
{
    return "this build of the library loads no deflate library (CG_PNG_DEFLATE_LIBRARY: "
           "libdeflate or zlib); PNG encoding with the library's own deflate encoder "
           "(CG_PNG_DEFLATE_OWN, the default) works";
}

/* No library makes a stream here: cg_deflate_zlib refuses every call. */
size_t cg_deflate_bound(const cg_deflate_lib *lib, size_t n)
{
    (void)lib;
    (void)n;
    return 0;
}

cg_status cg_deflate_zlib(const cg_deflate_lib *lib, int level, int strategy, const uint8_t *in,
                          size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    (void)lib;
    (void)level;
    (void)strategy;
    (void)in;
    (void)n;
    (void)out;
    (void)cap;
    (void)out_len;
    return CG_E_UNSUPPORTED;
}
