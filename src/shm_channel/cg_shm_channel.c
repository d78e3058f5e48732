/*
 * cg_shm_channel.c - the p2j/j2p channel: names, open/close, checked reads
 * of the Python side's header, growing writes, the waiting action read.
 * Bytes move through cg_shm_io_* (cg_shm_internal.h), never through a
 * pointer into a mapping here.
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE 1
#endif

#include "cg_shm_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* shm_open */
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cg_shm_internal.h"

/* p2j header offsets (cg_shm_channel.h). */
enum {
    P2J_ACTION_OFFSET = 8,
    P2J_ACTION_SIZE = 16,
    P2J_INIT_OFFSET = 24,
    P2J_INIT_SIZE = 32,
    P2J_SEM_OBS_NAME = 56,
    P2J_SEM_ACT_NAME = 104,
    J2P_DATA_OFFSET = 8,
    J2P_DATA_SIZE = 16
};

/* How long one wait slice lasts before the peer is checked again. */
#define CG_SHM_CHECK_MS 100u

/* How long a read_action polls the semaphore (yielding the CPU between
 * tries) before it sleeps on it, in nanoseconds. A learner that answers
 * within it saves the game thread a sleep and a wake-up (20-45 us each way
 * across CPUs of a VM); one that takes longer costs at most this much CPU
 * per step, most of it given away by sched_yield. */
#define CG_SHM_SPIN_NS 50000L


struct cg_shm_channel {
    pthread_mutex_t read_lock;  /* p2j reads, taken after the wait */
    pthread_mutex_t write_lock; /* j2p writes */
    int port;
    cg_shm_obj p2j, j2p;
    char sem_obs_name[CG_SHM_NAME_MAX], sem_act_name[CG_SHM_NAME_MAX];
    sem_t *sem_obs, *sem_act;
    cg_shm_peer peer;
    atomic_int closed; /* the peer has gone: every call refuses */
};

/* ---- errors ----------------------------------------------------------- */

/* The errno of a failed open, as a status: a missing object is the Python
 * side not (or no longer) being there. */
static cg_status cg_shm_open_status(int e)
{
    if (e == ENOENT) return CG_E_CHANNEL_ABSENT;
    if (e == ENOMEM) return CG_E_NO_MEMORY;
    return CG_E_PLATFORM;
}

/* ---- header fields ---------------------------------------------------- */

/* The wire is 64-bit little-endian sizes; every supported host is
 * little-endian, so a plain load (memcpy: no alignment assumption). */
static uint64_t cg_shm_load_u64(const uint8_t *base, size_t off)
{
    uint64_t v;
    memcpy(&v, base + off, sizeof v);
    return v;
}

static void cg_shm_store_u64(uint8_t *base, size_t off, uint64_t v)
{
    memcpy(base + off, &v, sizeof v);
}

/* off/len from the header must describe bytes inside obj_size, past the
 * header. Written without any sum that could wrap. */
static cg_status cg_shm_check_span(const cg_shm_channel *ch, cg_err *why, const char *what,
                                   uint64_t off, uint64_t len, size_t obj_size, size_t *off_out)
{
    if (off < CG_SHM_P2J_HEADER || off > (uint64_t)obj_size ||
        len > (uint64_t)obj_size - off)
        return cg_fail(why, CG_E_CHANNEL_CORRUPT,
                       "%s: %s of %llu bytes at offset %llu lies outside the object's %zu "
                       "bytes (data must start at or after byte %d)",
                       ch->p2j.name, what, (unsigned long long)len, (unsigned long long)off,
                       obj_size, CG_SHM_P2J_HEADER);
    *off_out = (size_t)off;
    return CG_OK;
}

/* The semaphore name stored at `at` of header h must be exactly `want`,
 * NUL-terminated within its 30 bytes. */
