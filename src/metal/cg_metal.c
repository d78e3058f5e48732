/*
 * cg_metal.c - portable lifecycle and size logic of the IOSurface path.
 *
 * Only this file decides sizes, ownership and release order; the platform
 * table does the calls. Unit-tested on every OS with a fake table.
 */
#include "cg_metal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct cg_metal_surface {
    const cg_metal_platform *pf;
    void *handle;           /* one owned platform reference */
    int width, height;
    size_t bytes_per_row;   /* what the platform really gave */
    size_t alloc_size;
    uint32_t pixel_format;
    uint32_t self_port;     /* send right kept for our own task; 0 = none */
    cg_err err;
};

/* Describe a failure; the status travels separately. */
#define set_err(err, ...) ((void)cg_fail((err), CG_OK, __VA_ARGS__))

/* A status text never left empty: the platform may fail without words. */
static void ensure_err(cg_err *err, cg_status st, const char *what)
{
    if (err == NULL || err->text[0] != '\0') return;
    set_err(err, "%s: %s", what, cg_strerror(st));
}

static cg_status check_dims(int w, int h, cg_err *err)
{
    cg_status st = cg_check_dims(w, h);
    if (st != CG_OK) {
        set_err(err, "surface size %dx%d: %s (1..%d per side)", w, h, cg_strerror(st),
                CG_MAX_DIM);
    }
    return st;
}

static int platform_complete(const cg_metal_platform *pf)
{
    return pf != NULL && pf->available != NULL && pf->align_bytes_per_row != NULL &&
           pf->surface_create != NULL && pf->surface_bytes_per_row != NULL &&
           pf->surface_base_address != NULL && pf->surface_release != NULL &&
           pf->port_create != NULL && pf->port_insert != NULL && pf->port_release != NULL &&
           pf->self_pid != NULL;
}

cg_status cg_metal_surface_layout(const cg_metal_platform *pf, int w, int h,
                                  size_t *bytes_per_row, size_t *alloc_size,
                                  cg_err *err)
{
    if (!platform_complete(pf) || bytes_per_row == NULL || alloc_size == NULL) {
        set_err(err, "cg_metal_surface_layout: NULL platform or output");
        return CG_E_INVALID_ARG;
    }
    cg_status st = check_dims(w, h, err);
    if (st != CG_OK) return st;
    size_t min_row = 0;
    st = cg_mul_size((size_t)w, CG_METAL_BYTES_PER_PIXEL, &min_row);
    if (st != CG_OK) {
        set_err(err, "row of %d pixels overflows", w);
        return st;
    }
    size_t row = 0;
    st = pf->align_bytes_per_row(pf, min_row, &row, err);
    if (st != CG_OK) {
        ensure_err(err, st, "aligning bytes per row");
        return st;
    }
    if (row < min_row) {
        /* An alignment that shrinks the pitch would make rows overlap. */
        set_err(err, "platform aligned bytes per row %zu down to %zu", min_row, row);
        return CG_E_PLATFORM;
    }
    size_t total = 0;
    st = cg_mul_size(row, (size_t)h, &total);
    if (st != CG_OK) {
        set_err(err, "%zu bytes per row x %d rows overflows", row, h);
        return st;
    }
    *bytes_per_row = row;
    *alloc_size = total;
    return CG_OK;
}

