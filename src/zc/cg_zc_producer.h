/*
 * cg_zc_producer.h - the protocol side of a zero-copy v2 producer, with no
 * GPU API: the descriptor's constant fields, the control block, the
 * hand-off socket and the producer's view of the leases, made together
 * and closed together. Each producer (cg_vk_ring, cg_gl_ring) owns one and
 * writes its slots with its own GPU API between cg_zc_leases_claim and
 * cg_zc_producer_publish (or cg_zc_leases_release).
 */
#ifndef CG_ZC_PRODUCER_H
#define CG_ZC_PRODUCER_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"
#include "cg_zc_leases.h"
#include "cg_zc_parts.h"
#include "cg_zc_proto.h"
#include "cg_zc_server.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_zc_producer {
    cg_zc_desc tmpl; /* the descriptor's constant fields (frame 0, slot 0) */
    cg_zc_control control;
    cg_zc_server *server;
    cg_zc_leases leases;
} cg_zc_producer;

/* What the producer's slots are. */
typedef struct cg_zc_producer_desc {
    /* format, width, height, row_pitch, slot_count, slot_size, mode, flags
     * and device_uuid; ring_id and socket_path are filled in here. */
    const cg_zc_desc *tmpl;
    const cg_oshandle *slots; /* slot_count handles of exported memory, still the caller's */
    cg_oshandle semaphore;    /* the timeline's (semaphore mode), CG_OSHANDLE_INVALID: none */
    const char *dir;          /* NULL: the protocol's rule */
    uint64_t wait_ns;         /* every slot held: poll this long (cg_zc_leases_init) */
} cg_zc_producer_desc;

/* Set p's handles to "none", so that cg_zc_producer_close of a producer
 * never opened is a no-op. */
void cg_zc_producer_init(cg_zc_producer *p);

/* A fresh ring id, the control block, the socket (its hello sends the
 * control block's handle, the slots' and the semaphore's, in that order),
 * the leases. Errors: those of cg_zc_control_create and cg_zc_server_create;
 * on error what was made is in *p for cg_zc_producer_close. */
cg_status cg_zc_producer_open(cg_zc_producer *p, const cg_zc_producer_desc *d, cg_err *err);

/* The socket first (its thread rewrites lease words when a learner leaves,
 * and must not touch them once they say CLOSED), then the control block
 * closed (learners see CLOSED) and freed. */
void cg_zc_producer_close(cg_zc_producer *p);

/* The claimed frame is written: its descriptor (192 bytes) to desc_out,
 * the slot PUBLISHED. */
void cg_zc_producer_publish(cg_zc_producer *p, uint32_t slot, uint64_t frame,
                            uint8_t desc_out[CG_ZC_DESC_SIZE]);

/* The frame of parts (cg_zc_parts.h) that parts->slot / parts->frame
 * hold is written: its descriptor with this frame's depth parameters
 * (parts' near/far/flags, on a ring whose template has a LINEAR depth
 * plane) to desc_out, the slot PUBLISHED. Returns the descriptor's length
 * (CG_ZC_DESC_SIZE or CG_ZC_DESC_V3_SIZE); desc_out holds that many bytes
 * (CG_ZC_DESC_MAX_SIZE: any). */
size_t cg_zc_producer_publish_parts(cg_zc_producer *p, const cg_zc_parts *parts,
                                    uint8_t *desc_out);

/* What a ring lends cg_zc_producer_part_begin. */
typedef struct cg_zc_part_hooks {
    cg_zc_slot_idle_fn idle; /* the claim's test of a slot (cg_zc_leases_claim) */
    /* NULL, or called just before each claim (the Vulkan ring frees what
     * earlier rings left behind). */
    void (*claiming)(void *user);
    /* NULL, or the ring's GPU step on an abandoned frame's slot before its
     * lease is abandoned (the Vulkan ring fences the parts it submitted);
     * its error is returned, after the abandon, as a failed ring's. */
    cg_status (*abandoning)(void *user, uint32_t slot);
    void *user;
} cg_zc_part_hooks;

/* The protocol's half of one part call of a frame in parts (cg_zc_parts.h),
 * the same for both rings: the call checked (cg_zc_parts_check: q is a
 * depth part's parameters, NULL: the ring's), classified, an abandoned
 * frame's slot given up (hooks->abandoning, then cg_zc_leases_abandon: a
 * skipped frame), and at the frame's first part a slot claimed
 * (hooks->claiming, then cg_zc_leases_claim with hooks->idle) and the
 * frame's depth parameters set (q's for a depth part, else the ring's).
 * CG_OK: write the part into parts->slot / parts->frame; then, when
 * cg_zc_parts_done, cg_zc_producer_publish_parts; a failed write:
 * cg_zc_parts_reset and cg_zc_leases_release. Otherwise *fatal says
 * whether the ring has failed: 0 for CG_E_INVALID_ARG (nothing changed)
 * and CG_E_RING_FULL (the part not written, err says why: the frame is
 * skipped, or the part is out of order); 1 for the claim's other errors
 * and hooks->abandoning's. */
cg_status cg_zc_producer_part_begin(cg_zc_producer *p, cg_zc_parts *parts, cg_zc_part_kind kind,
                                    uint32_t eye, const cg_zc_depth_params *q,
                                    const cg_zc_part_hooks *hooks, int *fatal, cg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_PRODUCER_H */
