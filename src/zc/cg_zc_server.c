/*
 * cg_zc_server.c - the hand-off socket of zero-copy v2 (cg_zc_server.h).
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "cg_zc_server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cg_zc_transport.h"

struct cg_zc_server {
    int fds[CG_ZC_MAX_FDS];
    uint32_t fd_count;
    cg_zc_hello hello;
    cg_zc_control *control;
    char path[CG_ZC_PATH_SIZE];
    int listen_fd;
    int wake[2]; /* a pipe: a byte in it stops the thread */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock; /* guards stats */
    cg_zc_server_stats stats;
    _Atomic uint32_t epoch; /* learners accepted + departed */
};

/* An absolute path to an existing directory (the base of the socket's). */
static int usable_base(const char *base)
{
    struct stat st;
    return base && base[0] == '/' && stat(base, &st) == 0 && S_ISDIR(st.st_mode);
}

cg_status cg_zc_socket_dir(char *out, size_t cap)
{
    CG_RETURN_IF(!out || cap == 0, CG_E_INVALID_ARG);
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (!usable_base(base)) base = getenv("TMPDIR");
    if (!usable_base(base)) base = "/tmp";
    int n = snprintf(out, cap, "%s/cg-zc-%u", base, (unsigned)getuid());
    CG_RETURN_IF(n < 0 || (size_t)n >= cap, CG_E_TOO_LARGE);
    return CG_OK;
}

/* Is a socket file at path stale: nobody listens there (ECONNREFUSED)? */
static int nobody_listens(const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof sa.sun_path) return 0;
    memcpy(sa.sun_path, path, len + 1);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c < 0) return 0;
    int refused = connect(c, (struct sockaddr *)&sa, sizeof sa) != 0 && errno == ECONNREFUSED;
    close(c);
    return refused;
}

/* Unlink the sockets of producers that died without destroying their ring:
 * ring-<pid>-<16 hex>.sock whose pid is gone (kill: ESRCH) and where nobody
 * listens (a live producer in another pid namespace still answers). */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = 0;
        char id[17] = {0}, tail[8] = {0};
        if (sscanf(e->d_name, "ring-%ld-%16[0-9a-f]%7s", &pid, id, tail) != 3 || pid <= 0 ||
            strlen(id) != 16 || strcmp(tail, ".sock") != 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[CG_ZC_PATH_SIZE];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (n < 0 || (size_t)n >= sizeof path || lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (nobody_listens(path)) (void)unlink(path);
    }
    closedir(d);
}

/* The directory exists as a real directory of ours with mode 0700, or is
 * made so. Anything else (a symlink, another owner, group/world access) is
 * refused: another user could then replace the socket. */
static cg_status safe_dir(const char *dir, cg_err *err)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return cg_fail(err, CG_E_PLATFORM, "mkdir(%s): errno %d", dir, errno);
    struct stat st;
    if (lstat(dir, &st) != 0) return cg_fail(err, CG_E_PLATFORM, "lstat(%s): errno %d", dir, errno);
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 0777) != 0700)
        return cg_fail(err, CG_E_PROTOCOL,
                       "%s must be a directory owned by uid %u with mode 0700 (it is mode %o, "
                       "uid %u%s)",
                       dir, (unsigned)getuid(), (unsigned)(st.st_mode & 0777), (unsigned)st.st_uid,
                       S_ISDIR(st.st_mode) ? "" : ", not a directory");
    return CG_OK;
}

/* A learner came or went: leases no learner holds go back (ACTIVE ->
 * RELEASED), and the producer's next frame call puts back every word the
 * learner wrote that is not its own (cg_vk_ring, the epoch). */
static void learner_changed(cg_zc_server *s)
{
    uint32_t n = s->control ? cg_zc_control_reclaim(s->control) : 0;
    pthread_mutex_lock(&s->lock);
    s->stats.reclaimed += n;
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(&s->epoch, 1);
}

static void bump(cg_zc_server *s, uint32_t *counter, int connected)
{
    pthread_mutex_lock(&s->lock);
    if (counter) (*counter)++;
    if (connected >= 0) s->stats.connected = connected;
    pthread_mutex_unlock(&s->lock);
}

/* One sendmsg: the hello, and the fds when status is OK. */
static int send_hello(cg_zc_server *s, int conn, uint16_t status)
{
    cg_zc_hello h = s->hello;
    h.status = status;
    h.fd_count = status == CG_ZC_HELLO_OK ? s->fd_count : 0;
    uint8_t buf[CG_ZC_HELLO_SIZE];
    cg_zc_hello_encode(&h, buf);
    return cg_zc_send_fds(conn, buf, sizeof buf, s->fds, h.fd_count);
}