cg_status cg_metal_surface_create(const cg_metal_platform *pf, int w, int h,
                                  uint32_t pixel_format, cg_metal_surface **out,
                                  cg_err *err)
{
    cg_err_clear(err);
    if (out == NULL || !platform_complete(pf)) {
        set_err(err, "cg_metal_surface_create: NULL or incomplete argument");
        return CG_E_INVALID_ARG;
    }
    *out = NULL;
    if (pixel_format != CG_METAL_FORMAT_RGBA && pixel_format != CG_METAL_FORMAT_BGRA) {
        set_err(err, "pixel format 0x%08x is neither 'RGBA' nor 'BGRA'",
                (unsigned)pixel_format);
        return CG_E_INVALID_ARG;
    }
    cg_status st = check_dims(w, h, err);
    if (st != CG_OK) return st;
    st = pf->available(pf, err);
    if (st != CG_OK) {
        ensure_err(err, st, "IOSurface");
        return st;
    }
    cg_metal_surface_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.width = w;
    desc.height = h;
    desc.bytes_per_element = CG_METAL_BYTES_PER_PIXEL;
    desc.pixel_format = pixel_format;
    CG_TRY(cg_metal_surface_layout(pf, w, h, &desc.bytes_per_row, &desc.alloc_size, err));

    cg_metal_surface *s = calloc(1, sizeof *s);
    if (s == NULL) {
        set_err(err, "allocating the surface context: %s", cg_strerror(CG_E_NO_MEMORY));
        return CG_E_NO_MEMORY;
    }
    void *handle = NULL;
    st = pf->surface_create(pf, &desc, &handle, err);
    if (st == CG_OK && handle == NULL) {
        set_err(err, "surface_create reported success without a surface");
        st = CG_E_PLATFORM;
    }
    if (st != CG_OK) {
        ensure_err(err, st, "IOSurfaceCreate");
        free(s);
        return st;
    }
    /* From here `handle` is owned; every failure below releases it once. */
    size_t real_row = pf->surface_bytes_per_row(pf, handle);
    /* w * 4 cannot overflow: the layout above computed it already. */
    const size_t min_row = (size_t)w * CG_METAL_BYTES_PER_PIXEL;
    if (real_row < min_row) {
        set_err(err,
                "surface came back with %zu bytes per row, below the %zu a row of %d pixels needs",
                real_row, min_row, w);
        pf->surface_release(pf, handle);
        free(s);
        return CG_E_PLATFORM;
    }
    size_t real_alloc = 0;
    st = cg_mul_size(real_row, (size_t)h, &real_alloc);
    if (st != CG_OK) {
        set_err(err, "surface pitch %zu x %d rows overflows", real_row, h);
        pf->surface_release(pf, handle);
        free(s);
        return st;
    }
    s->pf = pf;
    s->handle = handle;
    s->width = w;
    s->height = h;
    s->bytes_per_row = real_row;
    s->alloc_size = real_alloc;
    s->pixel_format = pixel_format;
    *out = s;
    return CG_OK;
}

void cg_metal_surface_destroy(cg_metal_surface *s)
{
    if (s == NULL) return;
    /* Ports first: a live port keeps the surface's global use count up. */
    if (s->self_port != 0) s->pf->port_release(s->pf, s->self_port);
    if (s->handle != NULL) s->pf->surface_release(s->pf, s->handle);
    free(s);
}

cg_status cg_metal_surface_export_port(cg_metal_surface *s, int pid, uint32_t *port)
{
    if (s == NULL || port == NULL) return CG_E_INVALID_ARG;
    cg_err_clear(&s->err);
    if (pid <= 0) {
        set_err(&s->err, "process id %d is not a valid pid", pid);
        return CG_E_INVALID_ARG;
    }
    const cg_metal_platform *pf = s->pf;
    const int self = pf->self_pid(pf);
    if (pid == self && s->self_port != 0) {
        *port = s->self_port;
        return CG_OK;
    }
    uint32_t p = 0;
    cg_status st = pf->port_create(pf, s->handle, &p, &s->err);
    if (st == CG_OK && p == 0) {
        set_err(&s->err, "IOSurfaceCreateMachPort returned MACH_PORT_NULL");
        st = CG_E_PLATFORM;
    }
    if (st != CG_OK) {
        ensure_err(&s->err, st, "IOSurfaceCreateMachPort");
        return st;
    }
    if (pid == self) {
        /* Same task: the name is already valid here; keep it until destroy. */
        s->self_port = p;
        *port = p;
        return CG_OK;
    }
    st = pf->port_insert(pf, pid, p, &s->err);
    /* Ours is a copy either way: the other task holds its own right now,
     * or the insert failed and nobody needs ours. */
    pf->port_release(pf, p);
    if (st != CG_OK) {
        ensure_err(&s->err, st, "mach_port_insert_right");
        return st;
    }
    *port = p;
    return CG_OK;
}

