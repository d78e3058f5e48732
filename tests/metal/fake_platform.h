/*
 * fake_platform.h - a cg_metal_platform for the Linux unit tests: counts
 * every create/release of surfaces and ports, tracks which are alive so a
 * double or foreign release is caught, and fails on demand at each step.
 */
#ifndef CG_FAKE_PLATFORM_H
#define CG_FAKE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "cg_metal_platform.h"

#define FAKE_MAX_OBJECTS 64

/* Where to fail (one at a time). */
typedef enum fake_fail {
    FAKE_FAIL_NONE = 0,
    FAKE_FAIL_AVAILABLE,     /* available() -> CG_E_UNSUPPORTED */
    FAKE_FAIL_ALIGN,         /* align_bytes_per_row() -> CG_E_PLATFORM */
    FAKE_FAIL_ALIGN_SHRINK,  /* align returns 4 bytes less than asked */
    FAKE_FAIL_ALIGN_HUGE,    /* align returns SIZE_MAX */
    FAKE_FAIL_CREATE,        /* surface_create() -> CG_E_PLATFORM */
    FAKE_FAIL_CREATE_NULL,   /* surface_create() -> CG_OK with a NULL surface */
    FAKE_FAIL_SHORT_ROW,     /* surface_bytes_per_row() = width * 4 - 4 */
    FAKE_FAIL_PORT_CREATE,   /* port_create() -> CG_E_PLATFORM */
    FAKE_FAIL_PORT_NULL,     /* port_create() -> CG_OK with port 0 */
    FAKE_FAIL_PORT_INSERT    /* port_insert() -> CG_E_PLATFORM */
} fake_fail;

typedef struct fake_surface {
    uint32_t magic;
    cg_metal_surface_desc desc;
    uint8_t *data; /* alloc_size bytes when small enough, else NULL */
} fake_surface;

typedef struct fake_platform {
    cg_metal_platform base; /* first: the library sees only this */
    fake_fail fail;
    size_t align;           /* bytes-per-row alignment, e.g. 64 */
    size_t extra_row_bytes; /* added by the "platform" on top of the request */
    int pid;                /* what self_pid returns */

    /* counters */
    int available_calls, align_calls, create_calls, surface_releases;
    int port_creates, port_inserts, port_releases;
    int bad_releases;       /* release of something not alive: must stay 0 */
    int last_insert_pid;
    uint32_t last_insert_port;
    cg_metal_surface_desc last_desc;

    /* liveness */
    fake_surface *surfaces[FAKE_MAX_OBJECTS];
    uint32_t ports[FAKE_MAX_OBJECTS]; /* 0 = free slot */
    uint32_t next_port;
} fake_platform;

/* Reset to a working platform with the given alignment and pid. */
void fake_init(fake_platform *f, size_t align, int pid);

/* Free whatever the code under test leaked (a test checks the counters
 * before calling this). */
void fake_cleanup(fake_platform *f);

int fake_live_surfaces(const fake_platform *f);
int fake_live_ports(const fake_platform *f);
/* Total platform calls of any kind except self_pid. */
int fake_total_calls(const fake_platform *f);

/* The text every injected failure writes. */
#define FAKE_ERR_TEXT "fake platform: injected failure"

#endif
