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

static void side_create(side *s)
{
    side_create_port(s, next_port());
}

static void side_destroy(side *s)
{
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
} got;

static cg_status keep(void *user, const uint8_t *data, size_t len)
{
    got *g = user;
    ck_assert_uint_le(len, sizeof g->buf);
    memcpy(g->buf, data, len);
    g->len = len;
    g->calls++;
    return CG_OK;
}

static cg_status refuse(void *user, const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
    ((got *)user)->calls++;
    return CG_E_NO_MEMORY;
}

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
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, keep, &g), CG_OK);
    ck_assert_uint_eq(g.len, ENV);
    uint8_t want[ENV];
    for (int i = 0; i < ENV; i++) want[i] = (uint8_t)(100 + i);
    ck_assert_mem_eq(g.buf, want, ENV);
    /* Corrupted after open: refused, then fine again. */
    put64(s.map, 32, ENV + 1);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, keep, &g), CG_E_CHANNEL_CORRUPT);
    ck_assert_ptr_nonnull(strstr(cg_shm_channel_last_error(ch), "initial environment"));
    put64(s.map, 32, ENV);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, keep, &g), CG_OK);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, NULL, &g), CG_E_INVALID_ARG);
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
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_OK);
    ck_assert_uint_eq(g.len, 5);
    ck_assert_mem_eq(g.buf, a1, 5);
    /* Longer than the initial action area (over the environment bytes) but
     * inside the object: allowed, as Python writes it. */
    uint8_t a2[ACT + ENV];
    for (size_t i = 0; i < sizeof a2; i++) a2[i] = (uint8_t)(i * 3);
    side_action(&s, a2, sizeof a2);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_OK);
    ck_assert_uint_eq(g.len, sizeof a2);
    ck_assert_mem_eq(g.buf, a2, sizeof a2);
    /* Empty action. */
    side_action(&s, a1, 0);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_OK);
    ck_assert_uint_eq(g.len, 0);
    /* One past the object: the post is consumed, nothing read. */
    g.calls = 0;
    put64(s.map, 16, ACT + ENV + 1);
    sem_post(s.sem_act);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CORRUPT);
    ck_assert_int_eq(g.calls, 0);
    /* A failing sink gives the post back: the same action comes again. */
    side_action(&s, a1, 3);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, refuse, &g), CG_E_NO_MEMORY);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_OK);
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
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CORRUPT);
    ck_assert_ptr_nonnull(strstr(cg_shm_channel_last_error(ch), "140"));
    /* Header gone. */
    ck_assert_int_eq(ftruncate(s.p2j_fd, 64), 0);
    sem_post(s.sem_act);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CORRUPT);
    /* Grown back: remapped, readable again. */
    ck_assert_int_eq(ftruncate(s.p2j_fd, 4096), 0);
    put64(s.map, 8, 136);
    side_action(&s, a, ACT);
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_OK);
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
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, msg, 10), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + ENV);
    ck_assert_uint_eq(py_read(&s, back, BIG), 10);
    ck_assert_mem_eq(back, msg, 10);
    /* RAW 640x360: grows to exactly 24 + 691200. */
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, msg, BIG), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 691200);
    ck_assert_uint_eq(py_read(&s, back, BIG), BIG);
    ck_assert_int_eq(memcmp(back, msg, BIG), 0);
    /* Smaller again: never shrunk. */
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, msg + 7, 3), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 691200);
    ck_assert_uint_eq(py_read(&s, back, BIG), 3);
    ck_assert_mem_eq(back, msg + 7, 3);
    /* Shrunk under us to nothing: grown back before writing. */
    ck_assert_int_eq(ftruncate(s.j2p_fd, 0), 0);
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, msg, 1000), CG_OK);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + 1000);
    ck_assert_uint_eq(py_read(&s, back, BIG), 1000);
    ck_assert_mem_eq(back, msg, 1000);
    /* Empty message. */
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, NULL, 0), CG_OK);
    ck_assert_uint_eq(py_read(&s, back, BIG), 0);
    free(msg);
    free(back);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

