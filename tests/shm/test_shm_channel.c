/*
 * The shared-memory channel's C API against objects this test makes the way
 * the Python side does (shm_open + ftruncate + a hand-written header, named
 * semaphores at 0). Expected bytes and sizes are written out here, never
 * taken from the code under test.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg_shm_channel.h"
#include "check_tcase.h"
#include "ck_main.h"

/* ---- the Python side, in C ------------------------------------------- */

enum { ACT = 16, ENV = 40, P2J_SIZE = 136 + ACT + ENV };

typedef struct side {
    int port;
    char p2j[64], j2p[64], obs[64], act[64];
    int p2j_fd, j2p_fd;
    uint8_t *map; /* p2j, P2J_SIZE bytes */
    sem_t *sem_obs, *sem_act;
    pid_t holder; /* the Python side's process: maps everything, sleeps */
} side;

static int next_port(void)
{
    static int k;
    /* Distinct per process and per call: parallel runs never meet. */
    return 300000 + (int)(getpid() % 100000) * 16 + k++ % 16;
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
    memcpy(b + off, &v, 8);
}

static uint64_t get64(const uint8_t *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, 8);
    return v;
}

static void side_unlink(side *s)
{
    shm_unlink(s->p2j);
    shm_unlink(s->j2p);
    sem_unlink(s->obs);
    sem_unlink(s->act);
}

static void side_names(side *s, int port)
{
    memset(s, 0, sizeof *s);
    s->port = port;
    snprintf(s->p2j, sizeof s->p2j, "/craftground_%d_p2j", port);
    snprintf(s->j2p, sizeof s->j2p, "/craftground_%d_j2p", port);
    snprintf(s->obs, sizeof s->obs, "/cg_sem_obs%d", port);
    snprintf(s->act, sizeof s->act, "/cg_sem_act%d", port);
}

static void side_create_port(side *s, int port)
{
    side_names(s, port);
    side_unlink(s);
    s->p2j_fd = shm_open(s->p2j, O_CREAT | O_RDWR, 0666);
    ck_assert_int_ge(s->p2j_fd, 0);
    ck_assert_int_eq(ftruncate(s->p2j_fd, P2J_SIZE), 0);
    s->j2p_fd = shm_open(s->j2p, O_CREAT | O_RDWR, 0666);
    ck_assert_int_ge(s->j2p_fd, 0);
    ck_assert_int_eq(ftruncate(s->j2p_fd, 24 + ENV), 0);
    s->map = mmap(NULL, P2J_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->p2j_fd, 0);
    ck_assert_ptr_ne(s->map, MAP_FAILED);
    s->sem_obs = sem_open(s->obs, O_CREAT, 0666, 0);
    s->sem_act = sem_open(s->act, O_CREAT, 0666, 0);
    ck_assert_ptr_ne(s->sem_obs, SEM_FAILED);
    ck_assert_ptr_ne(s->sem_act, SEM_FAILED);
    put64(s->map, 8, 136);
    put64(s->map, 16, ACT);
    put64(s->map, 24, 136 + ACT);
    put64(s->map, 32, ENV);
    memset(s->map + 40, 0xAB, 16); /* the peer's process-local pointers */
    memset(s->map + 88, 0xCD, 16);
    memcpy(s->map + 56, s->obs, strlen(s->obs) + 1);
    memcpy(s->map + 104, s->act, strlen(s->act) + 1);
    for (int i = 0; i < ENV; i++) s->map[136 + ACT + i] = (uint8_t)(100 + i);
}

/* The Python side is another process (a process's own mappings do not count
 * as a peer's): a child that inherits every mapping and sleeps until
 * side_destroy kills it. */
static void side_hold(side *s)
{
    s->holder = fork();
    ck_assert_int_ge(s->holder, 0);
    if (s->holder == 0)
        for (;;) pause();
}

/* A live process mapping objects somebody else made (side_names first). */
static void side_hold_existing(side *s)
{
    s->p2j_fd = shm_open(s->p2j, O_RDWR, 0);
    ck_assert_int_ge(s->p2j_fd, 0);
    s->j2p_fd = shm_open(s->j2p, O_RDWR, 0);
    ck_assert_int_ge(s->j2p_fd, 0);
    s->map = mmap(NULL, P2J_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->p2j_fd, 0);
    ck_assert_ptr_ne(s->map, MAP_FAILED);
    s->sem_obs = sem_open(s->obs, 0);
    s->sem_act = sem_open(s->act, 0);
    ck_assert_ptr_ne(s->sem_obs, SEM_FAILED);
    ck_assert_ptr_ne(s->sem_act, SEM_FAILED);
    side_hold(s);
}

static void side_create(side *s)
{
    side_create_port(s, next_port());
    side_hold(s);
}

static void side_destroy(side *s)
{
    if (s->holder > 0) {
        kill(s->holder, SIGKILL);
        waitpid(s->holder, NULL, 0);
        s->holder = 0;
    }
    side_unlink(s);
    if (s->map != NULL && s->map != MAP_FAILED) munmap(s->map, P2J_SIZE);
    close(s->p2j_fd);
    close(s->j2p_fd);
    sem_close(s->sem_obs);
    sem_close(s->sem_act);
}

