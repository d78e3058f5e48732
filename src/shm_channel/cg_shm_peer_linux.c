/*
 * cg_shm_peer_linux.c - find the processes that map the channel's objects
 * or semaphores (/proc/<pid>/maps, once, at open) and tell when all of them
 * have exited. glibc keeps shared-memory objects at /dev/shm/<name> and a
 * named semaphore at /dev/shm/sem.<name>; the Python side maps its
 * semaphores for as long as it runs. Each found process is held by an open
 * /proc/<pid>/stat descriptor, which keeps naming that process even if its
 * pid is reused: reading it fails once the process is reaped.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg_shm_internal.h"

#define CG_SHM_PATH_MAX 80

/* Does this /proc/<pid>/maps line end in " <path>"? */
static int cg_shm_line_is(const char *line, size_t len, const char *path, size_t plen)
{
    if (len > 0 && line[len - 1] == '\n') len--;
    return len > plen && line[len - plen - 1] == ' ' && memcmp(line + len - plen, path, plen) == 0;
}

static int cg_shm_maps_any(pid_t pid, char paths[4][CG_SHM_PATH_MAX])
{
    char file[64];
    snprintf(file, sizeof file, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(file, "re");
    if (f == NULL) return 0; /* gone, or not ours to read */
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        size_t len = strlen(line);
        for (int i = 0; i < 4 && !found; i++)
            found = cg_shm_line_is(line, len, paths[i], strlen(paths[i]));
    }
    fclose(f);
    return found;
}

int cg_shm_peer_find(cg_shm_peer *p, const char *const names[4])
{
    p->n = 0;
    char paths[4][CG_SHM_PATH_MAX];
    /* names[0..1] are objects ("/craftground_..."), names[2..3] semaphores. */
    for (int i = 0; i < 4; i++)
        snprintf(paths[i], sizeof paths[i], i < 2 ? "/dev/shm%s" : "/dev/shm/sem.%s",
                 i < 2 ? names[i] : names[i] + 1);
    DIR *d = opendir("/proc");
    if (d == NULL) return 0;
    pid_t self = getpid();
    struct dirent *e;
    while (p->n < CG_SHM_PEER_MAX && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || (pid_t)pid == self) continue;
        if (!cg_shm_maps_any((pid_t)pid, paths)) continue;
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
