/* fake_platform.c - see fake_platform.h. */
#include "fake_platform.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAGIC 0x10face5u
/* Surfaces above this size get no backing memory (sizes are still checked). */
#define FAKE_MAX_BACKING ((size_t)64 << 20)

static fake_platform *self_of(const cg_metal_platform *p)
{
    /* base is the first member, so the table pointer is the fake's. */
    return (fake_platform *)(uintptr_t)p;
}

static cg_status injected(cg_err *err, cg_status st)
{
    (void)cg_fail(err, CG_OK, "%s", FAKE_ERR_TEXT);
    return st;
}

static cg_status f_available(const cg_metal_platform *p, cg_err *err)
{
    fake_platform *f = self_of(p);
    f->available_calls++;
    if (f->fail == FAKE_FAIL_AVAILABLE) return injected(err, CG_E_UNSUPPORTED);
    return CG_OK;
}

static cg_status f_align(const cg_metal_platform *p, size_t bpr, size_t *out, cg_err *err)
{
    fake_platform *f = self_of(p);
    f->align_calls++;
    switch (f->fail) {
    case FAKE_FAIL_ALIGN: return injected(err, CG_E_PLATFORM);
    case FAKE_FAIL_ALIGN_SHRINK: *out = bpr - 4; return CG_OK;
    case FAKE_FAIL_ALIGN_HUGE: *out = SIZE_MAX; return CG_OK;
    default: break;
    }
    *out = (bpr + f->align - 1) / f->align * f->align;
    return CG_OK;
}

static cg_status f_create(const cg_metal_platform *p, const cg_metal_surface_desc *d, void **out,
                          cg_err *err)
{
    fake_platform *f = self_of(p);
    f->create_calls++;
    f->last_desc = *d;
    *out = NULL;
    if (f->fail == FAKE_FAIL_CREATE) return injected(err, CG_E_PLATFORM);
    if (f->fail == FAKE_FAIL_CREATE_NULL) return CG_OK;
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) {
        if (f->surfaces[i] != NULL) continue;
        fake_surface *s = calloc(1, sizeof *s);
        if (s == NULL) return CG_E_NO_MEMORY;
        s->magic = FAKE_MAGIC;
        s->desc = *d;
        s->desc.bytes_per_row += f->extra_row_bytes;
        if (d->alloc_size <= FAKE_MAX_BACKING) {
            s->data = calloc(1, s->desc.bytes_per_row * (size_t)d->height);
            if (s->data == NULL) {
                free(s);
                return CG_E_NO_MEMORY;
            }
        }
        f->surfaces[i] = s;
        *out = s;
        return CG_OK;
    }
    return injected(err, CG_E_PLATFORM);
}

static int surface_index(const fake_platform *f, const void *s)
{
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) {
        if (s != NULL && f->surfaces[i] == s) return i;
    }
    return -1;
}

static size_t f_bytes_per_row(const cg_metal_platform *p, void *surface)
{
    fake_platform *f = self_of(p);
    int i = surface_index(f, surface);
    if (i < 0) return 0;
    const fake_surface *s = f->surfaces[i];
    if (f->fail == FAKE_FAIL_SHORT_ROW) return (size_t)s->desc.width * 4 - 4;
    return s->desc.bytes_per_row;
}

static void *f_base_address(const cg_metal_platform *p, void *surface)
{
    fake_platform *f = self_of(p);
    int i = surface_index(f, surface);
    return i < 0 ? NULL : f->surfaces[i]->data;
}

static void f_release(const cg_metal_platform *p, void *surface)
{
    fake_platform *f = self_of(p);
    int i = surface_index(f, surface);
    if (i < 0) {
        f->bad_releases++;
        return;
    }
    f->surface_releases++;
    free(f->surfaces[i]->data);
    free(f->surfaces[i]);
    f->surfaces[i] = NULL;
}

static cg_status f_port_create(const cg_metal_platform *p, void *surface, uint32_t *port,
                               cg_err *err)
{
    fake_platform *f = self_of(p);
    f->port_creates++;
    *port = 0;
    if (surface_index(f, surface) < 0) return injected(err, CG_E_INVALID_ARG);
    if (f->fail == FAKE_FAIL_PORT_CREATE) return injected(err, CG_E_PLATFORM);
    if (f->fail == FAKE_FAIL_PORT_NULL) return CG_OK;
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) {
        if (f->ports[i] == 0) {
            f->ports[i] = f->next_port++;
            *port = f->ports[i];
            return CG_OK;
        }
    }
    return injected(err, CG_E_PLATFORM);
}

static int port_index(const fake_platform *f, uint32_t port)
{
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) {
        if (port != 0 && f->ports[i] == port) return i;
    }
    return -1;
}

static cg_status f_port_insert(const cg_metal_platform *p, int pid, uint32_t port, cg_err *err)
{
    fake_platform *f = self_of(p);
    f->port_inserts++;
    f->last_insert_pid = pid;
    f->last_insert_port = port;
    if (port_index(f, port) < 0) return injected(err, CG_E_INVALID_ARG);
    if (f->fail == FAKE_FAIL_PORT_INSERT) return injected(err, CG_E_PLATFORM);
    return CG_OK;
}

static void f_port_release(const cg_metal_platform *p, uint32_t port)
{
    fake_platform *f = self_of(p);
    int i = port_index(f, port);
    if (i < 0) {
        f->bad_releases++;
        return;
    }
    f->port_releases++;
    f->ports[i] = 0;
}

static int f_self_pid(const cg_metal_platform *p)
{
    return self_of(p)->pid;
}

void fake_init(fake_platform *f, size_t align, int pid)
{
    memset(f, 0, sizeof *f);
    f->base.name = "fake";
    f->base.available = f_available;
    f->base.align_bytes_per_row = f_align;
    f->base.surface_create = f_create;
    f->base.surface_bytes_per_row = f_bytes_per_row;
    f->base.surface_base_address = f_base_address;
    f->base.surface_release = f_release;
    f->base.port_create = f_port_create;
    f->base.port_insert = f_port_insert;
    f->base.port_release = f_port_release;
    f->base.self_pid = f_self_pid;
    f->align = align;
    f->pid = pid;
    f->next_port = 0x1103;
}

void fake_cleanup(fake_platform *f)
{
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) {
        if (f->surfaces[i] != NULL) {
            free(f->surfaces[i]->data);
            free(f->surfaces[i]);
            f->surfaces[i] = NULL;
        }
    }
}

int fake_live_surfaces(const fake_platform *f)
{
    int n = 0;
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) n += f->surfaces[i] != NULL;
    return n;
}

int fake_live_ports(const fake_platform *f)
{
    int n = 0;
    for (int i = 0; i < FAKE_MAX_OBJECTS; i++) n += f->ports[i] != 0;
    return n;
}

int fake_total_calls(const fake_platform *f)
{
    return f->available_calls + f->align_calls + f->create_calls + f->surface_releases +
           f->port_creates + f->port_inserts + f->port_releases + f->bad_releases;
}
