/*
 * cg_zc_leases.c - the producer's view of the lease words (cg_zc_leases.h).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "cg_zc_leases.h"

#include <string.h>
#include <time.h>

void cg_zc_leases_init(cg_zc_leases *l, cg_zc_control *control, cg_zc_server *server,
                       uint32_t slots, uint64_t wait_ns)
{
    memset(l, 0, sizeof *l);
    l->control = control;
    l->server = server;
    l->slots = slots;
    l->wait_ns = wait_ns;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the producer may do with slot i, from the shared word w and its own
 * view. A word the protocol does not let a learner write there (any state
 * but ACTIVE/RELEASED of the frame the producer published, a state out of
 * the table, CLOSED, another frame) is put back to the producer's view:
 * nothing a learner stores can hold a slot except a lease it took. */
typedef enum slot_use { SLOT_HELD, SLOT_FREE, SLOT_PUBLISHED } slot_use;

/* Is w a move a learner may make from the producer's word own? */
static int learner_move(uint64_t own, uint64_t w)
{
    return CG_ZC_WORD_STATE(own) == CG_ZC_PUBLISHED &&
           CG_ZC_WORD_FRAME(w) == CG_ZC_WORD_FRAME(own) &&
           (CG_ZC_WORD_STATE(w) == CG_ZC_ACTIVE || CG_ZC_WORD_STATE(w) == CG_ZC_RELEASED);
}

static slot_use slot_use_of(cg_zc_leases *l, uint32_t i, uint64_t *w)
{
    if (l->held & (1u << i)) return SLOT_HELD;
    uint64_t own = l->own[i];
    /* Not the producer's word nor a learner's move from it: the producer's
     * view wins. A failed CAS means the word moved meanwhile (*w is then
     * what is there); the claim's own CAS decides on it. */
    if (*w != own && !learner_move(own, *w) && cg_zc_lease_cas(l->control, i, w, own)) *w = own;
    if (*w != own && learner_move(own, *w))
        return CG_ZC_WORD_STATE(*w) == CG_ZC_ACTIVE ? SLOT_HELD : SLOT_FREE;
    if (*w != own) return SLOT_FREE;
    return CG_ZC_WORD_STATE(own) == CG_ZC_PUBLISHED ? SLOT_PUBLISHED : SLOT_FREE;
}

/* After a learner connected or left (the server's epoch moved): every slot
 * the producer does not hold is put back to a word it can use. */
static void reset_slots(cg_zc_leases *l)
{
    uint32_t epoch = cg_zc_server_epoch(l->server);
    if (epoch == l->seen_epoch) return;
    l->seen_epoch = epoch;
    for (uint32_t i = 0; i < l->slots; i++) {
        uint64_t w = cg_zc_lease_load(l->control, i);
        (void)slot_use_of(l, i, &w);
    }
}

void cg_zc_leases_counters(const cg_zc_leases *l, uint64_t out[CG_ZC_COUNTERS])
{
    if (!l || !out) return;
    memcpy(out, l->count, sizeof l->count);
    cg_zc_server_stats st;
    memset(&st, 0, sizeof st);
    if (l->server) cg_zc_server_get_stats(l->server, &st);
    out[CG_ZC_COUNT_CONNECTIONS] = st.accepted;
    out[CG_ZC_COUNT_RECLAIMED] = st.reclaimed;
}

/* The counters into the control block, for the learner (never read back). */
static void put_counters(cg_zc_leases *l)
{
    uint64_t v[CG_ZC_COUNTERS];
    cg_zc_leases_counters(l, v);
    cg_zc_control_put_counters(l->control, v);
}

/* Claim a slot for frame F: EMPTY/RELEASED first, else the oldest
 * PUBLISHED frame; never an ACTIVE (leased) or WRITING one. Polls for at
 * most wait_ns when none is free (docs/zero-copy-v2/protocol.md, "All slots held"). */
