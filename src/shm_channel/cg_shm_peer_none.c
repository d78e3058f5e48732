/*
 * cg_shm_peer_none.c - no way to find the peer process on this platform
 * (macOS), and fstat of a shared-memory object there zeroes st_nlink and
 * st_ino: a dead peer is seen only through its objects' names going away.
 */
#include "cg_shm_internal.h"

int cg_shm_peer_find(cg_shm_peer *p, const char *const names[4])
{
    (void)names;
    p->n = 0;
    return 0;
}

int cg_shm_peer_gone(cg_shm_peer *p)
{
    (void)p;
    return 0;
}

void cg_shm_peer_release(cg_shm_peer *p)
{
    p->n = 0;
}

int cg_shm_fd_unlinked(int fd)
{
    (void)fd;
    return 0;
}