static cg_status cg_shm_check_sem_name(const cg_shm_channel *ch, cg_err *why, const uint8_t *h,
                                       size_t at, const char *want)
{
    const char *field = (const char *)h + at;
    const char *nul = memchr(field, '\0', CG_SHM_SEM_NAME_LEN);
    if (nul != NULL && strcmp(field, want) == 0) return CG_OK;
    char shown[CG_SHM_SEM_NAME_LEN + 1];
    size_t n = nul != NULL ? (size_t)(nul - field) : (size_t)CG_SHM_SEM_NAME_LEN;
    for (size_t i = 0; i < n; i++)
        shown[i] = (field[i] >= 0x20 && field[i] < 0x7f) ? field[i] : '?';
    shown[n] = '\0';
    return cg_fail(why, CG_E_CHANNEL_CORRUPT,
                   "%s: semaphore name at header offset %zu is \"%s\"%s, expected \"%s\"",
                   ch->p2j.name, at, shown, nul != NULL ? "" : " (not NUL-terminated)", want);
}

/* ---- objects ---------------------------------------------------------- */

static void cg_shm_obj_init(cg_shm_obj *o)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

static void cg_shm_obj_release(cg_shm_obj *o)
{
    cg_shm_io_release(o);
    if (o->fd >= 0) close(o->fd);
    cg_shm_obj_init(o);
}

static cg_status cg_shm_obj_open(cg_err *why, cg_shm_obj *o, int writable)
{
    o->writable = writable;
    o->fd = shm_open(o->name, writable ? O_RDWR : O_RDONLY, 0);
    if (o->fd < 0) {
        int e = errno;
        return cg_fail(why, cg_shm_open_status(e), "shm_open(\"%s\") failed: %s%s", o->name,
                       strerror(e),
                       e == ENOENT ? " (is the Python side running with this port?)" : "");
    }
    struct stat sb;
    if (fstat(o->fd, &sb) != 0)
        return cg_fail(why, CG_E_PLATFORM, "fstat(%s) failed: %s", o->name, strerror(errno));
    o->dev = sb.st_dev;
    o->ino = sb.st_ino;
    return CG_OK;
}

/* The object's current size, checked to be addressable. */
static cg_status cg_shm_obj_size(cg_err *why, const cg_shm_obj *o, size_t *size)
{
    struct stat sb;
    if (fstat(o->fd, &sb) != 0)
        return cg_fail(why, CG_E_PLATFORM, "fstat(%s) failed: %s", o->name, strerror(errno));
    if (sb.st_size < 0 || (uintmax_t)sb.st_size > (uintmax_t)SIZE_MAX)
        return cg_fail(why, CG_E_CHANNEL_CORRUPT, "%s: object size %jd is not addressable",
                       o->name, (intmax_t)sb.st_size);
    *size = (size_t)sb.st_size;
    return CG_OK;
}

/* A short copy out of p2j: the object shrank between its size check and
 * the copy. */
static cg_status cg_shm_p2j_short(const cg_shm_channel *ch, cg_err *why, const char *what,
                                  ssize_t got, size_t want, size_t off)
{
    if (got < 0)
        return cg_fail(why, CG_E_PLATFORM, "%s: reading %s (%zu bytes at offset %zu) failed: %s",
                       ch->p2j.name, what, want, off, strerror(errno));
    return cg_fail(why, CG_E_CHANNEL_CORRUPT,
                   "%s: the object shrank while %s was read: %zd of its %zu bytes at offset %zu "
                   "were still there",
                   ch->p2j.name, what, got, want, off);
}

/* p2j's size and its header (the first n bytes of it), which must be
 * there. */
static cg_status cg_shm_p2j_header(cg_shm_channel *ch, cg_err *why, uint8_t *h, size_t n,
                                   size_t *size)
{
    CG_TRY(cg_shm_obj_size(why, &ch->p2j, size));
    ssize_t got = *size < CG_SHM_P2J_HEADER ? 0 : cg_shm_io_read(&ch->p2j, 0, h, n);
    if (got == (ssize_t)n) return CG_OK;
    if (got < 0) return cg_shm_p2j_short(ch, why, "the header", got, n, 0);
    return cg_fail(why, CG_E_CHANNEL_CORRUPT,
                   "%s: object is %zu bytes, smaller than its %d-byte header", ch->p2j.name,
                   *size, CG_SHM_P2J_HEADER);
}

/* Reads the span described at header offsets off_at/size_at into the sink:
 * checked against the object's size, then copied; a copy that comes up
 * short (shrunk meanwhile) fails cleanly. `post` is given back when the
 * sink refuses (read_action's contract); NULL: nothing to give back. */