static void side_action(side *s, const uint8_t *data, size_t len)
{
    memcpy(s->map + 136, data, len);
    put64(s->map, 16, len);
    ck_assert_int_eq(sem_post(s->sem_act), 0);
}

/* A sink that keeps a copy. */
typedef struct got {
    uint8_t buf[4096];
    size_t len;
    int calls;
    int finished_ok; /* finish(ok) calls with ok = 1 */
} got;

static cg_status keep_reserve(void *user, size_t len, uint8_t **dst)
{
    got *g = user;
    if (len > sizeof g->buf) return CG_E_BUFFER_TOO_SMALL;
    *dst = g->buf;
    g->len = len;
    g->calls++;
    return CG_OK;
}

static void keep_finish(void *user, int ok)
{
    ((got *)user)->finished_ok += ok;
}

static cg_status refuse_reserve(void *user, size_t len, uint8_t **dst)
{
    (void)len;
    (void)dst;
    ((got *)user)->calls++;
    return CG_E_NO_MEMORY;
}

/* The sinks over a `got`. */
#define KEEP(g) (&(cg_shm_sink){keep_reserve, keep_finish, (g)})
#define REFUSE(g) (&(cg_shm_sink){refuse_reserve, keep_finish, (g)})

static cg_shm_channel *open_ok(const side *s)
{
    cg_shm_channel *ch = NULL;
    cg_err why = {""};
    cg_status st = cg_shm_channel_open(&ch, s->port, &why);
    ck_assert_msg(st == CG_OK, "open: %s: %s", cg_status_name(st), why.text);
    ck_assert_ptr_nonnull(ch);
    return ch;
}

/* ---- names ------------------------------------------------------------ */

START_TEST(names)
{
    int port = -1;
    cg_shm_dir dir = CG_SHM_J2P;
    ck_assert_int_eq(cg_shm_parse_name("/craftground_8000_p2j", &port, &dir), CG_OK);
    ck_assert_int_eq(port, 8000);
    ck_assert_int_eq(dir, CG_SHM_P2J);
    ck_assert_int_eq(cg_shm_parse_name("/craftground_0_j2p", &port, &dir), CG_OK);
    ck_assert_int_eq(port, 0);
    ck_assert_int_eq(dir, CG_SHM_J2P);
    ck_assert_int_eq(cg_shm_parse_name("/craftground_2147483647_p2j", &port, NULL), CG_OK);
    ck_assert_int_eq(port, 2147483647);
    static const char *const bad[] = {
        "", "/", "/craftground_", "/craftground__p2j", "/craftground_8000_", "/craftground_8000",
        "craftground_8000_p2j", "/Craftground_8000_p2j", "/craftground_08000_p2j",
        "/craftground_-1_p2j", "/craftground_+1_p2j", "/craftground_ 1_p2j",
        "/craftground_2147483648_p2j", "/craftground_99999999999999999999_p2j",
        "/craftground_8000_p2jx", "/craftground_8000_P2J", "/craftground_8000_p2j/",
        "/craftground_8000_p2 ", "Global\\craftground_8000_p2j", "//craftground_8000_p2j"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        port = 77;
        ck_assert_msg(cg_shm_parse_name(bad[i], &port, &dir) == CG_E_INVALID_ARG, "%s", bad[i]);
        ck_assert_int_eq(port, 77); /* untouched on failure */
    }
    ck_assert_int_eq(cg_shm_parse_name(NULL, &port, &dir), CG_E_INVALID_ARG);

    char buf[CG_SHM_NAME_MAX];
    ck_assert_int_eq(cg_shm_make_name(buf, sizeof buf, 2147483647, CG_SHM_J2P), CG_OK);
    ck_assert_str_eq(buf, "/craftground_2147483647_j2p");
    ck_assert_int_eq(cg_shm_make_name(buf, sizeof buf, -1, CG_SHM_J2P), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_shm_make_name(buf, 10, 1, CG_SHM_J2P), CG_E_INVALID_ARG);
}
END_TEST

/* ---- open ------------------------------------------------------------- */

START_TEST(open_absent)
{
    cg_shm_channel *ch = (cg_shm_channel *)&ch;
    cg_err why = {""};
    int port = next_port();
    ck_assert_int_eq(cg_shm_channel_open(&ch, port, &why), CG_E_CHANNEL_ABSENT);
    ck_assert_ptr_null(ch);
    char name[64];
    snprintf(name, sizeof name, "/craftground_%d_p2j", port);
    ck_assert_msg(strstr(why.text, name) != NULL, "%s", why.text);
    ck_assert_int_eq(cg_shm_channel_open(&ch, -1, &why), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_shm_channel_open(NULL, 1, NULL), CG_E_INVALID_ARG);
    cg_shm_channel_close(NULL);
}
END_TEST

/* Each case breaks one rule; open must refuse it without touching memory
 * outside the object. */
typedef struct corrupt_case {
    const char *what;
    size_t at;
    uint64_t value;   /* stored at `at` when text is NULL */
    const char *text; /* else these 30 bytes (NUL-padded) are stored */
    cg_status want;
} corrupt_case;

