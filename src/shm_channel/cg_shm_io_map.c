/*
 * cg_shm_io_map.c - an object's bytes through a mapping of its current size
 * (macOS: read and write do not work on shared-memory descriptors there, and
 * an object's size is set once, so it cannot shrink under the copy). The
 * mapping is kept and replaced only when the object's size changed; the old
 * one stays until the new one exists. Linux builds use cg_shm_io_fd.c: there
 * an object truncated between the size check and the copy would fault here.
 */
#define _POSIX_C_SOURCE 200809L
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE 1
#endif

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_shm_internal.h"

/* The object's size, mapped. -1 with errno set on failure. */
static int cg_shm_io_map_size(cg_shm_obj *o, size_t *size)
{
    struct stat sb;
    if (fstat(o->fd, &sb) != 0) return -1;
    if (sb.st_size < 0 || (uintmax_t)sb.st_size > (uintmax_t)SIZE_MAX) {
        errno = EFBIG;
        return -1;
    }
    *size = (size_t)sb.st_size;
    if (o->map != NULL && o->map_len == *size) return 0;
    if (*size == 0) {
        cg_shm_io_release(o);
        return 0;
    }
    void *m = mmap(NULL, *size, o->writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
                   o->fd, 0);
    if (m == MAP_FAILED) return -1;
    cg_shm_io_release(o);
    o->map = m;
    o->map_len = *size;
    return 0;
}

ssize_t cg_shm_io_read(cg_shm_obj *o, size_t off, void *dst, size_t len)
{
    size_t size;
    if (cg_shm_io_map_size(o, &size) != 0) return -1;
    if (off >= size) return 0;
    size_t n = len < size - off ? len : size - off;
    if (n != 0) memcpy(dst, o->map + off, n);
    return (ssize_t)n;
}

int cg_shm_io_write(cg_shm_obj *o, size_t off, const void *src, size_t len)
{
    size_t size;
    if (cg_shm_io_map_size(o, &size) != 0) return -1;
    if (len > SIZE_MAX - off) {
        errno = EFBIG;
        return -1;
    }
    if (size < off + len) {
        if (ftruncate(o->fd, (off_t)(off + len)) != 0) return -1;
        if (cg_shm_io_map_size(o, &size) != 0) return -1;
        if (size < off + len) {
            errno = EFBIG; /* it did not grow, or shrank again at once */
            return -1;
        }
    }
    if (len != 0) memcpy(o->map + off, src, len);
    return 0;
}

void cg_shm_io_release(cg_shm_obj *o)
{
    if (o->map != NULL) munmap(o->map, o->map_len);
    o->map = NULL;
    o->map_len = 0;
}
