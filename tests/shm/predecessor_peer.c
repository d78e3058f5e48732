/*
 * predecessor_peer.c - the Python side of the shared-memory channel as
 * CraftGround's own RL package runs it on Linux (its C++ extension
 * ipc_noboost.cpp with cross_semaphore.h), rewritten here from how that code
 * behaves, for the JVM tests (shm_peer.py loads it with ctypes when
 * CG_SHM_PEER_LIB names it, so the process that creates everything is a
 * Python process, as in CraftGround).
 *
 * What it does the way the predecessor does, because the game's side must
 * cope with exactly that:
 * - create: both objects with shm_open(O_CREAT) + ftruncate, the p2j header
 *   and the initial environment written through a mapping dropped at once,
 *   both descriptors closed; both semaphores made here with sem_unlink then
 *   sem_open(O_CREAT, 0644, 0) (so this process maps glibc's temporary file,
 *   "/dev/shm/sem.XXXXXX (deleted)") and never closed; their sem_t pointers
 *   stored in the shared header (process-local, garbage to anyone else) and
 *   read back from there on every later call;
 * - each call maps what it needs and unmaps it before returning; the p2j
 *   descriptor is opened on the first write or read and cached; the j2p one
 *   is opened and closed per read;
 * - write: action bytes at 136 through a mapping of 136 + size, then
 *   action_size and action_offset, then a post of the action semaphore;
 * - read: wait on the observation semaphore holding a header mapping of p2j,
 *   map j2p's 24-byte header, read data_size, map 24 + data_size and copy
 *   (an object smaller than that would be SIGBUS here, as there).
 * The one difference: the wait has a time limit (sem_timedwait), so that a
 * broken game side fails the test instead of hanging it.
 * Errors come back as -errno; nothing is printed.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define P2J_HEADER 136 /* sizeof the predecessor's SharedMemoryLayout */
#define J2P_HEADER 24
#define SEM_OBS_AT 40  /* struct rk_sema { sem_t *python, *java; char name[30]; } */
#define SEM_ACT_AT 88
#define SEM_NAME 16    /* offset of name inside rk_sema */

/* What shm_peer.py calls (ctypes). */
int pp_create(int port, const void *init, size_t init_size, size_t action_size);
int pp_write_action(const char *p2j, const void *data, size_t size);
long pp_read(const char *p2j, const char *j2p, void *out, size_t cap, long timeout_ms);
void pp_destroy(const char *name, int release_semaphores);

/* The p2j descriptor, cached per name as the predecessor's shm_fd_cache. */
static char cached_name[64];
static int cached_fd = -1;

static int p2j_fd(const char *name)
{
    if (cached_fd >= 0 && strcmp(cached_name, name) == 0) return cached_fd;
    int fd = shm_open(name, O_RDWR, 0666);
    if (fd < 0) return -errno;
    if (cached_fd >= 0) close(cached_fd);
    snprintf(cached_name, sizeof cached_name, "%s", name);
    cached_fd = fd;
    return fd;
}

static int exists(const char *name)
{
    int fd = shm_open(name, O_RDONLY, 0666);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
    memcpy(b + off, &v, sizeof v);
}