static const corrupt_case corrupt_cases[] = {
    {"action offset past the end", 8, P2J_SIZE + 1, NULL, CG_E_CHANNEL_CORRUPT},
    {"action offset in the header", 8, 135, NULL, CG_E_CHANNEL_CORRUPT},
    {"action offset near 2^64", 8, UINT64_MAX - 7, NULL, CG_E_CHANNEL_CORRUPT},
    {"action size one past the end", 16, P2J_SIZE - 136 + 1, NULL, CG_E_CHANNEL_CORRUPT},
    {"action size 2^64-1", 16, UINT64_MAX, NULL, CG_E_CHANNEL_CORRUPT},
    {"environment offset 0", 24, 0, NULL, CG_E_CHANNEL_CORRUPT},
    {"environment offset past the end", 24, P2J_SIZE + 8, NULL, CG_E_CHANNEL_CORRUPT},
    {"environment size one past the end", 32, ENV + 1, NULL, CG_E_CHANNEL_CORRUPT},
    {"environment size 2^63", 32, (uint64_t)1 << 63, NULL, CG_E_CHANNEL_CORRUPT},
    {"obs semaphore of another port", 56, 0, "/cg_sem_obs1", CG_E_CHANNEL_CORRUPT},
    {"act semaphore named obs", 104, 0, "/cg_sem_obs", CG_E_CHANNEL_CORRUPT},
    {"act semaphore not NUL-terminated", 104, 0, "/cg_sem_actXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
     CG_E_CHANNEL_CORRUPT},
    {"obs semaphore empty", 56, 0, "", CG_E_CHANNEL_CORRUPT},
};

START_TEST(open_corrupt)
{
    const corrupt_case *c = &corrupt_cases[_i];
    side s;
    side_create(&s);
    if (c->text == NULL) {
        put64(s.map, c->at, c->value);
    } else {
        char field[31] = {0};
        strncpy(field, c->text, 30);
        memcpy(s.map + c->at, field, 30);
    }
    cg_shm_channel *ch = NULL;
    cg_err why = {""};
    cg_status st = cg_shm_channel_open(&ch, s.port, &why);
    ck_assert_msg(st == c->want, "%s: %s (%s)", c->what, cg_status_name(st), why.text);
    ck_assert_ptr_null(ch);
    ck_assert_msg(strstr(why.text, s.p2j) != NULL, "%s: %s", c->what, why.text);
    side_destroy(&s);
}
END_TEST

START_TEST(open_tiny_and_missing_parts)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = NULL;
    cg_err why = {""};
    ck_assert_int_eq(ftruncate(s.p2j_fd, 135), 0);
    ck_assert_int_eq(cg_shm_channel_open(&ch, s.port, &why), CG_E_CHANNEL_CORRUPT);
    ck_assert_int_eq(ftruncate(s.p2j_fd, 0), 0);
    ck_assert_int_eq(ftruncate(s.p2j_fd, P2J_SIZE), 0); /* all zero: header never written */
    ck_assert_int_eq(cg_shm_channel_open(&ch, s.port, &why), CG_E_CHANNEL_CORRUPT);
    side_destroy(&s);

    side_create(&s);
    shm_unlink(s.j2p);
    ck_assert_int_eq(cg_shm_channel_open(&ch, s.port, &why), CG_E_CHANNEL_ABSENT);
    side_destroy(&s);
    side_create(&s);
    sem_unlink(s.act);
    ck_assert_int_eq(cg_shm_channel_open(&ch, s.port, &why), CG_E_CHANNEL_ABSENT);
    ck_assert_msg(strstr(why.text, s.act) != NULL, "%s", why.text);
    ck_assert_ptr_null(ch);
    side_destroy(&s);
}
END_TEST

/* ---- reads ------------------------------------------------------------ */

START_TEST(initial_environment)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    ck_assert_int_eq(cg_shm_channel_port(ch), s.port);
    got g = {0};
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, ENV);
    uint8_t want[ENV];
    for (int i = 0; i < ENV; i++) want[i] = (uint8_t)(100 + i);
    ck_assert_mem_eq(g.buf, want, ENV);
    /* Corrupted after open: refused, then fine again. */
    put64(s.map, 32, ENV + 1);
    cg_err why;
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, KEEP(&g), &why),
                     CG_E_CHANNEL_CORRUPT);
    ck_assert_ptr_nonnull(strstr(why.text, "initial environment"));
    put64(s.map, 32, ENV);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, NULL, NULL), CG_E_INVALID_ARG);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

START_TEST(actions)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    got g = {0};
    static const uint8_t a1[] = {1, 2, 3, 4, 5};
    side_action(&s, a1, sizeof a1);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, 5);
    ck_assert_mem_eq(g.buf, a1, 5);
    /* Longer than the initial action area (over the environment bytes) but
     * inside the object: allowed, as Python writes it. */
    uint8_t a2[ACT + ENV];
    for (size_t i = 0; i < sizeof a2; i++) a2[i] = (uint8_t)(i * 3);
    side_action(&s, a2, sizeof a2);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, sizeof a2);
    ck_assert_mem_eq(g.buf, a2, sizeof a2);
    /* Empty action. */
    side_action(&s, a1, 0);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, 0);
    /* One past the object: the post is consumed, nothing read. */
    g.calls = 0;
    put64(s.map, 16, ACT + ENV + 1);
    sem_post(s.sem_act);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CORRUPT);
    ck_assert_int_eq(g.calls, 0);
    /* A failing sink gives the post back: the same action comes again. */
    side_action(&s, a1, 3);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, REFUSE(&g), NULL), CG_E_NO_MEMORY);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, 3);
    ck_assert_mem_eq(g.buf, a1, 3);
    /* Nothing posted twice: the semaphore is back at 0. */
    ck_assert_int_eq(sem_trywait(s.sem_act), -1);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

