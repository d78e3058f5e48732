/*
 * cg_zc_server.c - the hand-off of zero-copy v2 (cg_zc_server.h): who may
 * connect, what the hello says, the leases a departing learner held. The
 * endpoint, the connections and the handles are the transport's
 * (cg_zc_transport.h); the thread and the lock are pthreads (MinGW-w64
 * has them too: winpthreads).
 */
#include "cg_zc_server.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct cg_zc_server {
    cg_oshandle handles[CG_ZC_MAX_HANDLES]; /* the caller's */
    uint32_t handle_count;
    cg_zc_hello hello;
    cg_zc_control *control;
    cg_zc_listener *listener;
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock; /* guards stats */
    cg_zc_server_stats stats;
    _Atomic uint32_t epoch; /* learners accepted + departed */
};

/* A learner came or went: leases no learner holds go back (ACTIVE ->
 * RELEASED), and the producer's next frame call puts back every word the
 * learner wrote that is not its own (cg_vk_ring, the epoch). */
static void learner_changed(cg_zc_server *s)
{
    uint32_t n = s->control ? cg_zc_control_reclaim(s->control) : 0;
    pthread_mutex_lock(&s->lock);
    s->stats.reclaimed += n;
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(&s->epoch, 1);
}

static void bump(cg_zc_server *s, uint32_t *counter, int connected)
{
    pthread_mutex_lock(&s->lock);
    if (counter) (*counter)++;
    if (connected >= 0) s->stats.connected = connected;
    pthread_mutex_unlock(&s->lock);
}

/* One message: the hello, and the handles when status is OK. */
static int send_hello(cg_zc_server *s, cg_oshandle conn, uint16_t status)
{
    cg_zc_hello h = s->hello;
    h.status = status;
    h.fd_count = status == CG_ZC_HELLO_OK ? s->handle_count : 0;
    uint8_t buf[CG_ZC_HELLO_SIZE];
    cg_zc_hello_encode(&h, buf);
    return cg_zc_send_handles(conn, buf, sizeof buf, s->handles, h.fd_count);
}

/* Accept one connection and decide. Returns the new learner's connection,
 * or CG_OSHANDLE_INVALID. */
static cg_oshandle handle_accept(cg_zc_server *s, int have_learner)
{
    cg_oshandle conn = cg_zc_accept(s->listener);
    if (!cg_oshandle_valid(conn)) return CG_OSHANDLE_INVALID;
    /* Counted before the peer can read the answer, so what it sees is
     * already in the stats. */
    if (!cg_zc_peer_is_same_user(conn)) {
        bump(s, &s->stats.refused_uid, -1);
        (void)send_hello(s, conn, CG_ZC_HELLO_WRONG_UID);
        cg_zc_hangup(conn);
        return CG_OSHANDLE_INVALID;
    }
    if (have_learner) {
        bump(s, &s->stats.refused_busy, -1);
        (void)send_hello(s, conn, CG_ZC_HELLO_BUSY);
        cg_zc_hangup(conn);
        return CG_OSHANDLE_INVALID;
    }
    learner_changed(s); /* before the learner can map the control block */
    bump(s, &s->stats.accepted, 1);
    if (send_hello(s, conn, CG_ZC_HELLO_OK) != 0) {
        pthread_mutex_lock(&s->lock);
        s->stats.accepted--;
        s->stats.connected = 0;
        pthread_mutex_unlock(&s->lock);
        cg_zc_hangup(conn);
        return CG_OSHANDLE_INVALID;
    }
    return conn;
}

static void *server_main(void *arg)
{
    cg_zc_server *s = arg;
    cg_oshandle learner = CG_OSHANDLE_INVALID;
    for (;;) {
        unsigned ev = cg_zc_listener_wait(s->listener, learner);
        if (ev & CG_ZC_WAIT_STOP) break;
        /* The learner sends nothing: its side moving means gone (EOF,
         * reset), or a peer breaking the protocol by sending bytes. Either
         * way the connection ends here (reading them would cost the game a
         * core while a peer floods), and its leases come back. */
        if ((ev & CG_ZC_WAIT_LEARNER) && cg_zc_learner_left(learner)) {
            cg_zc_hangup(learner);
            learner = CG_OSHANDLE_INVALID;
            learner_changed(s);
            bump(s, &s->stats.departed, 0);
        }
        if (ev & CG_ZC_WAIT_ACCEPT) {
            cg_oshandle conn = handle_accept(s, cg_oshandle_valid(learner));
            if (cg_oshandle_valid(conn)) learner = conn;
        }
    }
    cg_zc_hangup(learner);
    return NULL;
}

