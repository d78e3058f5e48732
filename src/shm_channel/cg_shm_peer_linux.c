/*
 * cg_shm_peer_linux.c - find the processes that hold the channel's objects
 * or semaphores (once, at open) and tell when all of them have exited.
 *
 * A process is recognised by what it holds, not by a name: the device and
 * inode of each object (/dev/shm/<name>) and semaphore (/dev/shm/sem.<name>,
 * glibc's place for them) are compared with the device and inode columns of
 * every line of /proc/<pid>/maps, then with what each of its descriptors
 * leads to. Names would miss the real Python side: the process that creates
 * a named semaphore maps glibc's temporary file, listed as
 * "/dev/shm/sem.<6 random characters> (deleted)" (the same inode, linked to
 * the final name), and CraftGround's peer maps its objects only for the
 * length of a call, so between calls its semaphores are all it maps.
 *
 * Each found process is held by an open /proc/<pid>/stat descriptor, which
 * keeps naming that process even if its pid is reused: reading it fails once
 * the process is reaped.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cg_shm_internal.h"

#define CG_SHM_PATH_MAX 80

/* The device and inode of one of the channel's objects or semaphores. */
typedef struct cg_shm_ident {
    unsigned maj, min;
    unsigned long long ino;
} cg_shm_ident;

static int cg_shm_ident_is(const cg_shm_ident *id, int n, unsigned maj, unsigned min,
                           unsigned long long ino)
{
    for (int i = 0; i < n; i++)
        if (id[i].ino == ino && id[i].maj == maj && id[i].min == min) return 1;
    return 0;
}

/* Does a line of /proc/<pid>/maps ("start-end perms offset MAJ:MIN inode
 * path") map one of them? Anonymous mappings have inode 0, never ours. */
static int cg_shm_maps_any(pid_t pid, const cg_shm_ident *id, int n)
{
    char file[64];
    snprintf(file, sizeof file, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(file, "re");
    if (f == NULL) return 0; /* gone, or not ours to read */
    char line[512];
    int found = 0, whole = 1;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        /* A path longer than the buffer continues on the next read: only
         * the read that starts a line holds its columns. */
        int starts = whole;
        whole = strchr(line, '\n') != NULL;
        unsigned maj, min;
        unsigned long long ino;
        if (starts && sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &ino) == 3 &&
            ino != 0)
            found = cg_shm_ident_is(id, n, maj, min, ino);
    }
    fclose(f);
    return found;
}

/* Does one of its descriptors lead to one of them? (A peer may hold an
 * object open between calls without mapping it.) */
static int cg_shm_fds_any(pid_t pid, const cg_shm_ident *id, int n)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(dir);
    if (d == NULL) return 0;
    int dfd = dirfd(d), found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        struct stat sb;
        if (e->d_name[0] == '.' || fstatat(dfd, e->d_name, &sb, 0) != 0) continue;
        found = cg_shm_ident_is(id, n, major(sb.st_dev), minor(sb.st_dev),
                                (unsigned long long)sb.st_ino);
    }
    closedir(d);
    return found;
}

int cg_shm_peer_find(cg_shm_peer *p, const char *const names[4])
{
    p->n = 0;
    /* names[0..1] are objects ("/craftground_..."), names[2..3] semaphores. */
    cg_shm_ident id[4];
    int n = 0;
    for (int i = 0; i < 4; i++) {
        char path[CG_SHM_PATH_MAX];
        snprintf(path, sizeof path, i < 2 ? "/dev/shm%s" : "/dev/shm/sem.%s",
                 i < 2 ? names[i] : names[i] + 1);
        struct stat sb;
        if (stat(path, &sb) != 0) continue; /* gone already: nothing holds it by name */
        id[n++] = (cg_shm_ident){major(sb.st_dev), minor(sb.st_dev), (unsigned long long)sb.st_ino};
    }
    if (n == 0) return 1;
    DIR *d = opendir("/proc");
    if (d == NULL) return 0;
    pid_t self = getpid();
    struct dirent *e;
    while (p->n < CG_SHM_PEER_MAX && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || (pid_t)pid == self) continue;
        if (!cg_shm_maps_any((pid_t)pid, id, n) && !cg_shm_fds_any((pid_t)pid, id, n)) continue;
        char file[64];
        snprintf(file, sizeof file, "/proc/%ld/stat", pid);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) p->fd[p->n++] = fd;
    }
    closedir(d);
    return 1;
}

/* A process is alive while its stat reads and its state is not zombie. */
static int cg_shm_proc_alive(int fd)
{
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold ')' */
    if (paren == NULL || paren[1] != ' ') return 1;
    char state = paren[2];
    return state != 'Z' && state != 'X' && state != 'x';
}

int cg_shm_peer_gone(cg_shm_peer *p)
{
    if (p->n == 0) return 0;
    for (int i = 0; i < p->n; i++)
        if (cg_shm_proc_alive(p->fd[i])) return 0;
    return 1;
}

void cg_shm_peer_release(cg_shm_peer *p)
{
    for (int i = 0; i < p->n; i++) close(p->fd[i]);
    p->n = 0;
}

int cg_shm_fd_unlinked(int fd)
{
    struct stat sb;
    return fstat(fd, &sb) == 0 && sb.st_nlink == 0;
}
