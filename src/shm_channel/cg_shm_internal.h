/*
 * cg_shm_internal.h - the two platform parts of the channel, one file each,
 * chosen by CMake:
 *   waiting for a semaphore with a time limit: cg_shm_wait_timed.c
 *     (sem_timedwait) or cg_shm_wait_poll.c (sem_trywait + short sleeps,
 *     for macOS, which has no sem_timedwait);
 *   watching the peer process and its objects: cg_shm_peer_linux.c (/proc,
 *     st_nlink) or cg_shm_peer_none.c (only the object names are checked).
 */
#ifndef CG_SHM_INTERNAL_H
#define CG_SHM_INTERNAL_H

#include <semaphore.h>

/* Takes one post of `sem`, waiting at most `ms` milliseconds.
 * Returns 0 when taken, 1 when the time ran out, -1 on error (errno set). */
int cg_shm_sem_wait_ms(sem_t *sem, unsigned ms);

/* Processes other than us that map one of the channel's objects, found at
 * open; their deaths mean the Python side has gone even when it left its
 * objects behind (SIGKILL runs no cleanup). */
#define CG_SHM_PEER_MAX 8
typedef struct cg_shm_peer {
    int n;
    int fd[CG_SHM_PEER_MAX]; /* platform handle of each watched process */
} cg_shm_peer;

/* Finds the processes mapping any of the channel's objects or semaphores
 * (their POSIX names, "/craftground_5000_p2j", "/cg_sem_act5000"). Finding
 * none is not an error: p->n is then 0 and cg_shm_peer_gone never reports
 * gone. */
void cg_shm_peer_find(cg_shm_peer *p, const char *const names[4]);

/* 1 when at least one process was watched and every one has exited. */
int cg_shm_peer_gone(cg_shm_peer *p);

void cg_shm_peer_release(cg_shm_peer *p);

/* 1 when the shared-memory object behind `fd` is known to have no name any
 * more (Linux: st_nlink 0). 0 when it has, or when the platform cannot tell
 * (macOS reports st_nlink 0 for every shared-memory object). */
int cg_shm_fd_unlinked(int fd);

#endif /* CG_SHM_INTERNAL_H */
