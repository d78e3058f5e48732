/*
 * cg_metal_platform_apple.c - the platform table on Apple: IOSurface,
 * CoreFoundation and mach, all through their C APIs (no Objective-C).
 *
 * Compiled only when CMake targets Apple. On Linux CI it is compiled with
 * -fsyntax-only against tests/metal/apple_decls (declarations copied from
 * Apple's SDK headers), so types and signatures are checked; it has not
 * been run on a Mac by this project.
 *
 * Every native call that can fail goes through one checker (CG_MAC_CHECK /
 * CG_MAC_NONNULL) that records the expression, file, line and the native
 * code with its name (mach_error_string) in the caller's error text.
 */
#include <CoreFoundation/CoreFoundation.h>
#include <IOSurface/IOSurfaceRef.h>
#include <mach/mach.h>
#include <mach/mach_error.h>
#include <mach/mach_traps.h>
#include <stdio.h>
#include <unistd.h>

#include "cg_metal_platform.h"

/* Record a failed mach call: "expr -> 0x%x (name) at file:line". */
static void mac_fail(cg_err *err, const char *expr, kern_return_t kr,
                     const char *file, int line)
{
    const char *name = mach_error_string(kr);
    cg_fail_call(err, CG_E_PLATFORM, expr, name != NULL ? name : "?", (long long)kr, file, line);
}

static void mac_null(cg_err *err, const char *expr, const char *file, int line)
{
    cg_fail_call(err, CG_E_PLATFORM, expr, "NULL", 0, file, line);
}

/* The one checker: evaluate a kern_return_t call, record and return on
 * failure. */
