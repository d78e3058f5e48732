/*
 * cg_shm_wait_poll.c - a semaphore wait with a time limit for systems
 * without sem_timedwait (macOS): sem_trywait, then sleeps that start at
 * 20 us and double up to 1 ms, so a post that comes soon is taken soon and a
 * long wait costs little CPU.
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE 1
#endif

#include <errno.h>
#include <time.h>

#include "cg_shm_internal.h"

static long long cg_shm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int cg_shm_sem_wait_ms(sem_t *sem, unsigned ms)
{
    long long deadline = cg_shm_now_ns() + (long long)ms * 1000000LL;
    long nap_ns = 20000L;
    for (;;) {
        if (sem_trywait(sem) == 0) return 0;
        if (errno != EAGAIN && errno != EINTR) return -1;
        long long left = deadline - cg_shm_now_ns();
        if (left <= 0) return 1;
        struct timespec nap = {0, left < nap_ns ? (long)left : nap_ns};
        nanosleep(&nap, NULL);
        if (nap_ns < 1000000L) nap_ns *= 2;
    }
}
