/*
 * cg_zc_transport_posix.c - the zero-copy v2 transport on Linux
 * (cg_zc_transport.h): memfd_create with seals, a Unix socket in a 0700
 * directory watched with poll, SCM_RIGHTS, SO_PEERCRED. A cg_oshandle is a
 * file descriptor here.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS, ucred, SO_PEERCRED, accept4, pipe2, getrandom */
#include "cg_zc_transport.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cg_zc_proto.h" /* CG_ZC_MAX_HANDLES, CG_ZC_PATH_SIZE */

_Static_assert(sizeof(cg_oshandle) == sizeof(int), "a handle is an fd here");
_Static_assert(CG_ZC_PATH_SIZE == sizeof(((struct sockaddr_un *)0)->sun_path),
               "the descriptor's socket_path is a sun_path");

/* ---- shared memory ------------------------------------------------------ */

cg_status cg_zc_shm_create(const char *name, size_t size, cg_oshandle *fd, uint8_t **map,
                           cg_err *err)
{
    *fd = -1;
    *map = NULL;
    int f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0) return cg_fail(err, CG_E_PLATFORM, "memfd_create(control block): errno %d", errno);
    if (ftruncate(f, (off_t)size) != 0 ||
        fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int e = errno;
        close(f);
        return cg_fail(err, CG_E_PLATFORM, "sizing/sealing the control block: errno %d", e);
    }
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        close(f);
        return cg_fail(err, CG_E_PLATFORM, "mmap(control block): errno %d", e);
    }
    *fd = f;
    *map = m;
    return CG_OK;
}

cg_status cg_zc_shm_map(cg_oshandle fd, size_t size, uint8_t **map, cg_err *err)
{
    *map = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)size) {
        close(fd);
        return cg_fail(err, CG_E_PROTOCOL, "zero-copy control block: not a %zu-byte file", size);
    }
    /* Sealed against shrinking and growing (docs/zero-copy-v2/protocol.md, "The control block"):
     * without F_SEAL_SHRINK the producer could truncate the file under the mapping, and the
     * next lease would be a SIGBUS in this process. Seals are never removed once added. */
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)) {
        close(fd);
        return cg_fail(err, CG_E_PROTOCOL,
                       "zero-copy control block: not sealed against shrinking and growing "
                       "(seals %#x)",
                       seals < 0 ? 0u : (unsigned)seals);
    }
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) return cg_fail(err, CG_E_PLATFORM, "mmap(control block): errno %d", e);
    *map = m;
    return CG_OK;
}

void cg_zc_shm_free(cg_oshandle fd, uint8_t *map, size_t size)
{
    if (map) munmap(map, size);
    if (fd >= 0) close(fd);
}

uint64_t cg_zc_new_ring_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id) {
        /* No entropy source: time and pid still differ between rings. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        id = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
    }
    return id ? id : 1;
}

/* ---- the producer's endpoint: a Unix socket ----------------------------- */

struct cg_zc_listener {
    int fd;      /* the listening socket */
    int wake[2]; /* a pipe: a byte in it stops the waiting thread */
    char path[CG_ZC_PATH_SIZE];
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

/* Socket, bind (mode 0600), listen, and the wake pipe, for l->path. */
static cg_status open_socket(cg_zc_listener *l, cg_err *err)
{
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0) return cg_fail(err, CG_E_PLATFORM, "socket(AF_UNIX): errno %d", errno);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, l->path, strlen(l->path) + 1);
    (void)unlink(l->path); /* a stale socket of an earlier process with our pid */
    /* Between bind and chmod only this uid can reach the socket: its
     * directory is 0700 (umask is process-wide, so it is left alone). */
    int br = bind(l->fd, (struct sockaddr *)&sa, sizeof sa);
    int be = errno;
    if (br != 0 || chmod(l->path, 0600) != 0)
        return cg_fail(err, CG_E_PLATFORM, "bind/chmod(%s): errno %d", l->path, br ? be : errno);
    if (listen(l->fd, 4) != 0)
        return cg_fail(err, CG_E_PLATFORM, "listen(%s): errno %d", l->path, errno);
    if (pipe2(l->wake, O_CLOEXEC) != 0)
        return cg_fail(err, CG_E_PLATFORM, "pipe2: errno %d", errno);
    return CG_OK;
}

