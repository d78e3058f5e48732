/*
 * cg_zc_server.h - the producer's end of the zero-copy v2 hand-off
 * (docs/zero-copy-v2/protocol.md, "The socket"): an endpoint at a path (Linux: a
 * Unix socket in a 0700 directory), one learner at a time, whose user must
 * be ours, to which exactly the given handles are sent in one hello.
 *
 * A thread of the server's own accepts and watches the connection, so a
 * learner can connect while the game is between frames; when a learner
 * connects or disconnects it returns every lease no learner holds any more
 * (cg_zc_control_reclaim) and moves the epoch (cg_zc_server_epoch). The
 * learner sends nothing: one that sends a byte is disconnected (its leases
 * come back), so a flooding peer costs no CPU. The endpoint, the
 * connections, the handles and the peer's user are the transport's
 * (cg_zc_transport.h; Linux: cg_zc_transport_posix.c: SCM_RIGHTS,
 * SO_PEERCRED); the decisions are made here, the same on every OS.
 */
#ifndef CG_ZC_SERVER_H
#define CG_ZC_SERVER_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_oshandle.h"
#include "cg_status.h"
#include "cg_zc_proto.h"
#include "cg_zc_transport.h" /* cg_zc_socket_dir */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_zc_server cg_zc_server;

typedef struct cg_zc_server_desc {
    const cg_oshandle *handles; /* sent in this order; still owned by the caller */
    uint32_t handle_count;      /* 1..CG_ZC_MAX_HANDLES */
    cg_zc_hello hello;          /* status and fd_count are filled in per connection */
    cg_zc_control *control;     /* reclaimed when a learner leaves; may be NULL */
    const char *dir;            /* NULL: the rule of the protocol ($XDG_RUNTIME_DIR, ...) */
} cg_zc_server_desc;

/* Listen for learners of d->hello.ring_id in d->dir (cg_zc_listen: on
 * Linux, make or check the 0700 directory, remove dead producers' sockets,
 * bind ring-<pid>-<ring id>.sock with mode 0600) and start the thread. The
 * handles must stay open until cg_zc_server_destroy. Errors:
 * CG_E_INVALID_ARG, and those of cg_zc_listen: CG_E_PLATFORM (a syscall
 * failed: err says which and errno), CG_E_PROTOCOL (the directory is
 * unsafe), CG_E_TOO_LARGE (the path does not fit sun_path), CG_E_NO_MEMORY. */
cg_status cg_zc_server_create(const cg_zc_server_desc *d, cg_zc_server **out, cg_err *err);

/* Stop the thread, close the connection and the endpoint, remove its
 * path. NULL: no-op. The caller's handles are not closed. */
void cg_zc_server_destroy(cg_zc_server *s);

/* The endpoint's path (for the descriptor's socket_path). */
const char *cg_zc_server_path(const cg_zc_server *s);

/* Counters, for tests and diagnostics: learners accepted (hello OK),
 * connections refused (busy or wrong uid), learners that left. */
typedef struct cg_zc_server_stats {
    uint32_t accepted, refused_busy, refused_uid, departed;
    int connected;      /* a learner is connected now */
    uint64_t reclaimed; /* leases returned (ACTIVE -> RELEASED) when learners came or went */
} cg_zc_server_stats;
void cg_zc_server_get_stats(cg_zc_server *s, cg_zc_server_stats *st);

/* Learners accepted plus learners departed (an atomic load: cheap enough
 * for every frame). The producer rewrites the lease words it does not hold
 * when this moves. 0 for NULL. */
uint32_t cg_zc_server_epoch(cg_zc_server *s);

/* The learner's end: connect to path (cg_zc_dial), receive the hello and
 * its handles (handles must have room for CG_ZC_MAX_HANDLES; *n of them are
 * the caller's, in the hello's order: control block, slots, semaphore), and
 * keep the connection (*conn; ending it, cg_zc_hangup, gives the leases
 * back). Errors: CG_E_NOT_INITIALIZED (nobody listens at path),
 * CG_E_PROTOCOL (refused: busy or another uid; a short or malformed hello;
 * a handle count that does not match), CG_E_UNSUPPORTED (unknown version);
 * no handle is left open on error. */
cg_status cg_zc_connect(const char *path, cg_zc_hello *hello, cg_oshandle *handles, uint32_t *n,
                        cg_oshandle *conn, cg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_SERVER_H */
