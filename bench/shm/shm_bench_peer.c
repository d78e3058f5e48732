/*
 * shm_bench_peer.c - the Python side of the shared-memory channel, in C, for
 * the round-trip benchmark (bench/shm/ShmBench.java starts it and plays the
 * mod's side through the real natives; shm_bench_peer.py is the same peer in
 * Python).
 *
 * One step over the channel: write a 24-byte action at 136, set action_size,
 * post /cg_sem_act<port>; the JVM's readActionImpl returns it and its
 * writeObservationImpl publishes a RAW 640x360 observation (691,200 bytes);
 * we wait on /cg_sem_obs<port> and copy the message out of j2p through a
 * mapping kept for the whole run (what the Python side's bytes() does). The
 * limit, measured in the same run in alternating blocks of rounds: the same
 * bytes over a Unix SocketChannel of the JVM between the same two processes
 * (24 bytes to the JVM, 691,200 back, received into the same buffer). Prints
 * medians and the ratio.
 *
 * Usage: shm_bench_peer PORT ROUNDS SOCKET_PATH
 * (prints "ready" once the objects exist and the socket is connected)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../bench_util.h"

enum { ACTION = 24, ENV = 64, OBS = 640 * 360 * 3, BLOCK = 25, WARM_BLOCKS = 2 };

static char p2j_name[64], j2p_name[64], obs_name[64], act_name[64];

static void cleanup(void)
{
    shm_unlink(p2j_name);
    shm_unlink(j2p_name);
    sem_unlink(obs_name);
    sem_unlink(act_name);
}

static void die(const char *what)
{
    fprintf(stderr, "shm_bench_peer: %s: %s\n", what, strerror(errno));
    cleanup();
    exit(1);
}

static int full_io(int fd, uint8_t *buf, size_t len, int writing)
{
    while (len > 0) {
        ssize_t n = writing ? write(fd, buf, len) : read(fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static void wait_sem(sem_t *s)
{
    while (sem_wait(s) != 0)
        if (errno != EINTR) die("sem_wait");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: shm_bench_peer PORT ROUNDS SOCKET_PATH\n");
        return 2;
    }
    int port = atoi(argv[1]), rounds = atoi(argv[2]);
    if (port <= 0 || rounds < BLOCK) {
        fprintf(stderr, "shm_bench_peer: PORT > 0, ROUNDS >= %d\n", BLOCK);
        return 2;
    }
    rounds -= rounds % BLOCK;
    snprintf(p2j_name, sizeof p2j_name, "/craftground_%d_p2j", port);
    snprintf(j2p_name, sizeof j2p_name, "/craftground_%d_j2p", port);
    snprintf(obs_name, sizeof obs_name, "/cg_sem_obs%d", port);
    snprintf(act_name, sizeof act_name, "/cg_sem_act%d", port);
    cleanup();

    /* The objects and header, as the Python side makes them. */
    size_t p2j_size = 136 + ACTION + ENV;
    int pfd = shm_open(p2j_name, O_CREAT | O_RDWR, 0666);
    int jfd = shm_open(j2p_name, O_CREAT | O_RDWR, 0666);
    if (pfd < 0 || jfd < 0) die("shm_open");
    if (ftruncate(pfd, (off_t)p2j_size) != 0 || ftruncate(jfd, 24 + ENV) != 0) die("ftruncate");
    uint8_t *p2j = mmap(NULL, p2j_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    if (p2j == MAP_FAILED) die("mmap p2j");
    sem_t *sem_obs = sem_open(obs_name, O_CREAT, 0666, 0);
    sem_t *sem_act = sem_open(act_name, O_CREAT, 0666, 0);
    if (sem_obs == SEM_FAILED || sem_act == SEM_FAILED) die("sem_open");
    uint64_t hdr[5] = {0, 136, ACTION, 136 + ACTION, ENV};
    memcpy(p2j, hdr, sizeof hdr);
    memcpy(p2j + 56, obs_name, strlen(obs_name) + 1);
    memcpy(p2j + 104, act_name, strlen(act_name) + 1);
    memset(p2j + 136 + ACTION, 7, ENV);
    /* The limit: the JVM's Unix SocketChannel. */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(argv[3]) >= sizeof sa.sun_path) die("socket path too long");
    strcpy(sa.sun_path, argv[3]);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof sa) != 0) die("connect");
    printf("ready\n");
    fflush(stdout);

    uint8_t *out = malloc(OBS), *obs = malloc(OBS);
    double *t_shm = malloc(sizeof(double) * (size_t)rounds);
    double *t_sock = malloc(sizeof(double) * (size_t)rounds);
    double *t_copy = malloc(sizeof(double) * (size_t)rounds);
    if (out == NULL || obs == NULL || t_shm == NULL || t_sock == NULL || t_copy == NULL)
        die("malloc");
    memset(obs, 0x5a, OBS);
    memset(out, 0, OBS);

    /* The handshake ack. */
    wait_sem(sem_obs);
    uint8_t *j2p = NULL;
    size_t j2p_len = 0;
    uint8_t action[ACTION];
    int bad = 0;
    for (int b = -WARM_BLOCKS; b < rounds / BLOCK; b++) {
        for (int i = 0; i < BLOCK; i++) {
            int r = b * BLOCK + i;
            for (int k = 0; k < ACTION; k++) action[k] = (uint8_t)(r + k);
            double t0 = bench_now_us();
            memcpy(p2j + 136, action, ACTION);
            memcpy(p2j + 16, &(uint64_t){ACTION}, 8);
            sem_post(sem_act);
            wait_sem(sem_obs);
            /* Read as Python does: header, then data_size bytes at data_offset,
             * through one mapping kept for the run (made again only when the
             * message does not fit it). */
            if (j2p_len < 24 + OBS) {
                struct stat sb;
                if (fstat(jfd, &sb) != 0) die("fstat");
                if (j2p != NULL) munmap(j2p, j2p_len);
                j2p_len = (size_t)sb.st_size;
                j2p = mmap(NULL, j2p_len, PROT_READ, MAP_SHARED, jfd, 0);
                if (j2p == MAP_FAILED) die("mmap j2p");
            }
            uint64_t off, len;
            memcpy(&off, j2p + 8, 8);
            memcpy(&len, j2p + 16, 8);
            if (off != 24 || len != OBS || j2p_len < 24 + OBS) {
                bad = 1;
                break;
            }
            memcpy(out, j2p + off, len);
            double t1 = bench_now_us();
            if (r >= 0) t_shm[r] = t1 - t0;
        }
        if (bad) break;
        for (int i = 0; i < BLOCK; i++) {
            int r = b * BLOCK + i;
            double t0 = bench_now_us();
            if (full_io(sock, action, ACTION, 1) != 0 || full_io(sock, out, OBS, 0) != 0)
                die("socket");
            double t1 = bench_now_us();
            memcpy(out, obs, OBS);
            double t2 = bench_now_us();
            if (r >= 0) {
                t_sock[r] = t1 - t0;
                t_copy[r] = t2 - t1;
            }
        }
    }
    close(sock);
    cleanup();
    if (bad) {
        fprintf(stderr, "shm_bench_peer: unexpected message header\n");
        return 1;
    }
    double shm = bench_median(t_shm, rounds), lim = bench_median(t_sock, rounds);
    double cpy = bench_median(t_copy, rounds);
    printf("C peer (kept j2p mapping): one step, a %d-byte action to the JVM and a RAW 640x360 "
           "observation (%d bytes) back; medians of %d steps each, alternating blocks of %d\n",
           ACTION, OBS, rounds, BLOCK);
    printf("  shared-memory channel (readActionImpl + writeObservationImpl)  %8.1f us\n", shm);
    printf("  limit: Unix SocketChannel, same bytes, same two processes       %8.1f us\n", lim);
    printf("  (one memcpy of the observation: %.1f us; channel = %.2fx memcpy)\n", cpy,
           shm / cpy);
    printf("  ratio channel/socket: %.2f (target < 1) %s\n", shm / lim,
           shm < lim ? "MET" : "MISSED");
    return 0;
}