void *cg_metal_surface_handle(const cg_metal_surface *s) { return s ? s->handle : NULL; }
int cg_metal_surface_width(const cg_metal_surface *s) { return s ? s->width : 0; }
int cg_metal_surface_height(const cg_metal_surface *s) { return s ? s->height : 0; }
size_t cg_metal_surface_bytes_per_row(const cg_metal_surface *s) { return s ? s->bytes_per_row : 0; }
size_t cg_metal_surface_alloc_size(const cg_metal_surface *s) { return s ? s->alloc_size : 0; }
uint32_t cg_metal_surface_pixel_format(const cg_metal_surface *s) { return s ? s->pixel_format : 0; }

void *cg_metal_surface_base_address(const cg_metal_surface *s)
{
    return s ? s->pf->surface_base_address(s->pf, s->handle) : NULL;
}

const char *cg_metal_surface_last_error(const cg_metal_surface *s)
{
    return s ? s->err.text : "";
}

const cg_err *cg_metal_surface_error(const cg_metal_surface *s)
{
    return s ? &s->err : NULL;
}

void cg_metal_port_bytes(uint32_t port, uint8_t out[CG_METAL_PORT_BYTES])
{
    for (int i = 0; i < CG_METAL_PORT_BYTES; i++) out[i] = (uint8_t)(port >> (8 * i));
}

/* ---- registry ------------------------------------------------------------ */

uint64_t cg_metal_surface_key(const cg_metal_surface *s)
{
    return s ? (uint64_t)(uintptr_t)s->handle : 0;
}

static int registry_index(const cg_metal_registry *r, uint64_t key)
{
    if (key == 0) return -1;
    for (int i = 0; i < CG_METAL_MAX_SURFACES; i++) {
        if (r->slots[i] != NULL && cg_metal_surface_key(r->slots[i]) == key) return i;
    }
    return -1;
}

cg_status cg_metal_registry_add(cg_metal_registry *r, cg_metal_surface *s)
{
    if (r == NULL || s == NULL || s->handle == NULL) return CG_E_INVALID_ARG;
    if (registry_index(r, cg_metal_surface_key(s)) >= 0) return CG_E_INVALID_ARG;
    for (int i = 0; i < CG_METAL_MAX_SURFACES; i++) {
        if (r->slots[i] == NULL) {
            r->slots[i] = s;
            return CG_OK;
        }
    }
    return CG_E_BAD_STATE;
}

cg_metal_surface *cg_metal_registry_find(const cg_metal_registry *r, uint64_t key)
{
    if (r == NULL) return NULL;
    int i = registry_index(r, key);
    return i >= 0 ? r->slots[i] : NULL;
}

cg_status cg_metal_registry_destroy(cg_metal_registry *r, uint64_t key)
{
    if (r == NULL) return CG_E_INVALID_ARG;
    int i = registry_index(r, key);
    if (i < 0) return CG_E_NOT_INITIALIZED;
    cg_metal_surface *s = r->slots[i];
    r->slots[i] = NULL;
    cg_metal_surface_destroy(s);
    return CG_OK;
}

void cg_metal_registry_clear(cg_metal_registry *r)
{
    if (r == NULL) return;
    for (int i = 0; i < CG_METAL_MAX_SURFACES; i++) {
        cg_metal_surface *s = r->slots[i];
        r->slots[i] = NULL;
        cg_metal_surface_destroy(s);
    }
}

int cg_metal_registry_count(const cg_metal_registry *r)
{
    int n = 0;
    if (r == NULL) return 0;
    for (int i = 0; i < CG_METAL_MAX_SURFACES; i++) n += r->slots[i] != NULL;
    return n;
}
