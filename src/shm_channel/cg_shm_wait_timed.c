/*
 * cg_shm_wait_timed.c - a semaphore wait with a time limit through
 * sem_timedwait (Linux, the BSDs). macOS lacks it: cg_shm_wait_poll.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <time.h>

#include "cg_shm_internal.h"

int cg_shm_sem_wait_ms(sem_t *sem, unsigned ms)
{
    /* sem_timedwait takes an absolute CLOCK_REALTIME deadline. A clock
     * step only lengthens or shortens one slice; the caller loops. */
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    ts.tv_sec += (time_t)(ms / 1000u);
    ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec += 1;
        ts.tv_nsec -= 1000000000L;
    }
    for (;;) {
        if (sem_timedwait(sem, &ts) == 0) return 0;
        if (errno == EINTR) continue;
        return errno == ETIMEDOUT ? 1 : -1;
    }
}