static uint64_t get64(const uint8_t *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

static sem_t *sem_at(const uint8_t *h, size_t at)
{
    sem_t *s;
    memcpy(&s, h + at, sizeof s);
    return s;
}

static int sem_make(uint8_t *h, size_t at, const char *name)
{
    size_t n = strlen(name);
    if (n >= 30) return -ENAMETOOLONG;
    memcpy(h + at + SEM_NAME, name, n + 1);
    sem_unlink(name);
    sem_t *s = sem_open(name, O_CREAT, 0644, 0);
    if (s == SEM_FAILED) return -errno;
    memcpy(h + at, &s, sizeof s);
    return 0;
}

/* The channel of `port`: 0, or -errno (-EEXIST: objects already there). */
int pp_create(int port, const void *init, size_t init_size, size_t action_size)
{
    char p2j[64], j2p[64], obs[32], act[32];
    snprintf(p2j, sizeof p2j, "/craftground_%d_p2j", port);
    snprintf(j2p, sizeof j2p, "/craftground_%d_j2p", port);
    snprintf(obs, sizeof obs, "/cg_sem_obs%d", port);
    snprintf(act, sizeof act, "/cg_sem_act%d", port);
    if (exists(p2j) || exists(j2p)) return -EEXIST;
    size_t size = P2J_HEADER + action_size + init_size;
    int pf = shm_open(p2j, O_CREAT | O_RDWR, 0666);
    if (pf < 0) return -errno;
    int jf = shm_open(j2p, O_CREAT | O_RDWR, 0666);
    if (jf < 0 || ftruncate(pf, (off_t)size) != 0 ||
        ftruncate(jf, (off_t)(J2P_HEADER + init_size)) != 0) {
        int e = -errno;
        if (jf >= 0) close(jf);
        close(pf);
        return e;
    }
    uint8_t *h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, pf, 0);
    int rc = h == MAP_FAILED ? -errno : 0;
    if (rc == 0) {
        memset(h, 0, P2J_HEADER);
        rc = sem_make(h, SEM_OBS_AT, obs);
        if (rc == 0) rc = sem_make(h, SEM_ACT_AT, act);
        put64(h, 8, P2J_HEADER);
        put64(h, 16, action_size);
        put64(h, 24, P2J_HEADER + action_size);
        put64(h, 32, init_size);
        memcpy(h + P2J_HEADER + action_size, init, init_size);
        munmap(h, size);
    }
    close(pf);
    close(jf);
    return rc;
}

/* One action: 0 or -errno. */
int pp_write_action(const char *p2j, const void *data, size_t size)
{
    int fd = p2j_fd(p2j);
    if (fd < 0) return fd;
    uint8_t *h = mmap(NULL, P2J_HEADER + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) return -errno;
    put64(h, 16, size);
    put64(h, 8, P2J_HEADER);
    memcpy(h + P2J_HEADER, data, size);
    int rc = sem_post(sem_at(h, SEM_ACT_AT)) == 0 ? 0 : -errno;
    munmap(h, P2J_HEADER + size);
    return rc;
}

/* One message into out[cap]: its length, or -errno (-ETIMEDOUT after
 * timeout_ms; -ENOBUFS: larger than cap, nothing copied). */
long pp_read(const char *p2j, const char *j2p, void *out, size_t cap, long timeout_ms)
{
    int fd = p2j_fd(p2j);
    if (fd < 0) return fd;
    uint8_t *h = mmap(NULL, P2J_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED) return -errno;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int r;
    do r = sem_timedwait(sem_at(h, SEM_OBS_AT), &until);
    while (r != 0 && errno == EINTR);
    long rc = r == 0 ? 0 : -errno;
    int jf = rc == 0 ? shm_open(j2p, O_RDWR, 0666) : -1;
    if (rc == 0 && jf < 0) rc = -errno;
    uint8_t *j = MAP_FAILED;
    size_t len = 0;
    if (rc == 0) {
        j = mmap(NULL, J2P_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED, jf, 0);
        if (j == MAP_FAILED) rc = -errno;
    }
    if (rc == 0) {
        len = (size_t)get64(j, 16);
        munmap(j, J2P_HEADER);
        j = mmap(NULL, J2P_HEADER + len, PROT_READ | PROT_WRITE, MAP_SHARED, jf, 0);
        if (j == MAP_FAILED) rc = -errno;
    }
    if (rc == 0) {
        if (len > cap) {
            rc = -ENOBUFS;
        } else {
            memcpy(out, j + get64(j, 8), len);
            rc = (long)len;
        }
        munmap(j, J2P_HEADER + len);
    }
    if (jf >= 0) close(jf);
    munmap(h, P2J_HEADER);
    return rc;
}

/* The predecessor's destroy: semaphores closed and unlinked through p2j's
 * header when asked, then the object unlinked. */
void pp_destroy(const char *name, int release_semaphores)
{
    if (release_semaphores) {
        int fd = p2j_fd(name);
        uint8_t *h = fd < 0 ? MAP_FAILED
                            : mmap(NULL, P2J_HEADER, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (h != MAP_FAILED) {
            const size_t at[2] = {SEM_OBS_AT, SEM_ACT_AT};
            for (int i = 0; i < 2; i++) {
                sem_close(sem_at(h, at[i]));
                sem_unlink((const char *)h + at[i] + SEM_NAME);
            }
            munmap(h, P2J_HEADER);
        }
        if (fd >= 0) {
            close(fd);
            cached_fd = -1;
        }
    }
    shm_unlink(name);
}