cg_status cg_zc_server_create(const cg_zc_server_desc *d, cg_zc_server **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    CG_RETURN_IF(!d || !d->handles || d->handle_count < 1 || d->handle_count > CG_ZC_MAX_HANDLES,
                 CG_E_INVALID_ARG);
    cg_zc_server *s = calloc(1, sizeof *s);
    if (!s) return CG_E_NO_MEMORY;
    memcpy(s->handles, d->handles, sizeof(cg_oshandle) * d->handle_count);
    s->handle_count = d->handle_count;
    s->hello = d->hello;
    s->control = d->control;
    pthread_mutex_init(&s->lock, NULL);
    cg_status st = cg_zc_listen(d->dir, d->hello.ring_id, &s->listener, err);
    if (st == CG_OK && pthread_create(&s->thread, NULL, server_main, s) != 0)
        st = cg_fail(err, CG_E_PLATFORM, "pthread_create(zero-copy hand-off)");
    if (st != CG_OK) {
        cg_zc_server_destroy(s);
        return st;
    }
    s->thread_started = 1;
    *out = s;
    return CG_OK;
}

void cg_zc_server_destroy(cg_zc_server *s)
{
    if (!s) return;
    if (s->thread_started) {
        cg_zc_listener_wake(s->listener);
        pthread_join(s->thread, NULL);
    }
    cg_zc_listener_close(s->listener);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

uint32_t cg_zc_server_epoch(cg_zc_server *s)
{
    return s ? atomic_load(&s->epoch) : 0;
}

const char *cg_zc_server_path(const cg_zc_server *s)
{
    return s ? cg_zc_listener_path(s->listener) : "";
}

void cg_zc_server_get_stats(cg_zc_server *s, cg_zc_server_stats *st)
{
    if (!s || !st) return;
    pthread_mutex_lock(&s->lock);
    *st = s->stats;
    pthread_mutex_unlock(&s->lock);
}

/* ---- the learner's end (C consumers and tests) ---------------------------- */

cg_status cg_zc_connect(const char *path, cg_zc_hello *hello, cg_oshandle *handles, uint32_t *n,
                        cg_oshandle *conn, cg_err *err)
{
    CG_RETURN_IF(!path || !hello || !handles || !n || !conn, CG_E_INVALID_ARG);
    *n = 0;
    *conn = CG_OSHANDLE_INVALID;
    cg_oshandle c;
    CG_TRY(cg_zc_dial(path, &c, err));
    uint8_t buf[CG_ZC_HELLO_SIZE];
    int truncated;
    long got = cg_zc_recv_handles(c, buf, sizeof buf, handles, CG_ZC_MAX_HANDLES, n, &truncated);
    cg_status st = CG_OK;
    if (got < 0) st = cg_fail(err, CG_E_PLATFORM, "recvmsg(hello): errno %d", errno);
    else if (got == 0)
        st = cg_fail(err, CG_E_PROTOCOL, "the producer closed the socket before the hello");
    else if (got < CG_ZC_HELLO_SIZE)
        st = cg_fail(err, CG_E_PROTOCOL, "zero-copy hello truncated: %ld bytes of %d", got,
                     CG_ZC_HELLO_SIZE);
    else if (truncated)
        st = cg_fail(err, CG_E_PROTOCOL, "the hello's fds were truncated");
    else st = cg_zc_hello_decode(buf, (size_t)got, hello, err);
    if (st == CG_OK && hello->status == CG_ZC_HELLO_BUSY)
        st = cg_fail(err, CG_E_PROTOCOL, "another learner is connected to %s", path);
    else if (st == CG_OK && hello->status == CG_ZC_HELLO_WRONG_UID)
        st = cg_fail(err, CG_E_PROTOCOL, "the producer at %s runs as another user", path);
    else if (st == CG_OK && hello->status != CG_ZC_HELLO_OK)
        st = cg_fail(err, CG_E_PROTOCOL, "hello status %u unknown", hello->status);
    else if (st == CG_OK && (hello->fd_count != *n || hello->slot_count < 1 ||
                             hello->slot_count > CG_ZC_MAX_SLOTS ||
                             hello->fd_count != hello->slot_count +
                                                    (hello->mode == CG_ZC_MODE_SEMAPHORE ? 2u : 1u)))
        st = cg_fail(err, CG_E_PROTOCOL, "hello announces %u fds for %u slots (mode %u), %u came",
                     hello->fd_count, hello->slot_count, hello->mode, *n);
    if (st != CG_OK) {
        for (uint32_t i = 0; i < *n; i++) cg_oshandle_close(handles[i]);
        *n = 0;
        cg_zc_hangup(c);
        return st;
    }
    *conn = c;
    return CG_OK;
}
