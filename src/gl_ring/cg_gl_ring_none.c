/*
 * cg_gl_ring_none.c - the GL producer of zero-copy v2 (cg_gl_ring.h) in a
 * build without it (no Vulkan ring: not Linux, Windows included, or no
 * Vulkan headers):
 * create refuses with CG_E_UNSUPPORTED saying what to use instead. No ring
 * is ever made, so the calls on one are never reached; they refuse too.
 */
#include <string.h>

#include "cg_gl_ring.h"

static const char k_unsupported[] =
    "zero-copy v2 for GL needs Linux, GL capture and a build with the Vulkan headers; "
    "this build lacks them: use the GL readback or the v1 zero-copy path";

cg_status cg_gl_ring_create(const cg_gl_ring_desc *d, cg_gl_ring **out, cg_err *err)
{
    (void)d;
    if (out) *out = NULL;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_unsupported);
}

void cg_gl_ring_destroy(cg_gl_ring *r)
{
    (void)r;
}

/* NULL, the only ring there is here: OK, as everywhere. */
cg_status cg_gl_ring_destroy_current(cg_gl_ring *r, cg_err *err)
{
    (void)r, (void)err;
    return CG_OK;
}

cg_status cg_gl_ring_publish(cg_gl_ring *r, unsigned texture, uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)texture, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_ring_publish_cursor(cg_gl_ring *r, unsigned texture, const cg_cursor *cursor,
                                    uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    (void)r, (void)texture, (void)cursor, (void)desc_out;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_ring_publish_depth(cg_gl_ring *r, unsigned depth_texture, uint32_t eye,
                                   const cg_zc_depth_params *params,
                                   uint8_t desc_out[CG_ZC_DESC_MAX_SIZE], size_t *desc_len)
{
    (void)r, (void)depth_texture, (void)eye, (void)params, (void)desc_out;
    if (desc_len) *desc_len = 0;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_ring_publish_eye(cg_gl_ring *r, unsigned texture, uint32_t eye,
                                 const cg_cursor *cursor, uint8_t desc_out[CG_ZC_DESC_MAX_SIZE],
                                 size_t *desc_len)
{
    (void)r, (void)texture, (void)eye, (void)cursor, (void)desc_out;
    if (desc_len) *desc_len = 0;
    return CG_E_UNSUPPORTED;
}

cg_status cg_gl_ring_template(const cg_gl_ring *r, uint8_t *out, size_t cap)
{
    (void)r, (void)out, (void)cap;
    return CG_E_UNSUPPORTED;
}

const char *cg_gl_ring_last_error(const cg_gl_ring *r)
{
    (void)r;
    return "";
}

const cg_err *cg_gl_ring_error(const cg_gl_ring *r)
{
    (void)r;
    return NULL;
}

void cg_gl_ring_get_info(const cg_gl_ring *r, cg_gl_ring_info *info)
{
    (void)r;
    if (info) memset(info, 0, sizeof *info);
}

void cg_gl_ring_get_ring_info(const cg_gl_ring *r, cg_vk_ring_info *info)
{
    (void)r;
    if (info) memset(info, 0, sizeof *info);
}

void cg_gl_ring_get_counters(const cg_gl_ring *r, uint64_t out[CG_ZC_COUNTERS])
{
    (void)r, (void)out;
}

cg_status cg_gl_ring_match_device(const uint8_t gl_uuid[CG_DEVICE_UUID_SIZE],
                                  const uint8_t (*vk_uuids)[CG_DEVICE_UUID_SIZE],
                                  const char *const *names, uint32_t n, uint32_t *index,
                                  cg_err *err)
{
    (void)gl_uuid, (void)vk_uuids, (void)names, (void)n, (void)index;
    return cg_fail(err, CG_E_UNSUPPORTED, "%s", k_unsupported);
}
