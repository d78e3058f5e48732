/*
 * cg_shm_internal.h - the three platform parts of the channel, one file each,
 * chosen by CMake:
 *   moving bytes in and out of an object: cg_shm_io_fd.c (pread/pwrite,
 *     which a concurrent truncation turns into short counts, not SIGBUS) or
 *     cg_shm_io_map.c (a mapping, for macOS, where read/write do not work on
 *     shared-memory descriptors and an object's size never changes);
 *   waiting for a semaphore with a time limit: cg_shm_wait_timed.c
 *     (sem_timedwait) or cg_shm_wait_poll.c (sem_trywait + short sleeps,
 *     for macOS, which has no sem_timedwait);
 *   watching the peer process and its objects: cg_shm_peer_linux.c (/proc,
 *     st_nlink) or cg_shm_peer_none.c (only the object names are checked).
 */
#ifndef CG_SHM_INTERNAL_H
#define CG_SHM_INTERNAL_H

#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cg_shm_channel.h"

/* An object opened by name. */
typedef struct cg_shm_obj {
    char name[CG_SHM_NAME_MAX];
    int fd;
    int writable;
    dev_t dev; /* identity at open: a new object under the same name is */
    ino_t ino; /* another Python session, not ours */
    uint8_t *map; /* cg_shm_io_map.c only: the mapping, NULL when none */
    size_t map_len;
} cg_shm_obj;

/* Copies up to len bytes at offset off of the object into dst. Returns the
 * count copied, less than len only where the object ends before off + len
 * (it may have shrunk a moment ago), or -1 with errno set. */
ssize_t cg_shm_io_read(cg_shm_obj *o, size_t off, void *dst, size_t len);

/* Writes src[0..len) at offset off, the object growing to off + len when
 * smaller (never shrinking). 0, or -1 with errno set (ENOSPC/ENOMEM: no
 * room; EFBIG: too large). */
int cg_shm_io_write(cg_shm_obj *o, size_t off, const void *src, size_t len);

/* Drops what cg_shm_io_* keeps for the object (a mapping). */
void cg_shm_io_release(cg_shm_obj *o);

/* Takes one post of `sem`, waiting at most `ms` milliseconds.
 * Returns 0 when taken, 1 when the time ran out, -1 on error (errno set). */
int cg_shm_sem_wait_ms(sem_t *sem, unsigned ms);

/* Processes other than us that hold one of the channel's objects or
 * semaphores (map it or keep a descriptor to it), found at open; their
 * deaths mean the Python side has gone even when it left its objects behind
 * (SIGKILL runs no cleanup). */
#define CG_SHM_PEER_MAX 8
typedef struct cg_shm_peer {
    int n;
    int fd[CG_SHM_PEER_MAX]; /* platform handle of each watched process */
} cg_shm_peer;

/* Finds the processes other than us holding any of the channel's objects or
 * semaphores (given by their POSIX names, "/craftground_5000_p2j",
 * "/cg_sem_act5000"; matched by device and inode, so a creator's mapping of
 * glibc's temporary semaphore file counts). Returns 1 when it could look
 * (p->n is then the count found, 0 meaning nobody holds them), 0 when this
 * platform cannot tell (p->n is 0 and cg_shm_peer_gone never reports gone). */
int cg_shm_peer_find(cg_shm_peer *p, const char *const names[4]);

/* 1 when at least one process was watched and every one has exited. */
int cg_shm_peer_gone(cg_shm_peer *p);

void cg_shm_peer_release(cg_shm_peer *p);

/* 1 when the shared-memory object behind `fd` is known to have no name any
 * more (Linux: st_nlink 0). 0 when it has, or when the platform cannot tell
 * (macOS reports st_nlink 0 for every shared-memory object). */
int cg_shm_fd_unlinked(int fd);

#endif /* CG_SHM_INTERNAL_H */
