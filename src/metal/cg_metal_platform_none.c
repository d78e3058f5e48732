/*
 * cg_metal_platform_none.c - the platform table for every OS but Apple.
 *
 * IOSurface and mach ports exist only on macOS, so each entry refuses with
 * CG_E_UNSUPPORTED and says so; the portable layer and the JNI natives stay
 * identical on every platform (libuv's no-fsevents.c pattern).
 */
#include <stdio.h>

#include "cg_metal_platform.h"

static const char k_macos_only[] =
    "the IOSurface/mach-port zero-copy path is macOS-only; this library was built for another OS";

static cg_status refuse(cg_err *err)
{
    (void)cg_fail(err, CG_OK, "%s", k_macos_only);
    return CG_E_UNSUPPORTED;
}

static cg_status none_available(const cg_metal_platform *self, cg_err *err)
{
    (void)self;
    return refuse(err);
}

static cg_status none_align(const cg_metal_platform *self, size_t bytes_per_row, size_t *out,
                            cg_err *err)
{
    (void)self;
    (void)bytes_per_row;
    (void)out;
    return refuse(err);
}

static cg_status none_create(const cg_metal_platform *self, const cg_metal_surface_desc *desc,
                             void **out, cg_err *err)
{
    (void)self;
    (void)desc;
    if (out != NULL) *out = NULL;
    return refuse(err);
}

static size_t none_bytes_per_row(const cg_metal_platform *self, void *surface)
{
    (void)self;
    (void)surface;
    return 0;
}

static void *none_base_address(const cg_metal_platform *self, void *surface)
{
    (void)self;
    (void)surface;
    return NULL;
}

static void none_release(const cg_metal_platform *self, void *surface)
{
    (void)self;
    (void)surface;
}

static cg_status none_port_create(const cg_metal_platform *self, void *surface, uint32_t *port,
                                  cg_err *err)
{
    (void)self;
    (void)surface;
    if (port != NULL) *port = 0;
    return refuse(err);
}

static cg_status none_port_insert(const cg_metal_platform *self, int pid, uint32_t port,
                                  cg_err *err)
{
    (void)self;
    (void)pid;
    (void)port;
    return refuse(err);
}

static void none_port_release(const cg_metal_platform *self, uint32_t port)
{
    (void)self;
    (void)port;
}

static int none_self_pid(const cg_metal_platform *self)
{
    (void)self;
    return 0; /* never a valid pid, so no export is ever taken as "ours" */
}

static const cg_metal_platform k_none = {
    "none",
    none_available,
    none_align,
    none_create,
    none_bytes_per_row,
    none_base_address,
    none_release,
    none_port_create,
    none_port_insert,
    none_port_release,
    none_self_pid,
};

const cg_metal_platform *cg_metal_platform_native(void)
{
    return &k_none;
}