START_TEST(action_after_shrink)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    got g = {0};
    static const uint8_t a[ACT] = {9, 8, 7};
    /* Header still there, action no longer inside. */
    side_action(&s, a, ACT);
    ck_assert_int_eq(ftruncate(s.p2j_fd, 140), 0);
    cg_err why;
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), &why), CG_E_CHANNEL_CORRUPT);
    ck_assert_ptr_nonnull(strstr(why.text, "140"));
    /* Header gone. */
    ck_assert_int_eq(ftruncate(s.p2j_fd, 64), 0);
    sem_post(s.sem_act);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CORRUPT);
    /* Grown back: remapped, readable again. */
    ck_assert_int_eq(ftruncate(s.p2j_fd, 4096), 0);
    put64(s.map, 8, 136);
    side_action(&s, a, ACT);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_mem_eq(g.buf, a, ACT);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

/* ---- writes ----------------------------------------------------------- */

static off_t fsize(int fd)
{
    struct stat sb;
    ck_assert_int_eq(fstat(fd, &sb), 0);
    return sb.st_size;
}

/* Reads the message as the Python side does: header, then 24 + data_size. */
static size_t py_read(const side *s, uint8_t *dst, size_t cap)
{
    ck_assert_int_eq(sem_trywait(s->sem_obs), 0);
    ck_assert_int_eq(sem_trywait(s->sem_obs), -1); /* exactly one post */
    uint8_t h[24];
    ck_assert_int_eq(pread(s->j2p_fd, h, 24, 0), 24);
    ck_assert_uint_eq(get64(h, 8), 24);
    size_t n = (size_t)get64(h, 16);
    ck_assert_uint_le(n, cap);
    ck_assert_int_ge(fsize(s->j2p_fd), (off_t)(24 + n));
    ck_assert_int_eq(pread(s->j2p_fd, dst, n, 24), (ssize_t)n);
    return n;
}

START_TEST(writes_grow_never_shrink)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    enum { BIG = 640 * 360 * 3 };
    uint8_t *msg = malloc(BIG), *back = malloc(BIG);
    ck_assert_ptr_nonnull(msg);
    ck_assert_ptr_nonnull(back);
    for (size_t i = 0; i < BIG; i++) msg[i] = (uint8_t)((i * 2654435761u) >> 16);
    /* Fits the object Python made (24 + ENV bytes): no growth. */
    ck_assert_int_eq(cg_shm_channel_write(ch, msg, 10, NULL), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + ENV);
    ck_assert_uint_eq(py_read(&s, back, BIG), 10);
    ck_assert_mem_eq(back, msg, 10);
    /* RAW 640x360: grows to exactly 24 + 691200. */
    ck_assert_int_eq(cg_shm_channel_write(ch, msg, BIG, NULL), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 691200);
    ck_assert_uint_eq(py_read(&s, back, BIG), BIG);
    ck_assert_int_eq(memcmp(back, msg, BIG), 0);
    /* Smaller again: never shrunk. */
    ck_assert_int_eq(cg_shm_channel_write(ch, msg + 7, 3, NULL), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 691200);
    ck_assert_uint_eq(py_read(&s, back, BIG), 3);
    ck_assert_mem_eq(back, msg + 7, 3);
    /* Shrunk under us to nothing: grown back before writing. */
    ck_assert_int_eq(ftruncate(s.j2p_fd, 0), 0);
    ck_assert_int_eq(cg_shm_channel_write(ch, msg, 1000, NULL), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 1000);
    ck_assert_uint_eq(py_read(&s, back, BIG), 1000);
    ck_assert_mem_eq(back, msg, 1000);
    /* Empty message. */
    ck_assert_int_eq(cg_shm_channel_write(ch, NULL, 0, NULL), CG_OK);
    ck_assert_uint_eq(py_read(&s, back, BIG), 0);
    free(msg);
    free(back);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

START_TEST(write_overflow)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    /* The lengths are refused before a byte of `one` is read. */
    static const uint8_t one[1] = {1};
    ck_assert_int_eq(cg_shm_channel_write(ch, one, SIZE_MAX, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_shm_channel_write(ch, one, SIZE_MAX - 23, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_shm_channel_write(ch, one, (size_t)INT64_MAX, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + ENV);
    ck_assert_int_eq(sem_trywait(s.sem_obs), -1);
    ck_assert_int_eq(cg_shm_channel_write(ch, NULL, 4, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, NULL, NULL), CG_E_INVALID_ARG);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

/* ---- the peer going away ---------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

START_TEST(closed_when_unlinked)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    got g = {0};
    /* The Python side exits cleanly: its objects go. */
    shm_unlink(s.p2j);
    shm_unlink(s.j2p);
    double t0 = now_s();
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CLOSED);
    ck_assert_double_lt(now_s() - t0, 10.0); /* hang detector, not a speed limit */
    ck_assert_int_eq(g.calls, 0);
    /* Closed for good, also for writes. */
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CLOSED);
    ck_assert_int_eq(cg_shm_channel_write(ch, (const uint8_t *)"x", 1, NULL), CG_E_CHANNEL_CLOSED);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL), CG_E_CHANNEL_CLOSED);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