static cg_status cg_shm_p2j_read(cg_shm_channel *ch, cg_err *why, const char *what,
                                 size_t off_at, size_t size_at, const cg_shm_sink *sink,
                                 sem_t *post)
{
    uint8_t h[P2J_INIT_SIZE + 8];
    size_t size = 0, off = 0;
    CG_TRY(cg_shm_p2j_header(ch, why, h, sizeof h, &size));
    uint64_t len = cg_shm_load_u64(h, size_at);
    CG_TRY(cg_shm_check_span(ch, why, what, cg_shm_load_u64(h, off_at), len, size, &off));
    uint8_t *dst = NULL;
    cg_status st = sink->reserve(sink->user, (size_t)len, &dst);
    if (st != CG_OK) {
        if (post != NULL) sem_post(post); /* the action stays pending */
        return st;
    }
    ssize_t got = len == 0 ? 0 : cg_shm_io_read(&ch->p2j, off, dst, (size_t)len);
    int ok = got == (ssize_t)len;
    sink->finish(sink->user, ok);
    return ok ? CG_OK : cg_shm_p2j_short(ch, why, what, got, (size_t)len, off);
}

/* Does `name` still lead to the object we opened? (Where fstat of a
 * shared-memory object gives no inode, as on macOS, only a missing name
 * tells.) */
static int cg_shm_obj_still_there(const cg_shm_obj *o)
{
    if (cg_shm_fd_unlinked(o->fd)) return 0;
    struct stat sb;
    int fd = shm_open(o->name, O_RDONLY, 0);
    if (fd < 0) return errno != ENOENT; /* only a missing name is a verdict */
    int same = fstat(fd, &sb) != 0 || (sb.st_dev == o->dev && sb.st_ino == o->ino);
    close(fd);
    return same;
}

/* ---- open / close ----------------------------------------------------- */

static cg_status cg_shm_sem_open(cg_err *why, const char *name, sem_t **out)
{
    sem_t *s = sem_open(name, 0);
    if (s == SEM_FAILED) {
        int e = errno;
        return cg_fail(why, cg_shm_open_status(e), "sem_open(\"%s\") failed: %s", name,
                       strerror(e));
    }
    *out = s;
    return CG_OK;
}

static cg_status cg_shm_channel_open_(cg_shm_channel *ch, cg_err *why)
{
    CG_TRY(cg_shm_obj_open(why, &ch->p2j, 0));
    uint8_t h[CG_SHM_P2J_HEADER];
    size_t size = 0, off = 0;
    CG_TRY(cg_shm_p2j_header(ch, why, h, sizeof h, &size));
    CG_TRY(cg_shm_check_span(ch, why, "the action", cg_shm_load_u64(h, P2J_ACTION_OFFSET),
                             cg_shm_load_u64(h, P2J_ACTION_SIZE), size, &off));
    CG_TRY(cg_shm_check_span(ch, why, "the initial environment",
                             cg_shm_load_u64(h, P2J_INIT_OFFSET), cg_shm_load_u64(h, P2J_INIT_SIZE),
                             size, &off));
    CG_TRY(cg_shm_check_sem_name(ch, why, h, P2J_SEM_OBS_NAME, ch->sem_obs_name));
    CG_TRY(cg_shm_check_sem_name(ch, why, h, P2J_SEM_ACT_NAME, ch->sem_act_name));
    CG_TRY(cg_shm_obj_open(why, &ch->j2p, 1));
    CG_TRY(cg_shm_sem_open(why, ch->sem_obs_name, &ch->sem_obs));
    CG_TRY(cg_shm_sem_open(why, ch->sem_act_name, &ch->sem_act));
    const char *const names[4] = {ch->p2j.name, ch->j2p.name, ch->sem_obs_name, ch->sem_act_name};
    if (cg_shm_peer_find(&ch->peer, names) && ch->peer.n == 0)
        return cg_fail(why, CG_E_CHANNEL_CLOSED,
                       "%s: no other process holds the channel's objects or semaphores: they were "
                       "left behind by a Python side that has gone (killed without cleanup); "
                       "nothing would ever answer. Start the Python side (it recreates them)",
                       ch->p2j.name);
    return CG_OK;
}