/* Accept one connection and decide. Returns the new learner's fd, or -1. */
static int handle_accept(cg_zc_server *s, int have_learner)
{
    int conn = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0) return -1;
    /* Counted before the peer can read the answer, so what it sees is
     * already in the stats. */
    if (!cg_zc_peer_is_same_user(conn)) {
        bump(s, &s->stats.refused_uid, -1);
        (void)send_hello(s, conn, CG_ZC_HELLO_WRONG_UID);
        close(conn);
        return -1;
    }
    if (have_learner) {
        bump(s, &s->stats.refused_busy, -1);
        (void)send_hello(s, conn, CG_ZC_HELLO_BUSY);
        close(conn);
        return -1;
    }
    learner_changed(s); /* before the learner can map the control block */
    bump(s, &s->stats.accepted, 1);
    if (send_hello(s, conn, CG_ZC_HELLO_OK) != 0) {
        pthread_mutex_lock(&s->lock);
        s->stats.accepted--;
        s->stats.connected = 0;
        pthread_mutex_unlock(&s->lock);
        close(conn);
        return -1;
    }
    return conn;
}

static void *server_main(void *arg)
{
    cg_zc_server *s = arg;
    int learner = -1;
    for (;;) {
        struct pollfd p[3] = {{.fd = s->wake[0], .events = POLLIN},
                              {.fd = s->listen_fd, .events = POLLIN},
                              {.fd = learner, .events = POLLIN}};
        int r = poll(p, learner >= 0 ? 3 : 2, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[0].revents) break;
        if (learner >= 0 && p[2].revents) {
            /* The learner sends nothing: readable means gone (EOF, reset),
             * or a peer breaking the protocol by sending bytes. Either way
             * the connection ends here (reading them would cost the game a
             * core while a peer floods), and its leases come back. */
            char b;
            ssize_t n = recv(learner, &b, 1, MSG_DONTWAIT);
            if (!(n < 0 && (errno == EAGAIN || errno == EINTR))) {
                close(learner);
                learner = -1;
                learner_changed(s);
                bump(s, &s->stats.departed, 0);
            }
        }
        if (p[1].revents & POLLIN) {
            int conn = handle_accept(s, learner >= 0);
            if (conn >= 0) learner = conn;
        }
    }
    if (learner >= 0) close(learner);
    return NULL;
}

cg_status cg_zc_server_create(const cg_zc_server_desc *d, cg_zc_server **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    CG_RETURN_IF(!d || !d->fds || d->fd_count < 1 || d->fd_count > CG_ZC_MAX_FDS,
                 CG_E_INVALID_ARG);
    char dir[CG_ZC_PATH_SIZE];
    if (d->dir) {
        int n = snprintf(dir, sizeof dir, "%s", d->dir);
        if (n < 0 || (size_t)n >= sizeof dir)
            return cg_fail(err, CG_E_TOO_LARGE, "socket directory too long");
    } else if (cg_zc_socket_dir(dir, sizeof dir) != CG_OK) {
        return cg_fail(err, CG_E_TOO_LARGE, "the socket directory's path does not fit sun_path");
    }
    CG_TRY(safe_dir(dir, err));
    remove_stale(dir);

    cg_zc_server *s = calloc(1, sizeof *s);
    if (!s) return CG_E_NO_MEMORY;
    s->listen_fd = -1;
    s->wake[0] = s->wake[1] = -1;
    memcpy(s->fds, d->fds, sizeof(int) * d->fd_count);
    s->fd_count = d->fd_count;
    s->hello = d->hello;
    s->control = d->control;
    pthread_mutex_init(&s->lock, NULL);
    int n = snprintf(s->path, sizeof s->path, "%s/ring-%ld-%016llx.sock", dir, (long)getpid(),
                     (unsigned long long)d->hello.ring_id);
    cg_status st = CG_OK;
    if (n < 0 || (size_t)n >= sizeof s->path) {
        st = cg_fail(err, CG_E_TOO_LARGE, "socket path under %s does not fit sun_path", dir);
        goto fail;
    }
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0) {
        st = cg_fail(err, CG_E_PLATFORM, "socket(AF_UNIX): errno %d", errno);
        goto fail;
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
    (void)unlink(s->path); /* a stale socket of an earlier process with our pid */
    /* Between bind and chmod only this uid can reach the socket: its
     * directory is 0700 (umask is process-wide, so it is left alone). */
    int br = bind(s->listen_fd, (struct sockaddr *)&sa, sizeof sa);
    int be = errno;
    if (br != 0 || chmod(s->path, 0600) != 0) {
        st = cg_fail(err, CG_E_PLATFORM, "bind/chmod(%s): errno %d", s->path, br ? be : errno);
        goto fail;
    }
    if (listen(s->listen_fd, 4) != 0) {
        st = cg_fail(err, CG_E_PLATFORM, "listen(%s): errno %d", s->path, errno);
        goto fail;
    }
    if (pipe2(s->wake, O_CLOEXEC) != 0) {
        st = cg_fail(err, CG_E_PLATFORM, "pipe2: errno %d", errno);
        goto fail;
    }
    if (pthread_create(&s->thread, NULL, server_main, s) != 0) {
        st = cg_fail(err, CG_E_PLATFORM, "pthread_create(zero-copy hand-off)");
        goto fail;
    }
    s->thread_started = 1;
    *out = s;
    return CG_OK;
fail:
    cg_zc_server_destroy(s);
    return st;
}