static cg_status claim_slot(cg_zc_leases *l, cg_zc_slot_idle_fn idle_fn, void *user,
                            uint64_t frame, uint32_t *out, cg_err *err)
{
    uint64_t deadline = 0, waited_from = 0;
    uint32_t races = 0;
    reset_slots(l);
    for (;;) {
        int best = -1;
        uint64_t best_word = 0;
        for (uint32_t k = 0; k < l->slots; k++) {
            uint32_t i = (l->next + k) % l->slots;
            uint64_t w = cg_zc_lease_load(l->control, i);
            slot_use use = slot_use_of(l, i, &w);
            if (use == SLOT_HELD) continue;
            int idle;
            CG_TRY(idle_fn(user, i, &idle));
            if (!idle) continue;
            if (use == SLOT_FREE) {
                best = (int)i;
                best_word = w;
                break;
            }
            if (best < 0 || CG_ZC_WORD_FRAME(w) < CG_ZC_WORD_FRAME(best_word)) {
                best = (int)i;
                best_word = w;
            }
        }
        /* The CAS fails when the learner acquired that frame meanwhile:
         * then look again (a bounded number of times at once: a peer that
         * keeps rewriting a word only costs the wait below). */
        if (best >= 0 && cg_zc_lease_cas(l->control, (uint32_t)best, &best_word,
                                         CG_ZC_WORD(frame, CG_ZC_WRITING))) {
            l->own[best] = CG_ZC_WORD(frame, CG_ZC_WRITING);
            l->held |= 1u << best;
            *out = (uint32_t)best;
            l->next = ((uint32_t)best + 1) % l->slots;
            if (waited_from) l->count[CG_ZC_COUNT_WAIT_NS] += now_ns() - waited_from;
            return CG_OK;
        }
        if (best >= 0 && ++races <= 2 * CG_ZC_MAX_SLOTS) continue;
        uint64_t t = now_ns();
        if (!deadline) {
            deadline = t + l->wait_ns;
            waited_from = t;
        }
        if (t >= deadline) {
            l->count[CG_ZC_COUNT_WAIT_NS] += t - waited_from;
            l->count[CG_ZC_COUNT_SKIPPED]++;
            put_counters(l);
            return cg_fail(err, CG_E_RING_FULL,
                           "all %u slots are held by the learner (or still copying) after %llu ns: "
                           "frame %llu skipped",
                           l->slots, (unsigned long long)l->wait_ns, (unsigned long long)frame);
        }
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

cg_status cg_zc_leases_claim(cg_zc_leases *l, cg_zc_slot_idle_fn idle, void *user,
                             uint32_t *slot, uint64_t *frame, cg_err *err)
{
    if (l->frame >= CG_ZC_MAX_FRAME) return cg_fail(err, CG_E_OVERFLOW, "frame numbers exhausted");
    CG_TRY(claim_slot(l, idle, user, l->frame + 1, slot, err));
    *frame = l->frame + 1;
    return CG_OK;
}

int cg_zc_leases_claimed(const cg_zc_leases *l, uint32_t slot, uint64_t frame)
{
    return slot < l->slots && (l->held & (1u << slot)) &&
           l->own[slot] == CG_ZC_WORD(frame, CG_ZC_WRITING);
}

/* The producer gives up its hold of a slot with this word. */
static void set_word(cg_zc_leases *l, uint32_t slot, uint64_t word)
{
    l->own[slot] = word;
    l->held &= ~(1u << slot);
    cg_zc_lease_store(l->control, slot, word);
}

void cg_zc_leases_publish(cg_zc_leases *l, uint32_t slot, uint64_t frame)
{
    l->frame = frame;
    set_word(l, slot, CG_ZC_WORD(frame, CG_ZC_PUBLISHED));
    l->count[CG_ZC_COUNT_PUBLISHED]++;
    put_counters(l);
}

void cg_zc_leases_release(cg_zc_leases *l, uint32_t slot, uint64_t frame)
{
    set_word(l, slot, CG_ZC_WORD(frame, CG_ZC_RELEASED));
}

void cg_zc_leases_abandon(cg_zc_leases *l, uint32_t slot, uint64_t frame)
{
    cg_zc_leases_release(l, slot, frame);
    l->count[CG_ZC_COUNT_SKIPPED]++;
    put_counters(l);
}
