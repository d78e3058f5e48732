/*
 * cg_zc_leases.h - the producer's side of the lease words of zero-copy v2
 * (docs/zero-copy-v2/protocol.md, "Leases"), with no GPU API: which slot the next
 * frame goes to, and what the producer writes to the control block.
 *
 * The producer keeps its own view of each slot (what it last wrote, and
 * which it holds: WRITING). A learner may only move PUBLISHED(F) ->
 * ACTIVE(F) -> RELEASED(F); any other word found in the control block
 * (WRITING, CLOSED, a state out of the table, another frame) is put back
 * to the producer's view at the next claim and never holds a slot, and
 * after every learner connect and disconnect (the server's epoch) every
 * slot the producer does not hold is put back so.
 *
 * A producer (cg_vk_ring, cg_gl_ring: inside its cg_zc_producer) claims a slot, writes
 * the frame with its GPU API, then publishes it, or gives it back with
 * cg_zc_leases_release. The context lives inside the producer's object;
 * one thread calls it (the producer's frame thread).
 */
#ifndef CG_ZC_LEASES_H
#define CG_ZC_LEASES_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"
#include "cg_zc_proto.h"
#include "cg_zc_server.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_zc_leases {
    cg_zc_control *control; /* the producer's control block (not owned) */
    cg_zc_server *server;   /* its hand-off socket, for the epoch (not owned) */
    uint32_t slots;
    uint64_t wait_ns; /* when every slot is held: poll this long, then CG_E_RING_FULL */
    uint64_t own[CG_ZC_MAX_SLOTS]; /* the word the producer last wrote to each slot */
    uint32_t held;                 /* bit i: the producer holds slot i (WRITING) */
    uint32_t seen_epoch;           /* the server's connect/disconnect count last seen */
    uint64_t frame;                /* last frame number published */
    uint32_t next;                 /* where the slot search starts */
    uint64_t count[CG_ZC_COUNTERS]; /* published, skipped, wait_ns (the rest: the server's) */
} cg_zc_leases;

/* May the producer reuse slot i now? (its GPU's last work on it is done:
 * a fence, never waited for here). *idle = 0: not yet. A status other than
 * CG_OK ends the claim with it. */
typedef cg_status (*cg_zc_slot_idle_fn)(void *user, uint32_t slot, int *idle);

/* A fresh view: every slot EMPTY and not held, no frame published yet
 * (what cg_zc_control_create wrote). control and server must outlive it. */
void cg_zc_leases_init(cg_zc_leases *l, cg_zc_control *control, cg_zc_server *server,
                       uint32_t slots, uint64_t wait_ns);

/* Claim a slot for the next frame: EMPTY/RELEASED first, else the oldest
 * PUBLISHED; never ACTIVE (leased) or WRITING, never a slot idle() says is
 * busy. Moves it to WRITING and returns it with the frame number (last
 * published + 1). Polls for at most wait_ns when none is free, then
 * CG_E_RING_FULL (err says so; nothing changed). CG_E_OVERFLOW when frame
 * numbers are exhausted; idle()'s own errors as they come. */
cg_status cg_zc_leases_claim(cg_zc_leases *l, cg_zc_slot_idle_fn idle, void *user,
                             uint32_t *slot, uint64_t *frame, cg_err *err);

/* The producer holds slot for frame (claimed, neither published nor
 * released): its own view, never the shared word. */
int cg_zc_leases_claimed(const cg_zc_leases *l, uint32_t slot, uint64_t frame);

/* The claimed frame is written: PUBLISHED, and it is the last frame. */
void cg_zc_leases_publish(cg_zc_leases *l, uint32_t slot, uint64_t frame);

/* The producer's counters (CG_ZC_COUNT_*): published, skipped and wait_ns
 * kept here, connections and reclaimed from the server's stats. Written to
 * the control block (cg_zc_control_put_counters) at every publish and skip. */
void cg_zc_leases_counters(const cg_zc_leases *l, uint64_t out[CG_ZC_COUNTERS]);

/* The claimed frame is given up (its write failed or was abandoned):
 * RELEASED, so no learner waits for it; its number is used again. */
void cg_zc_leases_release(cg_zc_leases *l, uint32_t slot, uint64_t frame);

/* The same for a frame of parts that will never be complete (a part came
 * out of order, cg_zc_parts.h): released, and counted as skipped. */
void cg_zc_leases_abandon(cg_zc_leases *l, uint32_t slot, uint64_t frame);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_LEASES_H */
