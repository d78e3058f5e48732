/*
 * cg_zc_producer.c - a producer's control block, socket and leases
 * (cg_zc_producer.h).
 */
#include "cg_zc_producer.h"

#include <stdio.h>
#include <string.h>

#include "cg_zc_transport.h" /* cg_zc_new_ring_id */

void cg_zc_producer_init(cg_zc_producer *p)
{
    memset(p, 0, sizeof *p);
    p->control.handle = CG_OSHANDLE_INVALID;
}

cg_status cg_zc_producer_open(cg_zc_producer *p, const cg_zc_producer_desc *d, cg_err *err)
{
    CG_RETURN_IF(!p || !d || !d->tmpl || !d->slots, CG_E_INVALID_ARG);
    cg_zc_desc *t = &p->tmpl;
    *t = *d->tmpl;
    t->ring_id = cg_zc_new_ring_id();
    CG_TRY(cg_zc_control_create(t->slot_count, t->ring_id, &p->control, err));

    cg_oshandle h[CG_ZC_MAX_HANDLES];
    uint32_t n = 0;
    h[n++] = p->control.handle;
    for (uint32_t i = 0; i < t->slot_count; i++) h[n++] = d->slots[i];
    if (cg_oshandle_valid(d->semaphore)) h[n++] = d->semaphore;
    cg_zc_server_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.handles = h;
    sd.handle_count = n;
    sd.hello.ring_id = t->ring_id;
    sd.hello.slot_count = t->slot_count;
    sd.hello.slot_size = t->slot_size;
    sd.hello.mode = t->mode;
    sd.hello.control_size = CG_ZC_CONTROL_SIZE;
    sd.control = &p->control;
    sd.dir = d->dir;
    CG_TRY(cg_zc_server_create(&sd, &p->server, err));
    snprintf(t->socket_path, sizeof t->socket_path, "%s", cg_zc_server_path(p->server));
    cg_zc_leases_init(&p->leases, &p->control, p->server, t->slot_count, d->wait_ns);
    return CG_OK;
}

void cg_zc_producer_close(cg_zc_producer *p)
{
    if (!p) return;
    cg_zc_server_destroy(p->server);
    p->server = NULL;
    cg_zc_control_close(&p->control);
    cg_zc_control_free(&p->control);
}

size_t cg_zc_producer_publish_parts(cg_zc_producer *p, const cg_zc_parts *parts,
                                    uint8_t *desc_out)
{
    cg_zc_desc d = p->tmpl;
    d.slot = parts->slot;
    d.frame = parts->frame;
    if (d.depth_encoding == CG_ZC_DEPTH_LINEAR) {
        d.near_plane = parts->near_plane;
        d.far_plane = parts->far_plane;
        d.depth_flags = parts->depth_flags;
    }
    /* Writes only the descriptor's length (192 for versions 1 and 2). */
    (void)cg_zc_desc_encode(&d, desc_out, CG_ZC_DESC_MAX_SIZE);
    cg_zc_leases_publish(&p->leases, parts->slot, parts->frame);
    return cg_zc_desc_length(desc_out);
}

void cg_zc_producer_publish(cg_zc_producer *p, uint32_t slot, uint64_t frame,
                            uint8_t desc_out[CG_ZC_DESC_SIZE])
{
    cg_zc_desc d = p->tmpl;
    d.slot = slot;
    d.frame = frame;
    (void)cg_zc_desc_encode(&d, desc_out, CG_ZC_DESC_SIZE);
    cg_zc_leases_publish(&p->leases, slot, frame);
}

static cg_status claim_part(cg_zc_producer *p, cg_zc_parts *parts, cg_zc_part_kind kind,
                            const cg_zc_depth_params *q, const cg_zc_part_hooks *h, int *fatal,
                            cg_err *err)
{
    uint32_t slot;
    uint64_t frame;
    if (h->claiming) h->claiming(h->user);
    cg_status st = cg_zc_leases_claim(&p->leases, h->idle, h->user, &slot, &frame, err);
    if (st == CG_E_RING_FULL) cg_zc_parts_full(parts);
    if (st != CG_OK && st != CG_E_RING_FULL) {
        *fatal = 1;
        (void)cg_zc_parts_reset(parts);
    }
    CG_TRY(st);
    cg_zc_parts_claim(parts, slot, frame);
    /* The frame's depth parameters: its first depth part's, else the ring's. */
    if (kind != CG_ZC_PART_DEPTH || !q) q = &parts->ring;
    parts->near_plane = q->near_plane;
    parts->far_plane = q->far_plane;
    parts->depth_flags = q->z_zero_to_one ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u;
    return CG_OK;
}

cg_status cg_zc_producer_part_begin(cg_zc_producer *p, cg_zc_parts *parts, cg_zc_part_kind kind,
                                    uint32_t eye, const cg_zc_depth_params *q,
                                    const cg_zc_part_hooks *hooks, int *fatal, cg_err *err)
{
    CG_RETURN_IF(!p || !parts || !hooks || !fatal, CG_E_INVALID_ARG);
    *fatal = 0;
    CG_TRY(cg_zc_parts_check(parts, kind, eye, q, err));
    cg_zc_part_action action;
    int abandoned = 0;
    CG_TRY(cg_zc_parts_classify(parts, kind, eye, &action, &abandoned, err));
    if (abandoned) { /* never published half-written: no learner waits for it */
        cg_status st = hooks->abandoning ? hooks->abandoning(hooks->user, parts->slot) : CG_OK;
        cg_zc_leases_abandon(&p->leases, parts->slot, parts->frame);
        if (st != CG_OK) {
            *fatal = 1;
            return st;
        }
    }
    if (action == CG_ZC_PART_SKIP)
        return cg_fail(err, CG_E_RING_FULL, "%s(%u) skipped: %s",
                       kind == CG_ZC_PART_DEPTH ? "depth" : "colour", eye,
                       parts->skipping ? "its frame found every slot held"
                                       : "out of order (the frame's parts go depth(0), "
                                         "colour(0), depth(1), colour(1), those the ring "
                                         "has); the open frame, if any, is given up");
    if (action == CG_ZC_PART_START) return claim_part(p, parts, kind, q, hooks, fatal, err);
    return CG_OK;
}