#if defined(__linux__)
/* Linux only: macOS gives shared-memory objects no inode to compare. */
START_TEST(closed_when_replaced)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    got g = {0};
    /* A new Python session made new objects under the same names. */
    shm_unlink(s.p2j);
    int fd = shm_open(s.p2j, O_CREAT | O_RDWR, 0666);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CLOSED);
    close(fd);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

/* The peer process `pid`, the one process holding the channel, is
 * SIGKILLed while the game waits for an action: the wait ends CLOSED (not
 * reaped yet: a zombie counts as gone), and the channel is closed. */
static void assert_closed_when_killed(cg_shm_channel *ch, pid_t pid)
{
    kill(pid, SIGKILL);
    got g = {0};
    double t0 = now_s();
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_E_CHANNEL_CLOSED);
    ck_assert_double_lt(now_s() - t0, 10.0); /* hang detector, not a speed limit */
    ck_assert_int_eq(g.calls, 0);
    waitpid(pid, NULL, 0);
    cg_shm_channel_close(ch);
}

/* Opening s's port, whose objects nobody holds, is refused and says why. */
static void assert_refused_left_behind(const side *s)
{
    cg_shm_channel *ch = (cg_shm_channel *)&ch;
    cg_err why = {""};
    ck_assert_int_eq(cg_shm_channel_open(&ch, s->port, &why), CG_E_CHANNEL_CLOSED);
    ck_assert_ptr_null(ch);
    ck_assert_msg(strstr(why.text, s->p2j) != NULL && strstr(why.text, "no other process") != NULL,
                  "%s", why.text);
}

/* How a child process plays the Python side of a port:
 * SIDE_MAPS: creates everything and keeps it all mapped and open;
 * SIDE_PREDECESSOR: as CraftGround's own peer does it (its ipc_noboost.cpp):
 *   it creates both semaphores itself with sem_open(O_CREAT) (so it maps
 *   glibc's temporary file, listed as "/dev/shm/sem.XXXXXX (deleted)", never
 *   the final name), writes the header and the initial environment through
 *   a mapping it drops at once, closes both objects' descriptors, and keeps
 *   only its sem_t pointers open;
 * SIDE_DESCRIPTOR: creates nothing, holds only a descriptor of p2j. */
typedef enum side_kind { SIDE_MAPS, SIDE_PREDECESSOR, SIDE_DESCRIPTOR } side_kind;

/* The child, once it holds what its kind holds; it then just lives (until
 * killed). */
static pid_t spawn_side(int port, side_kind kind)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        side c;
        if (kind == SIDE_DESCRIPTOR) {
            side_names(&c, port);
            if (shm_open(c.p2j, O_RDONLY, 0) < 0) _exit(1);
        } else {
            side_create_port(&c, port);
        }
        if (kind == SIDE_PREDECESSOR) {
            munmap(c.map, P2J_SIZE);
            close(c.p2j_fd);
            close(c.j2p_fd);
        }
        if (write(ready[1], "r", 1) != 1) _exit(1);
        for (;;) pause();
    }
    char r;
    ck_assert_int_eq(read(ready[0], &r, 1), 1);
    close(ready[0]);
    close(ready[1]);
    return pid;
}

/* What a side of that kind leaves when SIGKILLed: its objects and
 * semaphores, nobody holding them. */
