/*
 * cg_zc_transport.h - everything zero-copy v2 needs from the operating
 * system, behind one small internal interface (not installed): the sealed
 * shared memory of the control block, a fresh ring id, the producer's
 * endpoint (a path learners connect to, one waiting thread), the
 * learner's dial, the hello with its handles in one message, and the
 * peer's user. Every handle crossing it is a cg_oshandle (cg_oshandle.h),
 * the connection included, so the protocol above it (cg_zc_proto.c,
 * cg_zc_server.c, cg_zc_producer.c) names no OS call.
 *
 * One file per transport, picked by CG_ZC_TRANSPORT in src/zc/CMakeLists.txt:
 * cg_zc_transport_posix.c (Linux: memfd with seals, a Unix socket in a 0700
 * directory, SCM_RIGHTS, SO_PEERCRED). A Windows one (a named pipe, the
 * handles duplicated into the learner with DuplicateHandle, the pipe
 * client's token for the user) is a sibling file implementing these same
 * functions (docs/architecture.md, "OS handles and transports").
 */
#ifndef CG_ZC_TRANSPORT_H
#define CG_ZC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_oshandle.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- shared memory: the control block ----------------------------------- */

/* A new shared memory object of size bytes, its size sealed, mapped
 * read/write shared. On error (CG_E_PLATFORM, err says the call and errno)
 * nothing is left open and *h is CG_OSHANDLE_INVALID. */
cg_status cg_zc_shm_create(const char *name, size_t size, cg_oshandle *h, uint8_t **map,
                           cg_err *err);

/* Map a received shared memory object of at least size bytes (h is
 * consumed: closed after mapping or on failure). CG_E_PROTOCOL when it is
 * smaller, not a plain file or not sealed against shrinking and growing
 * (the peer could shrink it under the mapping), CG_E_PLATFORM when the
 * mapping fails. */
cg_status cg_zc_shm_map(cg_oshandle h, size_t size, uint8_t **map, cg_err *err);

/* Unmap what cg_zc_shm_create/map mapped (map NULL: nothing) and close h
 * (invalid: nothing). */
void cg_zc_shm_free(cg_oshandle h, uint8_t *map, size_t size);

/* A fresh ring id, never 0: random, else time and process id. */
uint64_t cg_zc_new_ring_id(void);

/* ---- the producer's endpoint ------------------------------------------- */

/* The directory the protocol's rule picks for this process (no side
 * effect): "$XDG_RUNTIME_DIR/cg-zc-<uid>" when that variable is the
 * absolute path of an existing directory, else "$TMPDIR/cg-zc-<uid>" under
 * the same condition, else "/tmp/cg-zc-<uid>". CG_E_TOO_LARGE when it does
 * not fit cap. */
cg_status cg_zc_socket_dir(char *out, size_t cap);

typedef struct cg_zc_listener cg_zc_listener;

/* Listen for learners of ring ring_id at a path in dir (NULL: the rule of
 * cg_zc_socket_dir): make the directory (or check it: a real directory of
 * ours, mode 0700), remove the sockets there of producers that died
 * (ring-<pid>-*.sock whose pid is gone and where nobody listens), bind
 * and listen on ring-<pid>-<ring id>.sock (mode 0600). Errors:
 * CG_E_PLATFORM (a call failed: err says which and errno), CG_E_PROTOCOL
 * (the directory is unsafe), CG_E_TOO_LARGE (the path does not fit
 * CG_ZC_PATH_SIZE), CG_E_NO_MEMORY; nothing is left open on error. */
cg_status cg_zc_listen(const char *dir, uint64_t ring_id, cg_zc_listener **out, cg_err *err);

/* The path learners dial (the descriptor's socket_path). */
const char *cg_zc_listener_path(const cg_zc_listener *l);

/* What ended a cg_zc_listener_wait (bits). */
enum {
    CG_ZC_WAIT_STOP = 1,    /* cg_zc_listener_wake was called, or waiting failed */
    CG_ZC_WAIT_ACCEPT = 2,  /* a learner is dialling: cg_zc_accept */
    CG_ZC_WAIT_LEARNER = 4  /* the connected learner's side moved: cg_zc_learner_left */
};

/* Block until a learner dials, the connected learner (an invalid handle:
 * none) hangs up or sends, or cg_zc_listener_wake. One thread waits. */
unsigned cg_zc_listener_wait(cg_zc_listener *l, cg_oshandle learner);

/* Make the waiting thread's cg_zc_listener_wait return CG_ZC_WAIT_STOP
 * (from another thread). */
void cg_zc_listener_wake(cg_zc_listener *l);

/* The dialling learner's connection (not inherited by children), or
 * CG_OSHANDLE_INVALID. */
cg_oshandle cg_zc_accept(cg_zc_listener *l);

/* After CG_ZC_WAIT_LEARNER: nonzero when the connection is over (the
 * learner hung up, or broke the protocol by sending bytes, which are not
 * read), 0 when the wake was spurious. */
int cg_zc_learner_left(cg_oshandle conn);

/* End a connection of either side (invalid: nothing). */
void cg_zc_hangup(cg_oshandle conn);

/* Stop listening: close the endpoint and remove its path. NULL: no-op.
 * Nobody may be waiting on it any more. */
void cg_zc_listener_close(cg_zc_listener *l);

/* ---- both sides --------------------------------------------------------- */

/* The learner's end: connect to path. CG_E_INVALID_ARG (empty, or longer
 * than the endpoint's path allows), CG_E_PLATFORM, CG_E_NOT_INITIALIZED
 * (nobody listens at path). */
cg_status cg_zc_dial(const char *path, cg_oshandle *conn, cg_err *err);

/* Send len bytes and, when n > 0, the n handles with them, in one message
 * on the connection conn (no SIGPIPE); the handles stay the sender's. 0
 * when all len bytes went, -1 otherwise. */
int cg_zc_send_handles(cg_oshandle conn, const uint8_t *buf, size_t len, const cg_oshandle *h,
                       uint32_t n);

/* Receive one message of up to len bytes and the handles that came with
 * it (not inherited by children): at most cap of them are stored in h
 * (*n), any more are closed. *truncated is nonzero when the OS dropped
 * some. Returns the byte count, 0 at end of stream, -1 with errno on
 * error. */
long cg_zc_recv_handles(cg_oshandle conn, uint8_t *buf, size_t len, cg_oshandle *h, uint32_t cap,
                        uint32_t *n, int *truncated);

/* Nonzero when the peer of the connection conn runs as this process's
 * user. */
int cg_zc_peer_is_same_user(cg_oshandle conn);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_TRANSPORT_H */