static int fill_calls;
static cg_status count_fill(void *user, uint8_t *dst, size_t len)
{
    (void)user;
    (void)dst;
    (void)len;
    fill_calls++;
    return CG_OK;
}

START_TEST(write_overflow)
{
    side s;
    side_create(&s);
    cg_shm_channel *ch = open_ok(&s);
    fill_calls = 0;
    ck_assert_int_eq(cg_shm_channel_write(ch, SIZE_MAX, count_fill, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_shm_channel_write(ch, SIZE_MAX - 23, count_fill, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(cg_shm_channel_write(ch, (size_t)INT64_MAX, count_fill, NULL), CG_E_OVERFLOW);
    ck_assert_int_eq(fill_calls, 0);
    ck_assert_int_eq(fsize(s.j2p_fd), 24 + ENV);
    ck_assert_int_eq(sem_trywait(s.sem_obs), -1);
    ck_assert_int_eq(cg_shm_channel_write(ch, 4, NULL, NULL), CG_E_INVALID_ARG);
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, NULL, 4), CG_E_INVALID_ARG);
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
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CLOSED);
    ck_assert_double_lt(now_s() - t0, 10.0); /* hang detector, not a speed limit */
    ck_assert_int_eq(g.calls, 0);
    /* Closed for good, also for writes. */
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CLOSED);
    ck_assert_int_eq(cg_shm_channel_write_bytes(ch, (const uint8_t *)"x", 1), CG_E_CHANNEL_CLOSED);
    ck_assert_int_eq(cg_shm_channel_read_initial_environment(ch, keep, &g), CG_E_CHANNEL_CLOSED);
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
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CLOSED);
    close(fd);
    cg_shm_channel_close(ch);
    side_destroy(&s);
}
END_TEST

/* SIGKILL runs no cleanup: the objects stay, the process that mapped them
 * goes. The Python side here is a child process. */
START_TEST(closed_when_peer_killed)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    int port = next_port();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* The Python side: creates everything, says so, then just lives. */
        side c;
        side_create_port(&c, port);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        for (;;) pause();
    }
    char r;
    ck_assert_int_eq(read(ready[0], &r, 1), 1);
    side s;
    side_names(&s, port);
    cg_shm_channel *ch = open_ok(&s);
    kill(pid, SIGKILL);
    /* Not reaped yet: a zombie counts as gone. */
    got g = {0};
    double t0 = now_s();
    ck_assert_int_eq(cg_shm_channel_read_action(ch, keep, &g), CG_E_CHANNEL_CLOSED);
    ck_assert_double_lt(now_s() - t0, 10.0);
    waitpid(pid, NULL, 0);
    cg_shm_channel_close(ch);
    side_unlink(&s);
    close(ready[0]);
    close(ready[1]);
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
        if (cg_shm_channel_write_bytes(w->ch, buf, len) != CG_OK) w->failures++;
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

static cg_status keep_quietly(void *user, const uint8_t *data, size_t len)
{
    got *g = user;
    if (len > sizeof g->buf) return CG_E_BUFFER_TOO_SMALL;
    memcpy(g->buf, data, len);
    g->len = len;
    g->calls++;
    return CG_OK;
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
        bad += cg_shm_channel_read_action(ch, keep_quietly, &g) != CG_OK;
        bad += cg_shm_channel_write_bytes(ch, msg, (size_t)(i + 1) * 2000) != CG_OK;
        bad += sem_trywait(s.sem_obs) != 0;
    }
    bad += cg_shm_channel_read_initial_environment(ch, keep_quietly, &g) != CG_OK;
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
#endif
    suite_add_tcase(s, peer);
    TCase *threads = test_tcase("threads");
    tcase_add_test(threads, concurrent_writes_are_serialised);
#if defined(CG_SHM_COUNT_ALLOCS)
    tcase_add_test(threads, hot_path_allocates_nothing);
#endif
    suite_add_tcase(s, threads);
    return s;
}
