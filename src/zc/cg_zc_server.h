/*
 * cg_zc_server.h - the producer's end of the zero-copy v2 hand-off
 * (docs/zero-copy-v2/protocol.md, "The socket"): a Unix socket at a path in a 0700
 * directory, one learner at a time (peer uid checked with SO_PEERCRED), to
 * which exactly the given fds are sent with SCM_RIGHTS in one hello.
 *
 * A thread of the server's own accepts and watches the connection, so a
 * learner can connect while the game is between frames; when a learner
 * connects or disconnects it returns every lease no learner holds any more
 * (cg_zc_control_reclaim) and moves the epoch (cg_zc_server_epoch). The
 * learner sends nothing: one that sends a byte is disconnected (its leases
 * come back), so a flooding peer costs no CPU. The socket and its thread
 * are POSIX; descriptors, the peer's uid and the shared memory go through
 * the transport (cg_zc_transport.h; Linux: cg_zc_transport_posix.c).
 */
#ifndef CG_ZC_SERVER_H
#define CG_ZC_SERVER_H

#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"
#include "cg_zc_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cg_zc_server cg_zc_server;

typedef struct cg_zc_server_desc {
    const int *fds;         /* sent in this order; still owned by the caller */
    uint32_t fd_count;      /* 1..CG_ZC_MAX_FDS */
    cg_zc_hello hello;      /* status and fd_count are filled in per connection */
    cg_zc_control *control; /* reclaimed when a learner leaves; may be NULL */
    const char *dir;        /* NULL: the rule of the protocol ($XDG_RUNTIME_DIR, ...) */
} cg_zc_server_desc;

/* Make the directory (or check it: a real directory of ours, mode 0700),
 * remove the sockets there of producers that died (ring-<pid>-*.sock whose
 * pid is gone and where nobody listens), bind and listen on
 * ring-<pid>-<ring id>.sock (mode 0600), start the thread. The fds must stay open until cg_zc_server_destroy.
 * Errors: CG_E_INVALID_ARG, CG_E_PLATFORM (a syscall failed: err says
 * which and errno), CG_E_PROTOCOL (the directory is unsafe), CG_E_TOO_LARGE
 * (the path does not fit sun_path), CG_E_NO_MEMORY. */
cg_status cg_zc_server_create(const cg_zc_server_desc *d, cg_zc_server **out, cg_err *err);

/* Stop the thread, close the connection and the socket, unlink its path.
 * NULL: no-op. The caller's fds are not closed. */
void cg_zc_server_destroy(cg_zc_server *s);

/* The socket's path (for the descriptor). */
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

/* The directory the protocol's rule picks for this process (no side
 * effect): "$XDG_RUNTIME_DIR/cg-zc-<uid>" when that variable is the
 * absolute path of an existing directory, else "$TMPDIR/cg-zc-<uid>" under
 * the same condition, else "/tmp/cg-zc-<uid>". */
cg_status cg_zc_socket_dir(char *out, size_t cap);

/* The learner's end: connect to path, receive the hello and its fds
 * (fds must have room for CG_ZC_MAX_FDS; *nfds of them are the caller's),
 * and keep the connection (*conn; closing it gives the leases back).
 * Errors: CG_E_NOT_INITIALIZED (nobody listens at path), CG_E_PROTOCOL
 * (refused: busy or another uid; a short or malformed hello; an fd count
 * that does not match), CG_E_UNSUPPORTED (unknown version); no fd is left
 * open on error. */
cg_status cg_zc_connect(const char *path, cg_zc_hello *hello, int *fds, uint32_t *nfds,
                        int *conn, cg_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CG_ZC_SERVER_H */