#define CG_MAC_CHECK(err, expr)                                       \
    do {                                                                       \
        kern_return_t cg_kr_ = (expr);                                         \
        if (cg_kr_ != KERN_SUCCESS) {                                          \
            mac_fail((err), #expr, cg_kr_, __FILE__, __LINE__);     \
            return CG_E_PLATFORM;                                              \
        }                                                                      \
    } while (0)

/* Same for a call that reports failure by returning NULL (or 0). */
#define CG_MAC_NONNULL(err, var, expr)                                \
    do {                                                                       \
        (var) = (expr);                                                        \
        if ((var) == 0) {                                                      \
            mac_null((err), #expr, __FILE__, __LINE__);             \
            return CG_E_PLATFORM;                                              \
        }                                                                      \
    } while (0)

static cg_status apple_available(const cg_metal_platform *self, cg_err *err)
{
    (void)self;
    (void)err;
    return CG_OK;
}

static cg_status apple_align(const cg_metal_platform *self, size_t bytes_per_row, size_t *out,
                             cg_err *err)
{
    (void)self;
    size_t aligned = IOSurfaceAlignProperty(kIOSurfaceBytesPerRow, bytes_per_row);
    if (aligned == 0) {
        mac_null(err, "IOSurfaceAlignProperty(kIOSurfaceBytesPerRow, ...)", __FILE__,
                 __LINE__);
        return CG_E_PLATFORM;
    }
    *out = aligned;
    return CG_OK;
}

/* A CFNumber of a 64-bit value: sizes fit in int64 (checked by the caller
 * against CG_MAX_DIM and SIZE_MAX; size_t is 64-bit on every macOS). */
static CFNumberRef number64(int64_t v)
{
    return CFNumberCreate(NULL, kCFNumberSInt64Type, &v);
}

enum { K_PROPS = 6 };

static cg_status create_with(const cg_metal_surface_desc *d, CFNumberRef num[K_PROPS],
                             void **out, cg_err *err)
{
    const void *keys[K_PROPS] = {kIOSurfaceWidth,         kIOSurfaceHeight,
                                 kIOSurfaceBytesPerElement, kIOSurfaceBytesPerRow,
                                 kIOSurfaceAllocSize,     kIOSurfacePixelFormat};
    const void *values[K_PROPS];
    for (int i = 0; i < K_PROPS; i++) values[i] = num[i];
    CFDictionaryRef props = NULL;
    CG_MAC_NONNULL(err, props,
                   CFDictionaryCreate(NULL, keys, values, K_PROPS, &kCFTypeDictionaryKeyCallBacks,
                                      &kCFTypeDictionaryValueCallBacks));
    IOSurfaceRef surface = IOSurfaceCreate(props);
    CFRelease(props);
    if (surface == NULL) {
        return cg_fail(err, CG_E_PLATFORM,
                       "IOSurfaceCreate(%dx%d, %zu bytes per row, format 0x%08x) returned NULL "
                       "at %s:%d",
                       d->width, d->height, d->bytes_per_row, (unsigned)d->pixel_format,
                       __FILE__, __LINE__);
    }
    *out = surface;
    return CG_OK;
}

static cg_status apple_create(const cg_metal_platform *self, const cg_metal_surface_desc *d,
                              void **out, cg_err *err)
{
    (void)self;
    *out = NULL;
    CFNumberRef num[K_PROPS] = {
        number64(d->width),
        number64(d->height),
        number64((int64_t)d->bytes_per_element),
        number64((int64_t)d->bytes_per_row),
        number64((int64_t)d->alloc_size),
        number64((int64_t)d->pixel_format),
    };
    cg_status st = CG_OK;
    for (int i = 0; i < K_PROPS; i++) {
        if (num[i] == NULL) {
            mac_null(err, "CFNumberCreate(NULL, kCFNumberSInt64Type, ...)", __FILE__,
                     __LINE__);
            st = CG_E_NO_MEMORY;
        }
    }
    if (st == CG_OK) st = create_with(d, num, out, err);
    /* The dictionary retained what it needed; drop our references on every path. */
    for (int i = 0; i < K_PROPS; i++) {
        if (num[i] != NULL) CFRelease(num[i]);
    }
    return st;
}

static size_t apple_bytes_per_row(const cg_metal_platform *self, void *surface)
{
    (void)self;
    return IOSurfaceGetBytesPerRow((IOSurfaceRef)surface);
}

static void *apple_base_address(const cg_metal_platform *self, void *surface)
{
    (void)self;
    return IOSurfaceGetBaseAddress((IOSurfaceRef)surface);
}

static void apple_release(const cg_metal_platform *self, void *surface)
{
    (void)self;
    CFRelease((IOSurfaceRef)surface);
}

static cg_status apple_port_create(const cg_metal_platform *self, void *surface, uint32_t *port,
                                   cg_err *err)
{
    (void)self;
    mach_port_t p = MACH_PORT_NULL;
    CG_MAC_NONNULL(err, p, IOSurfaceCreateMachPort((IOSurfaceRef)surface));
    *port = (uint32_t)p;
    return CG_OK;
}

static cg_status insert_into(mach_port_name_t task, uint32_t port, cg_err *err)
{
    CG_MAC_CHECK(err,
                 mach_port_insert_right(task, (mach_port_name_t)port, (mach_port_t)port,
                                        MACH_MSG_TYPE_COPY_SEND));
    return CG_OK;
}

static cg_status apple_port_insert(const cg_metal_platform *self, int pid, uint32_t port,
                                   cg_err *err)
{
    (void)self;
    mach_port_name_t task = MACH_PORT_NULL;
    /* task_for_pid needs the same user and, on current macOS, an
     * entitlement or debugging rights: its failure says so by its code. */
    CG_MAC_CHECK(err, task_for_pid(mach_task_self(), pid, &task));
    cg_status st = insert_into(task, port, err);
    mach_port_deallocate(mach_task_self(), task);
    return st;
}

static void apple_port_release(const cg_metal_platform *self, uint32_t port)
{
    (void)self;
    mach_port_deallocate(mach_task_self(), (mach_port_name_t)port);
}

static int apple_self_pid(const cg_metal_platform *self)
{
    (void)self;
    return (int)getpid();
}

static const cg_metal_platform k_apple = {
    "apple-iosurface",
    apple_available,
    apple_align,
    apple_create,
    apple_bytes_per_row,
    apple_base_address,
    apple_release,
    apple_port_create,
    apple_port_insert,
    apple_port_release,
    apple_self_pid,
};

const cg_metal_platform *cg_metal_platform_native(void)
{
    return &k_apple;
}