static void cg_shm_channel_release(cg_shm_channel *ch)
{
    cg_shm_peer_release(&ch->peer);
    if (ch->sem_obs != NULL) sem_close(ch->sem_obs);
    if (ch->sem_act != NULL) sem_close(ch->sem_act);
    cg_shm_obj_release(&ch->p2j);
    cg_shm_obj_release(&ch->j2p);
}

cg_status cg_shm_channel_open(cg_shm_channel **out, int port, cg_err *why)
{
    cg_err_clear(why);
    if (out == NULL) return CG_E_INVALID_ARG;
    *out = NULL;
    if (port < 0) return cg_fail(why, CG_E_INVALID_ARG, "port %d is negative", port);
    cg_shm_channel *ch = calloc(1, sizeof *ch);
    if (ch == NULL) return CG_E_NO_MEMORY;
    ch->port = port;
    atomic_init(&ch->closed, 0);
    cg_shm_obj_init(&ch->p2j);
    cg_shm_obj_init(&ch->j2p);
    cg_shm_make_name(ch->p2j.name, sizeof ch->p2j.name, port, CG_SHM_P2J);
    cg_shm_make_name(ch->j2p.name, sizeof ch->j2p.name, port, CG_SHM_J2P);
    snprintf(ch->sem_obs_name, sizeof ch->sem_obs_name, "/cg_sem_obs%d", port);
    snprintf(ch->sem_act_name, sizeof ch->sem_act_name, "/cg_sem_act%d", port);
    if (pthread_mutex_init(&ch->read_lock, NULL) != 0) {
        free(ch);
        return CG_E_NO_MEMORY;
    }
    if (pthread_mutex_init(&ch->write_lock, NULL) != 0) {
        pthread_mutex_destroy(&ch->read_lock);
        free(ch);
        return CG_E_NO_MEMORY;
    }
    cg_status st = cg_shm_channel_open_(ch, why);
    if (st != CG_OK) {
        cg_shm_channel_close(ch);
        return st;
    }
    *out = ch;
    return CG_OK;
}

void cg_shm_channel_close(cg_shm_channel *ch)
{
    if (ch == NULL) return;
    cg_shm_channel_release(ch);
    pthread_mutex_destroy(&ch->read_lock);
    pthread_mutex_destroy(&ch->write_lock);
    free(ch);
}

int cg_shm_channel_port(const cg_shm_channel *ch)
{
    return ch != NULL ? ch->port : -1;
}

/* ---- calls ------------------------------------------------------------ */

/* Starts a call: a closed channel refuses. */
static cg_status cg_shm_enter(cg_shm_channel *ch, cg_err *why)
{
    cg_err_clear(why);
    if (ch == NULL) return CG_E_INVALID_ARG;
    if (atomic_load(&ch->closed))
        return cg_fail(why, CG_E_CHANNEL_CLOSED,
                       "%s: the Python side has gone; open the channel again", ch->p2j.name);
    return CG_OK;
}

static int cg_shm_sink_ok(const cg_shm_sink *sink)
{
    return sink != NULL && sink->reserve != NULL && sink->finish != NULL;
}

cg_status cg_shm_channel_read_initial_environment(cg_shm_channel *ch, const cg_shm_sink *sink,
                                                  cg_err *why)
{
    if (!cg_shm_sink_ok(sink)) return CG_E_INVALID_ARG;
    CG_TRY(cg_shm_enter(ch, why));
    pthread_mutex_lock(&ch->read_lock);
    cg_status st = cg_shm_p2j_read(ch, why, "the initial environment", P2J_INIT_OFFSET,
                                   P2J_INIT_SIZE, sink, NULL);
    pthread_mutex_unlock(&ch->read_lock);
    return st;
}

/* Has the Python side gone? Its objects unlinked or replaced (a clean exit
 * or its signal handler unlinks them), or every process that mapped them
 * at open has exited (SIGKILL leaves them behind). */
static int cg_shm_peer_has_gone(cg_shm_channel *ch)
{
    if (!cg_shm_obj_still_there(&ch->p2j) || !cg_shm_obj_still_there(&ch->j2p)) return 1;
    return cg_shm_peer_gone(&ch->peer);
}

