/*
 * cg_zc_transport.h - what zero-copy v2 needs from the operating system,
 * behind one small internal interface (not installed): a sealed shared
 * memory object (the control block), handing descriptors to the learner
 * in one message, and the peer's user. cg_zc_transport_posix.c is the
 * Linux one (memfd, SCM_RIGHTS, SO_PEERCRED); another platform's transport
 * (win32 handles, mach ports) is a sibling file that CMake picks.
 */
#ifndef CG_ZC_TRANSPORT_H
#define CG_ZC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"

/* A new shared memory object of size bytes, its size sealed, mapped
 * read/write shared. On error (CG_E_PLATFORM, err says the call and errno)
 * nothing is left open. */
cg_status cg_zc_shm_create(const char *name, size_t size, int *fd, uint8_t **map, cg_err *err);

/* Map a received shared memory object of at least size bytes (fd is
 * consumed: closed after mapping or on failure). CG_E_PROTOCOL when it is
 * smaller, not a plain file or not sealed against shrinking and growing
 * (the peer could shrink it under the mapping), CG_E_PLATFORM when the
 * mapping fails. */
cg_status cg_zc_shm_map(int fd, size_t size, uint8_t **map, cg_err *err);

/* Unmap what cg_zc_shm_create/map mapped (map NULL: nothing) and close fd
 * (-1: nothing). */
void cg_zc_shm_free(int fd, uint8_t *map, size_t size);

/* Send len bytes and, when n > 0, the n descriptors with them, in one
 * message on the connected socket conn (no SIGPIPE). 0 when all len bytes
 * went, -1 otherwise. */
int cg_zc_send_fds(int conn, const uint8_t *buf, size_t len, const int *fds, uint32_t n);

/* Receive one message of up to len bytes and the descriptors that came
 * with it (close-on-exec): at most cap of them are stored in fds (*n), any
 * more are closed. *truncated is nonzero when the kernel dropped some.
 * Returns the byte count, 0 at end of stream, -1 with errno on error. */
long cg_zc_recv_fds(int conn, uint8_t *buf, size_t len, int *fds, uint32_t cap, uint32_t *n,
                    int *truncated);

/* Nonzero when the peer of the connected socket conn runs as this
 * process's user. */
int cg_zc_peer_is_same_user(int conn);

#endif /* CG_ZC_TRANSPORT_H */