void cg_zc_server_destroy(cg_zc_server *s)
{
    if (!s) return;
    if (s->thread_started) {
        char b = 1;
        ssize_t w;
        do {
            w = write(s->wake[1], &b, 1);
        } while (w < 0 && errno == EINTR);
        pthread_join(s->thread, NULL);
    }
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        (void)unlink(s->path);
    }
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

uint32_t cg_zc_server_epoch(cg_zc_server *s)
{
    return s ? atomic_load(&s->epoch) : 0;
}

const char *cg_zc_server_path(const cg_zc_server *s)
{
    return s ? s->path : "";
}

void cg_zc_server_get_stats(cg_zc_server *s, cg_zc_server_stats *st)
{
    if (!s || !st) return;
    pthread_mutex_lock(&s->lock);
    *st = s->stats;
    pthread_mutex_unlock(&s->lock);
}

/* ---- the learner's end (C consumers and tests) ---------------------------- */

cg_status cg_zc_connect(const char *path, cg_zc_hello *hello, int *fds, uint32_t *nfds,
                        int *conn, cg_err *err)
{
    CG_RETURN_IF(!path || !hello || !fds || !nfds || !conn, CG_E_INVALID_ARG);
    *nfds = 0;
    *conn = -1;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof sa.sun_path)
        return cg_fail(err, CG_E_INVALID_ARG, "socket path of %zu bytes", len);
    memcpy(sa.sun_path, path, len + 1);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0) return cg_fail(err, CG_E_PLATFORM, "socket(AF_UNIX): errno %d", errno);
    if (connect(c, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(c);
        return cg_fail(err, CG_E_NOT_INITIALIZED, "no zero-copy producer at %s (errno %d)", path, e);
    }
    uint8_t buf[CG_ZC_HELLO_SIZE];
    int truncated;
    long n = cg_zc_recv_fds(c, buf, sizeof buf, fds, CG_ZC_MAX_FDS, nfds, &truncated);
    cg_status st = CG_OK;
    if (n < 0) st = cg_fail(err, CG_E_PLATFORM, "recvmsg(hello): errno %d", errno);
    else if (n == 0) st = cg_fail(err, CG_E_PROTOCOL, "the producer closed the socket before the hello");
    else if (n < CG_ZC_HELLO_SIZE)
        st = cg_fail(err, CG_E_PROTOCOL, "zero-copy hello truncated: %ld bytes of %d", n,
                     CG_ZC_HELLO_SIZE);
    else if (truncated)
        st = cg_fail(err, CG_E_PROTOCOL, "the hello's fds were truncated");
    else st = cg_zc_hello_decode(buf, (size_t)n, hello, err);
    if (st == CG_OK && hello->status == CG_ZC_HELLO_BUSY)
        st = cg_fail(err, CG_E_PROTOCOL, "another learner is connected to %s", path);
    else if (st == CG_OK && hello->status == CG_ZC_HELLO_WRONG_UID)
        st = cg_fail(err, CG_E_PROTOCOL, "the producer at %s runs as another user", path);
    else if (st == CG_OK && hello->status != CG_ZC_HELLO_OK)
        st = cg_fail(err, CG_E_PROTOCOL, "hello status %u unknown", hello->status);
    else if (st == CG_OK && (hello->fd_count != *nfds || hello->slot_count < 1 ||
                             hello->slot_count > CG_ZC_MAX_SLOTS ||
                             hello->fd_count != hello->slot_count +
                                                    (hello->mode == CG_ZC_MODE_SEMAPHORE ? 2u : 1u)))
        st = cg_fail(err, CG_E_PROTOCOL, "hello announces %u fds for %u slots (mode %u), %u came",
                     hello->fd_count, hello->slot_count, hello->mode, *nfds);
    if (st != CG_OK) {
        for (uint32_t i = 0; i < *nfds; i++) close(fds[i]);
        *nfds = 0;
        close(c);
        return st;
    }
    *conn = c;
    return CG_OK;
}