static long long cg_shm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* 1 when a post was taken within CG_SHM_SPIN_NS without sleeping. */
static int cg_shm_spin_for_post(sem_t *sem)
{
    long long until = cg_shm_now_ns() + CG_SHM_SPIN_NS;
    do {
        if (sem_trywait(sem) == 0) return 1;
        sched_yield();
    } while (cg_shm_now_ns() < until);
    return 0;
}

/* Takes one post of the action semaphore, checking on the peer between
 * slices. Holds no lock. */
static cg_status cg_shm_wait_action(cg_shm_channel *ch, cg_err *why)
{
    if (cg_shm_spin_for_post(ch->sem_act)) return CG_OK;
    for (;;) {
        int r = cg_shm_sem_wait_ms(ch->sem_act, CG_SHM_CHECK_MS);
        if (r == 0) return CG_OK;
        if (r < 0)
            return cg_fail(why, CG_E_PLATFORM, "waiting on %s failed: %s", ch->sem_act_name,
                           strerror(errno));
        if (atomic_load(&ch->closed) || cg_shm_peer_has_gone(ch)) {
            atomic_store(&ch->closed, 1);
            return cg_fail(why, CG_E_CHANNEL_CLOSED,
                           "%s: the Python side has gone while waiting for an action (objects "
                           "unlinked or process exited)",
                           ch->p2j.name);
        }
    }
}

cg_status cg_shm_channel_read_action(cg_shm_channel *ch, const cg_shm_sink *sink, cg_err *why)
{
    if (!cg_shm_sink_ok(sink)) return CG_E_INVALID_ARG;
    CG_TRY(cg_shm_enter(ch, why));
    CG_TRY(cg_shm_wait_action(ch, why));
    /* The post is taken: from here on the header describes a finished action. */
    pthread_mutex_lock(&ch->read_lock);
    cg_status st = cg_shm_p2j_read(ch, why, "the action", P2J_ACTION_OFFSET, P2J_ACTION_SIZE,
                                   sink, ch->sem_act);
    pthread_mutex_unlock(&ch->read_lock);
    return st;
}

/* The message, then its header, into j2p. */
static cg_status cg_shm_write_(cg_shm_channel *ch, const uint8_t *data, size_t len, cg_err *why)
{
    cg_shm_obj *o = &ch->j2p;
    uint8_t h[16];
    cg_shm_store_u64(h, 0, CG_SHM_J2P_HEADER);
    cg_shm_store_u64(h, 8, (uint64_t)len);
    if (cg_shm_io_write(o, CG_SHM_J2P_HEADER, data, len) == 0 &&
        cg_shm_io_write(o, J2P_DATA_OFFSET, h, sizeof h) == 0)
        return CG_OK;
    int e = errno;
    return cg_fail(why, e == ENOMEM || e == ENOSPC ? CG_E_NO_MEMORY : CG_E_PLATFORM,
                   "%s: writing a %zu-byte message (the object growing to at least %zu bytes) "
                   "failed: %s",
                   o->name, len, CG_SHM_J2P_HEADER + len, strerror(e));
}

cg_status cg_shm_channel_write(cg_shm_channel *ch, const uint8_t *data, size_t len, cg_err *why)
{
    if (data == NULL && len != 0) return CG_E_INVALID_ARG;
    CG_TRY(cg_shm_enter(ch, why));
    /* The object size is an off_t: 24 + len must fit one. */
    uintmax_t off_max = ((uintmax_t)1 << (sizeof(off_t) * CHAR_BIT - 1)) - 1;
    if ((uintmax_t)len > off_max - CG_SHM_J2P_HEADER || len > SIZE_MAX - CG_SHM_J2P_HEADER)
        return cg_fail(why, CG_E_OVERFLOW, "%s: a %zu-byte message does not fit an object",
                       ch->j2p.name, len);
    pthread_mutex_lock(&ch->write_lock);
    cg_status st = cg_shm_write_(ch, data, len, why);
    /* sem_post is a full barrier: the reader woken by it sees the bytes. */
    if (st == CG_OK && sem_post(ch->sem_obs) != 0)
        st = cg_fail(why, CG_E_PLATFORM, "sem_post(%s) failed: %s", ch->sem_obs_name,
                     strerror(errno));
    pthread_mutex_unlock(&ch->write_lock);
    return st;
}