cg_status cg_zc_listen(const char *dir_in, uint64_t ring_id, cg_zc_listener **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    char dir[CG_ZC_PATH_SIZE];
    if (dir_in) {
        int n = snprintf(dir, sizeof dir, "%s", dir_in);
        if (n < 0 || (size_t)n >= sizeof dir)
            return cg_fail(err, CG_E_TOO_LARGE, "socket directory too long");
    } else if (cg_zc_socket_dir(dir, sizeof dir) != CG_OK) {
        return cg_fail(err, CG_E_TOO_LARGE, "the socket directory's path does not fit sun_path");
    }
    CG_TRY(safe_dir(dir, err));
    remove_stale(dir);

    cg_zc_listener *l = calloc(1, sizeof *l);
    if (!l) return CG_E_NO_MEMORY;
    l->fd = -1;
    l->wake[0] = l->wake[1] = -1;
    int n = snprintf(l->path, sizeof l->path, "%s/ring-%ld-%016llx.sock", dir, (long)getpid(),
                     (unsigned long long)ring_id);
    cg_status st = n < 0 || (size_t)n >= sizeof l->path
                       ? cg_fail(err, CG_E_TOO_LARGE, "socket path under %s does not fit sun_path",
                                 dir)
                       : open_socket(l, err);
    if (st != CG_OK) {
        cg_zc_listener_close(l);
        return st;
    }
    *out = l;
    return CG_OK;
}

const char *cg_zc_listener_path(const cg_zc_listener *l)
{
    return l ? l->path : "";
}

unsigned cg_zc_listener_wait(cg_zc_listener *l, cg_oshandle learner)
{
    for (;;) {
        struct pollfd p[3] = {{.fd = l->wake[0], .events = POLLIN},
                              {.fd = l->fd, .events = POLLIN},
                              {.fd = learner, .events = POLLIN}};
        int r = poll(p, learner >= 0 ? 3 : 2, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            return CG_ZC_WAIT_STOP;
        }
        if (p[0].revents) return CG_ZC_WAIT_STOP;
        unsigned ev = 0;
        if (learner >= 0 && p[2].revents) ev |= CG_ZC_WAIT_LEARNER;
        if (p[1].revents & POLLIN) ev |= CG_ZC_WAIT_ACCEPT;
        return ev;
    }
}

void cg_zc_listener_wake(cg_zc_listener *l)
{
    char b = 1;
    ssize_t w;
    do {
        w = write(l->wake[1], &b, 1);
    } while (w < 0 && errno == EINTR);
}

cg_oshandle cg_zc_accept(cg_zc_listener *l)
{
    int conn = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
    return conn < 0 ? CG_OSHANDLE_INVALID : conn;
}

int cg_zc_learner_left(cg_oshandle conn)
{
    char b;
    ssize_t n = recv(conn, &b, 1, MSG_DONTWAIT);
    return !(n < 0 && (errno == EAGAIN || errno == EINTR));
}

void cg_zc_hangup(cg_oshandle conn)
{
    if (conn >= 0) close(conn);
}

void cg_zc_listener_close(cg_zc_listener *l)
{
    if (!l) return;
    if (l->fd >= 0) {
        close(l->fd);
        (void)unlink(l->path);
    }
    if (l->wake[0] >= 0) close(l->wake[0]);
    if (l->wake[1] >= 0) close(l->wake[1]);
    free(l);
}

/* ---- the learner's dial ------------------------------------------------- */

cg_status cg_zc_dial(const char *path, cg_oshandle *conn, cg_err *err)
{
    CG_RETURN_IF(!path || !conn, CG_E_INVALID_ARG);
    *conn = CG_OSHANDLE_INVALID;
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
        return cg_fail(err, CG_E_NOT_INITIALIZED, "no zero-copy producer at %s (errno %d)", path,
                       e);
    }
    *conn = c;
    return CG_OK;
}

/* ---- the hello's message ------------------------------------------------ */

/* Room for the most descriptors one hello carries. */
typedef union fd_control {
    char buf[CMSG_SPACE(sizeof(int) * CG_ZC_MAX_HANDLES)];
    struct cmsghdr align;
} fd_control;

int cg_zc_send_handles(cg_oshandle conn, const uint8_t *buf, size_t len, const cg_oshandle *fds,
                       uint32_t n)
{
    if (n > CG_ZC_MAX_HANDLES) return -1;
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    fd_control ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (n) {
        msg.msg_control = ctl.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
    }
    ssize_t w;
    do {
        w = sendmsg(conn, &msg, MSG_NOSIGNAL);
    } while (w < 0 && errno == EINTR);
    return w == (ssize_t)len ? 0 : -1;
}

long cg_zc_recv_handles(cg_oshandle conn, uint8_t *buf, size_t len, cg_oshandle *fds, uint32_t cap,
                        uint32_t *n, int *truncated)
{
    *n = 0;
    *truncated = 0;
    fd_control ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof ctl.buf;
    ssize_t r;
    do {
        r = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    } while (r < 0 && errno == EINTR);
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); r >= 0 && cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        uint32_t k = (uint32_t)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (uint32_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
            if (*n < cap) fds[(*n)++] = fd;
            else close(fd);
        }
    }
    if (r >= 0 && (msg.msg_flags & MSG_CTRUNC)) *truncated = 1;
    return (long)r;
}

int cg_zc_peer_is_same_user(cg_oshandle conn)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
}