static void leave_behind(int port, side_kind kind)
{
    pid_t pid = spawn_side(port, kind);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* What /proc/<pid>/maps of such a peer shows: no line names the channel's
 * objects or its semaphores' final names, the semaphores only as deleted
 * temporary files. (So a rule that looks for the names cannot see it.) */
static void assert_maps_show_no_names(pid_t pid, const side *s)
{
    char file[64], line[512];
    snprintf(file, sizeof file, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(file, "r");
    ck_assert_ptr_nonnull(f);
    int deleted_sems = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        ck_assert_msg(strstr(line, s->p2j) == NULL && strstr(line, s->j2p) == NULL &&
                          strstr(line, s->obs + 1) == NULL && strstr(line, s->act + 1) == NULL,
                      "the peer maps a channel name: %s", line);
        if (strstr(line, "/dev/shm/sem.") != NULL && strstr(line, "(deleted)") != NULL)
            deleted_sems++;
    }
    fclose(f);
    ck_assert_int_ge(deleted_sems, 2);
}

/* The predecessor's peer is alive and holds nothing but its semaphores: the
 * channel opens, works, and its death is still noticed mid-wait. (Before
 * the fix every open failed "left behind".) */
START_TEST(opens_with_predecessor_peer)
{
    int port = next_port();
    pid_t pid = spawn_side(port, SIDE_PREDECESSOR);
    side s;
    side_names(&s, port);
    assert_maps_show_no_names(pid, &s);
    cg_shm_channel *ch = open_ok(&s);
    got g = {0};
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_uint_eq(g.len, ENV);
    for (int i = 0; i < ENV; i++) ck_assert_uint_eq(g.buf[i], (uint8_t)(100 + i));
    /* An action written as the peer writes it: map, copy, post, unmap. */
    int fd = shm_open(s.p2j, O_RDWR, 0);
    ck_assert_int_ge(fd, 0);
    uint8_t *m = mmap(NULL, 136 + 3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    memcpy(m + 136, "abc", 3);
    put64(m, 16, 3);
    sem_t *act = sem_open(s.act, 0);
    ck_assert_ptr_ne(act, SEM_FAILED);
    ck_assert_int_eq(sem_post(act), 0);
    munmap(m, 136 + 3);
    close(fd);
    sem_close(act);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_mem_eq(g.buf, "abc", 3);
    ck_assert_int_eq(cg_shm_channel_write(ch, (const uint8_t *)"obs", 3, NULL), CG_OK);
    /* Killed mid-wait: its semaphores were all it held, and it has gone. */
    assert_closed_when_killed(ch, pid);
    side_unlink(&s);
}
END_TEST

/* Exactly what a killed predecessor peer leaves: objects and semaphores,
 * nobody holding them. Refused. */
START_TEST(refused_when_predecessor_left_behind)
{
    int port = next_port();
    leave_behind(port, SIDE_PREDECESSOR);
    side s;
    side_names(&s, port);
    assert_refused_left_behind(&s);
    side_unlink(&s);
}
END_TEST

/* A peer that holds only a descriptor of p2j (no mapping, semaphores
 * closed) is a peer too. */
START_TEST(opens_with_peer_holding_only_a_descriptor)
{
    int port = next_port();
    leave_behind(port, SIDE_PREDECESSOR);
    pid_t holder = spawn_side(port, SIDE_DESCRIPTOR);
    side s;
    side_names(&s, port);
    cg_shm_channel *ch = open_ok(&s);
    assert_closed_when_killed(ch, holder);
    side_unlink(&s);
}
END_TEST

/* SIGKILL runs no cleanup: the objects stay, the process that mapped them
 * goes. */
START_TEST(closed_when_peer_killed)
{
    int port = next_port();
    pid_t pid = spawn_side(port, SIDE_MAPS);
    side s;
    side_names(&s, port);
    cg_shm_channel *ch = open_ok(&s);
    assert_closed_when_killed(ch, pid);
    side_unlink(&s);
}
END_TEST

/* The Python side was SIGKILLed before we ever opened: its objects and
 * semaphores are all there, header and initial environment intact, but no
 * process maps them and nothing will ever post an action. Open must say so
 * (before the fix it opened, handed out the stale initial environment and
 * read_action waited forever). */
START_TEST(refused_when_left_behind)
{
    int port = next_port();
    leave_behind(port, SIDE_MAPS);
    side s;
    side_names(&s, port);
    assert_refused_left_behind(&s);
    /* The same objects with a live process mapping them open fine. */
    side_hold_existing(&s);
    cg_shm_channel *ch = open_ok(&s);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST
#endif

/* ---- concurrency and allocation --------------------------------------- */

enum { WRITERS = 4, WRITES = 40, STEP_BYTES = 4096 };

typedef struct writer_arg {
    cg_shm_channel *ch;
    int id;
    int failures;
} writer_arg;

/* Every write is larger than any before it, so nearly each one grows j2p
 * and replaces the mapping while the other threads write too. */
static void *writer(void *p)
{
    writer_arg *w = p;
    size_t max = (size_t)(WRITES * WRITERS + WRITERS) * STEP_BYTES;
    uint8_t *buf = malloc(max);
    if (buf == NULL) {
        w->failures++;
        return NULL;
    }
    memset(buf, 'a' + w->id, max);
    for (int i = 0; i < WRITES; i++) {
        size_t len = (size_t)(i * WRITERS + w->id + 1) * STEP_BYTES;
        if (cg_shm_channel_write(w->ch, buf, len, NULL) != CG_OK) w->failures++;
    }
    free(buf);
    return NULL;
}

START_TEST(concurrent_writes_are_serialised)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    pthread_t t[WRITERS];
    writer_arg w[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (writer_arg){ch, i, 0};
        ck_assert_int_eq(pthread_create(&t[i], NULL, writer, &w[i]), 0);
    }
    for (int i = 0; i < WRITERS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(w[i].failures, 0);
    }
    /* One post per write, and the last message whole: one writer's bytes,
     * its length, inside the object. */
    for (int i = 0; i < WRITERS * WRITES; i++) ck_assert_int_eq(sem_trywait(s.sem_obs), 0);
    ck_assert_int_eq(sem_trywait(s.sem_obs), -1);
    uint8_t h[24];
    ck_assert_int_eq(pread(s.j2p_fd, h, 24, 0), 24);
    size_t n = (size_t)get64(h, 16);
    ck_assert_uint_eq(n % STEP_BYTES, 0);
    ck_assert_int_ge(fsize(s.j2p_fd), (off_t)(24 + n));
    uint8_t *msg = malloc(n);
    ck_assert_ptr_nonnull(msg);
    ck_assert_int_eq(pread(s.j2p_fd, msg, n, 24), (ssize_t)n);
    int id = msg[0] - 'a';
    ck_assert_int_ge(id, 0);
    ck_assert_int_lt(id, WRITERS);
    ck_assert_uint_eq((n / STEP_BYTES - 1) % WRITERS, (size_t)id);
    for (size_t i = 0; i < n; i++)
        if (msg[i] != msg[0]) ck_abort_msg("message torn at byte %zu", i);
    free(msg);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

/* One thread waits in read_action (no action posted: in the protocol's
 * lockstep the Python side posts only after reading an observation);
 * another writes that observation. The write must not wait for the reader
 * (before the fix the channel's one mutex was held across the wait: a
 * deadlock). The 10 s bound only tells "returned" from "hung". */
typedef struct waiter_arg {
    cg_shm_channel *ch;
    got g;
    cg_status st;
    sem_t started, done;
} waiter_arg;

static void *wait_action(void *p)
{
    waiter_arg *w = p;
    sem_post(&w->started);
    w->st = cg_shm_channel_read_action(w->ch, KEEP(&w->g), NULL);
    return NULL;
}

static void *write_observation(void *p)
{
    waiter_arg *w = p;
    static uint8_t msg[640 * 360 * 3];
    w->st = cg_shm_channel_write(w->ch, msg, sizeof msg, NULL);
    sem_post(&w->done);
    return NULL;
}

START_TEST(write_while_reader_waits)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    waiter_arg r = {.ch = ch, .st = CG_E_PLATFORM}, w = {.ch = ch, .st = CG_E_PLATFORM};
    ck_assert_int_eq(sem_init(&r.started, 0, 0), 0);
    ck_assert_int_eq(sem_init(&w.done, 0, 0), 0);
    pthread_t reader, writer_t;
    ck_assert_int_eq(pthread_create(&reader, NULL, wait_action, &r), 0);
    ck_assert_int_eq(sem_wait(&r.started), 0);
    /* Let it reach the semaphore wait (a slower start only makes the test
     * pass without exercising the wait, never fail wrongly). */
    nanosleep(&(struct timespec){0, 300000000L}, NULL);
    ck_assert_int_eq(pthread_create(&writer_t, NULL, write_observation, &w), 0);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    int returned = sem_timedwait(&w.done, &until) == 0;
    /* Release the reader either way, so the threads can be joined. */
    static const uint8_t a[3] = {4, 5, 6};
    side_action(&s, a, sizeof a);
    pthread_join(reader, NULL);
    pthread_join(writer_t, NULL);
    ck_assert_msg(returned, "write_observation did not return while read_action waited");
    ck_assert_int_eq(w.st, CG_OK);
    ck_assert_int_eq(r.st, CG_OK);
    ck_assert_uint_eq(r.g.len, 3);
    ck_assert_mem_eq(r.g.buf, a, 3);
    ck_assert_int_eq(sem_trywait(s.sem_obs), 0);
    sem_destroy(&r.started);
    sem_destroy(&w.done);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

#if !defined(CG_SHM_TEST_MAP_IO)
/* A hostile Python side truncates both objects to small sizes in a tight
 * loop (restoring them between, so that some calls succeed) while we write
 * RAW 640x360 messages, read actions and read the initial environment many
 * times. Every call must return OK or CG_E_CHANNEL_CORRUPT; before the fix
 * the copies went through mappings and the process died of SIGBUS. */
static void hostile_loop(const side *s)
{
    uint8_t hdr[P2J_SIZE];
    if (pread(s->p2j_fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr) _exit(1);
    static const off_t p2j_sizes[] = {0, 100, 140, 136 + ACT, 0, P2J_SIZE};
    static const off_t j2p_sizes[] = {0, 24, 4096, 300000, 1};
    for (unsigned i = 0;; i++) {
        off_t p = p2j_sizes[i % (sizeof p2j_sizes / sizeof p2j_sizes[0])];
        if (ftruncate(s->p2j_fd, p) != 0) _exit(1);
        if (ftruncate(s->p2j_fd, P2J_SIZE) != 0) _exit(1);
        if (i % 2 && pwrite(s->p2j_fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr) _exit(1);
        if (ftruncate(s->j2p_fd, j2p_sizes[i % (sizeof j2p_sizes / sizeof j2p_sizes[0])]) != 0)
            _exit(1);
    }
}

enum { RACE_ROUNDS = 3000 };

START_TEST(survives_shrinking_peer)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    pid_t hostile = fork();
    ck_assert_int_ge(hostile, 0);
    if (hostile == 0) hostile_loop(&s);
    static uint8_t msg[640 * 360 * 3];
    memset(msg, 0x5a, sizeof msg);
    int n_ok[3] = {0, 0, 0}, n_corrupt[3] = {0, 0, 0}, other = 0;
    cg_status other_st = CG_OK;
    got g = {0};
    /* Our own mapping of p2j (s.map) is not touched while the race runs. */
    for (int i = 0; i < RACE_ROUNDS; i++) {
        cg_status st[3];
        st[0] = cg_shm_channel_write(ch, msg, i % 5 ? sizeof msg : (size_t)i, NULL);
        sem_post(s.sem_act);
        st[1] = cg_shm_channel_read_action(ch, KEEP(&g), NULL);
        st[2] = i % 10 ? CG_OK : cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL);
        for (int k = 0; k < (i % 10 ? 2 : 3); k++) {
            if (st[k] == CG_OK)
                n_ok[k]++;
            else if (st[k] == CG_E_CHANNEL_CORRUPT)
                n_corrupt[k]++;
            else
                other++, other_st = st[k];
        }
    }
    kill(hostile, SIGKILL);
    int wst = 0;
    waitpid(hostile, &wst, 0);
    ck_assert_msg(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL, "the hostile peer stopped early");
    ck_assert_msg(other == 0, "%d calls failed otherwise, e.g. %s", other,
                  cg_status_name(other_st));
    if (getenv("CG_TEST_VERBOSE") != NULL)
        fprintf(stderr, "race: writes %d ok; actions %d ok, %d corrupt; environments %d ok, %d "
                "corrupt\n", n_ok[0], n_ok[1], n_corrupt[1], n_ok[2], n_corrupt[2]);
    /* Writes grow the object back: every one succeeds. */
    ck_assert_int_eq(n_ok[0], RACE_ROUNDS);
    ck_assert_int_eq(n_ok[1] + n_corrupt[1], RACE_ROUNDS);
    ck_assert_int_eq(n_ok[2] + n_corrupt[2], RACE_ROUNDS / 10);
    while (sem_trywait(s.sem_obs) == 0) {
    }
    /* Whole again: the channel works. */
    ck_assert_int_eq(ftruncate(s.p2j_fd, P2J_SIZE), 0);
    static const uint8_t a[5] = {1, 2, 3, 4, 5};
    put64(s.map, 8, 136);
    put64(s.map, 24, 136 + ACT);
    put64(s.map, 32, ENV);
    side_action(&s, a, sizeof a);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, KEEP(&g), NULL), CG_OK);
    ck_assert_mem_eq(g.buf, a, 5);
    ck_assert_int_eq(cg_shm_channel_write(ch, msg, 100, NULL), CG_OK);
    uint8_t back[100];
    ck_assert_uint_eq(py_read(&s, back, sizeof back), 100);
    ck_assert_mem_eq(back, msg, 100);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST
#endif

#if defined(CG_SHM_COUNT_ALLOCS)
/* Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc: every
 * allocation made by the channel code is counted here. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
static volatile long allocs;
void *__wrap_malloc(size_t n)
{
    allocs++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n)
{
    allocs++;
    return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n)
{
    allocs++;
    return __real_realloc(p, n);
}

START_TEST(hot_path_allocates_nothing)
{
    side s;
    side_create(&s);
    long before_open = allocs;
    cg_shm_channel *ch = open_ok(&s);
    ck_assert_int_gt(allocs, before_open); /* the counter works: open allocates */
    static uint8_t msg[100000];
    got g = {0};
    /* No ck_assert inside the counted part: Check allocates to record one. */
    int bad = 0;
    long before = allocs;
    for (int i = 0; i < 50; i++) {
        static const uint8_t a[4] = {1, 2, 3, 4};
        memcpy(s.map + 136, a, sizeof a);
        put64(s.map, 16, sizeof a);
        bad += sem_post(s.sem_act) != 0;
        bad += cg_shm_channel_read_action(ch, KEEP(&g), NULL) != CG_OK;
        bad += cg_shm_channel_write(ch, msg, (size_t)(i + 1) * 2000, NULL) != CG_OK;
        bad += sem_trywait(s.sem_obs) != 0;
    }
    bad += cg_shm_channel_read_initial_environment(ch, KEEP(&g), NULL) != CG_OK;
    long during = allocs - before;
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(g.calls, 51);
    ck_assert_int_eq(during, 0);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST
#endif

Suite *make_suite(void)
{
    Suite *s = suite_create("shm_channel");
    TCase *core = test_tcase("core");
    tcase_add_test(core, names);
    tcase_add_test(core, initial_environment);
    tcase_add_test(core, actions);
    tcase_add_test(core, writes_grow_never_shrink);
    suite_add_tcase(s, core);
    TCase *limits = test_tcase("limits");
    tcase_add_test(limits, open_absent);
    tcase_add_loop_test(limits, open_corrupt, 0,
                        (int)(sizeof corrupt_cases / sizeof corrupt_cases[0]));
    tcase_add_test(limits, open_tiny_and_missing_parts);
    tcase_add_test(limits, action_after_shrink);
    suite_add_tcase(s, limits);
    TCase *overflow = test_tcase("overflow");
    tcase_add_test(overflow, write_overflow);
    suite_add_tcase(s, overflow);
    TCase *peer = test_tcase("peer");
    tcase_add_test(peer, closed_when_unlinked);
#if defined(__linux__)
    tcase_add_test(peer, closed_when_replaced);
    tcase_add_test(peer, closed_when_peer_killed);
    tcase_add_test(peer, refused_when_left_behind);
    tcase_add_test(peer, opens_with_predecessor_peer);
    tcase_add_test(peer, refused_when_predecessor_left_behind);
    tcase_add_test(peer, opens_with_peer_holding_only_a_descriptor);
#endif
    suite_add_tcase(s, peer);
    TCase *threads = test_tcase("threads");
    tcase_add_test(threads, concurrent_writes_are_serialised);
    tcase_add_test(threads, write_while_reader_waits);
#if !defined(CG_SHM_TEST_MAP_IO)
    /* Not over cg_shm_io_map.c: macOS's objects cannot shrink. */
    tcase_add_test(threads, survives_shrinking_peer);
#endif
#if defined(CG_SHM_COUNT_ALLOCS)
    tcase_add_test(threads, hot_path_allocates_nothing);
#endif
    suite_add_tcase(s, threads);
    return s;
}
