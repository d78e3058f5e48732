/*
 * cg_shm_io_fd.c - an object's bytes through pread/pwrite on its descriptor
 * (Linux, where read and write work on shared-memory objects). The other
 * process may truncate the object at any moment; a copy through a mapping
 * would then fault (SIGBUS, fatal to the JVM), but the kernel's copy stops at
 * the object's end and returns a short count instead. pwrite past the end
 * grows the object, which is what a write wants anyway.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <unistd.h>

#include "cg_shm_internal.h"

ssize_t cg_shm_io_read(cg_shm_obj *o, size_t off, void *dst, size_t len)
{
    uint8_t *d = dst;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(o->fd, d + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break; /* the object ends here */
        done += (size_t)n;
    }
    return (ssize_t)done;
}

int cg_shm_io_write(cg_shm_obj *o, size_t off, const void *src, size_t len)
{
    const uint8_t *s = src;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(o->fd, s + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

void cg_shm_io_release(cg_shm_obj *o)
{
    (void)o;
}
