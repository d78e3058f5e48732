/*
 * cg_zc_transport_posix.c - the zero-copy v2 transport on Linux
 * (cg_zc_transport.h): memfd_create with seals, SCM_RIGHTS, SO_PEERCRED.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS, struct ucred, SO_PEERCRED */
#include "cg_zc_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_zc_proto.h" /* CG_ZC_MAX_FDS */

cg_status cg_zc_shm_create(const char *name, size_t size, int *fd, uint8_t **map, cg_err *err)
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

cg_status cg_zc_shm_map(int fd, size_t size, uint8_t **map, cg_err *err)
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

void cg_zc_shm_free(int fd, uint8_t *map, size_t size)
{
    if (map) munmap(map, size);
    if (fd >= 0) close(fd);
}

/* Room for the most descriptors one hello carries. */
typedef union fd_control {
    char buf[CMSG_SPACE(sizeof(int) * CG_ZC_MAX_FDS)];
    struct cmsghdr align;
} fd_control;

int cg_zc_send_fds(int conn, const uint8_t *buf, size_t len, const int *fds, uint32_t n)
{
    if (n > CG_ZC_MAX_FDS) return -1;
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

long cg_zc_recv_fds(int conn, uint8_t *buf, size_t len, int *fds, uint32_t cap, uint32_t *n,
                    int *truncated)
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

int cg_zc_peer_is_same_user(int conn)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
}
