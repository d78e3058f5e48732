/*
 * test_zc_ring.c - zero-copy v2 (docs/zero-copy-v2/protocol.md): the descriptor and
 * hello against hand-written golden bytes, the control block's lease
 * states, the hand-off socket with real fd passing to a second process,
 * refusal of a second learner and of another uid, every bad input as a
 * clear status, and the Vulkan ring on a real driver (lavapipe here) with
 * a second process that imports the exported memory through Vulkan and
 * checks every frame byte for byte against the pattern uploaded.
 *
 * Usage: test_zc_ring CASE   (one ctest per case; 77 = SKIPPED)
 * The second processes are this executable run again (posix_spawn, never
 * a fork of a process that holds a GPU context).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg_vk_ring.h"
#include "cg_zc_proto.h"
#include "cg_zc_server.h"
#include "depth_ref.h"
#include "rgb_sweep.h"
#include "vkt.h"
#include "vkt_export.h"
#include "zc_test.h"

extern char **environ;
static int failures;
static const char *self_exe;

#define SKIP 77

/* ---- golden bytes ----------------------------------------------------------- */

/* Written by hand from the table in docs/zero-copy-v2/protocol.md (not produced by
 * the encoder): format 37, 640x360, pitch 2560, 3 slots, mode 1, UUID
 * 00 01 .. 0f, ring id 0x1122334455667788, slot size 921600 (0x0E1000),
 * slot 2, frame 0x0102030405 (4328719365), path "/run/x.sock". */
static const uint8_t GOLDEN_DESC_HEAD[80] = {
    'C', 'G', 'Z', '2', 1, 0, 192, 0,                  /* magic, version 1, length 192 */
    37, 0, 0, 0, 0x80, 0x02, 0, 0,                      /* format 37, width 640 */
    0x68, 0x01, 0, 0, 0x00, 0x0A, 0, 0,                 /* height 360, pitch 2560 */
    3, 0, 0, 0, 1, 0, 0, 0,                             /* slots 3, mode 1 */
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, /* device UUID */
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,     /* ring id */
    0x00, 0x10, 0x0E, 0, 0, 0, 0, 0,                    /* slot size 921600 */
    2, 0, 0, 0, 0, 0, 0, 0,                             /* slot 2, reserved */
    0x05, 0x04, 0x03, 0x02, 0x01, 0, 0, 0,              /* frame */
};

static cg_zc_desc golden_desc(void)
{
    cg_zc_desc d;
    memset(&d, 0, sizeof d);
    d.format = 37;
    d.width = 640;
    d.height = 360;
    d.row_pitch = 2560;
    d.slot_count = 3;
    d.mode = CG_ZC_MODE_SEMAPHORE;
    for (int i = 0; i < 16; i++) d.device_uuid[i] = (uint8_t)i;
    d.ring_id = 0x1122334455667788ull;
    d.slot_size = 921600;
    d.slot = 2;
    d.frame = 0x0102030405ull;
    snprintf(d.socket_path, sizeof d.socket_path, "/run/x.sock");
    return d;
}

/* Version 2 (the RGB format and the flags), from the v1 golden bytes g
 * patched by hand as the document's table says. */
static int case_descriptor_v2(const uint8_t g[CG_ZC_DESC_SIZE])
{
    cg_zc_desc o;
    cg_err e = {{0}};
    /* Version 1 reserved offset 68: junk there is ignored and reads as flags 0. */
    uint8_t b[CG_ZC_DESC_SIZE];
    memcpy(b, g, sizeof b);
    b[68] = 0xff;
    b[71] = 0x80;
    CHECK(cg_zc_desc_decode(b, sizeof b, &o, &e) == CG_OK && o.flags == 0,
          "v1 with junk at 68: %s, flags %u", e.text, o.flags);

    /* 640x360 RGB: version 2, format 23, pitch 1920 (0x780), slot size 691200 (0x0A8C00). */
    uint8_t rgb[CG_ZC_DESC_SIZE];
    memcpy(rgb, g, sizeof rgb);
    rgb[4] = 2;
    rgb[8] = 23;
    rgb[20] = 0x80, rgb[21] = 0x07;
    rgb[56] = 0x00, rgb[57] = 0x8C, rgb[58] = 0x0A;
    CHECK(cg_zc_desc_decode(rgb, sizeof rgb, &o, &e) == CG_OK, "v2 RGB: %s", e.text);
    CHECK(o.format == 23 && o.row_pitch == 1920 && o.flags == 0 && o.slot_size == 691200,
          "v2 RGB fields");
    /* The encoder writes exactly those bytes (version 2 because of format 23). */
    uint8_t enc[CG_ZC_DESC_SIZE];
    CHECK(cg_zc_desc_encode(&o, enc, sizeof enc) == CG_OK && memcmp(enc, rgb, sizeof enc) == 0,
          "v2 RGB encodes to the hand-patched bytes");

    /* RGBA rows bottom up (what a GL producer sends): version 2, flags 1. */
    uint8_t bu[CG_ZC_DESC_SIZE];
    memcpy(bu, g, sizeof bu);
    bu[4] = 2;
    bu[68] = 1;
    CHECK(cg_zc_desc_decode(bu, sizeof bu, &o, &e) == CG_OK && o.flags == CG_ZC_FLAG_ROWS_BOTTOM_UP &&
              o.format == 37,
          "v2 bottom-up RGBA: %s", e.text);
    CHECK(cg_zc_desc_encode(&o, enc, sizeof enc) == CG_OK && memcmp(enc, bu, sizeof enc) == 0,
          "flags 1 encodes as version 2");
    /* Version 2 with nothing new still decodes (a producer may always write 2). */
    memcpy(b, g, sizeof b);
    b[4] = 2;
    CHECK(cg_zc_desc_decode(b, sizeof b, &o, &e) == CG_OK && o.flags == 0, "v2 plain RGBA: %s",
          e.text);

    struct {
        const char *what;
        const uint8_t *base;
        int off, val;
        cg_status want;
    } bad[] = {
        {"flag bit 1", bu, 68, 3, CG_E_PROTOCOL},
        {"flag bit 31", bu, 71, 0x80, CG_E_PROTOCOL},
        {"RGB with ROWS_BOTTOM_UP", rgb, 68, 1, CG_E_PROTOCOL},
        {"RGB pitch wider than width*3", rgb, 21, 0x0A, CG_E_PROTOCOL},
        {"RGB pitch width*3 + 1", rgb, 20, 0x81, CG_E_PROTOCOL},
        {"RGB pitch width*3 - 1", rgb, 20, 0x7f, CG_E_PROTOCOL},
        {"RGB slot size below pitch*height", rgb, 57, 0x8B, CG_E_PROTOCOL},
        {"format 22 in version 2", rgb, 8, 22, CG_E_PROTOCOL},
        {"format 24 in version 2", rgb, 8, 24, CG_E_PROTOCOL},
        {"RGBA pitch below width*4 in version 2", bu, 21, 0x07, CG_E_PROTOCOL},
        {"RGB version 3 with length 192", rgb, 4, 3, CG_E_PROTOCOL},
        {"RGB version 4", rgb, 4, 4, CG_E_UNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(b, bad[i].base, sizeof b);
        b[bad[i].off] = (uint8_t)bad[i].val;
        cg_err be = {{0}};
        cg_status st = cg_zc_desc_decode(b, sizeof b, &o, &be);
        CHECK(st == bad[i].want && be.text[0], "%s: got %s (%s)", bad[i].what, cg_status_name(st),
              be.text);
    }
    return failures ? 1 : 0;
}

static int case_descriptor(void)
{
    cg_zc_desc d = golden_desc();
    uint8_t buf[CG_ZC_DESC_SIZE + 8];
    CHECK(cg_zc_desc_encode(&d, buf, CG_ZC_DESC_SIZE - 1) == CG_E_BUFFER_TOO_SMALL, "short cap");
    CHECK(cg_zc_desc_encode(&d, buf, sizeof buf) == CG_OK, "encode");
    CHECK(memcmp(buf, GOLDEN_DESC_HEAD, 80) == 0, "descriptor head differs from the golden bytes");
    CHECK(memcmp(buf + 80, "/run/x.sock", 12) == 0, "path");
    int zeros = 1;
    for (int i = 92; i < CG_ZC_DESC_SIZE; i++) zeros &= buf[i] == 0;
    CHECK(zeros, "path padding and reserved bytes are 0");

    /* Decoding the golden bytes gives the fields back. */
    uint8_t g[CG_ZC_DESC_SIZE];
    memset(g, 0, sizeof g);
    memcpy(g, GOLDEN_DESC_HEAD, 80);
    memcpy(g + 80, "/run/x.sock", 11);
    cg_zc_desc o;
    cg_err err = {{0}};
    CHECK(cg_zc_desc_decode(g, sizeof g, &o, &err) == CG_OK, "decode: %s", err.text);
    CHECK(o.width == 640 && o.height == 360 && o.row_pitch == 2560 && o.slot == 2 &&
              o.frame == 0x0102030405ull && o.ring_id == 0x1122334455667788ull &&
              o.slot_size == 921600 && o.mode == 1 && o.device_uuid[15] == 15 &&
              strcmp(o.socket_path, "/run/x.sock") == 0,
          "decoded fields");

    /* Bad inputs: each a clear status and message. */
    struct {
        const char *what;
        int off, val; /* patch byte off to val; -1: none */
        size_t len;
        cg_status want;
    } bad[] = {
        {"truncated to 100 bytes", -1, 0, 100, CG_E_BUFFER_TOO_SMALL},
        {"4 bytes (a mach port)", -1, 0, 4, CG_E_BUFFER_TOO_SMALL},
        {"unknown version 4", 4, 4, CG_ZC_DESC_SIZE, CG_E_UNSUPPORTED},
        {"version 3 with length 192", 4, 3, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"version 0", 4, 0, CG_ZC_DESC_SIZE, CG_E_UNSUPPORTED},
        {"format 23 in version 1", 8, 23, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"bad magic", 3, '1', CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"length field 100", 6, 100, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"length field 200 > 192 given", 6, 200, CG_ZC_DESC_SIZE, CG_E_BUFFER_TOO_SMALL},
        {"slot 3 of 3", 64, 3, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"mode 7", 28, 7, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"format 99", 8, 99, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"pitch below width*4", 21, 0x09, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
        {"empty path", 80, 0, CG_ZC_DESC_SIZE, CG_E_PROTOCOL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t b[CG_ZC_DESC_SIZE];
        memcpy(b, g, sizeof b);
        if (bad[i].off >= 0) b[bad[i].off] = (uint8_t)bad[i].val;
        cg_err e = {{0}};
        cg_status st = cg_zc_desc_decode(b, bad[i].len, &o, &e);
        CHECK(st == bad[i].want && e.text[0], "%s: got %s (%s)", bad[i].what, cg_status_name(st),
              e.text);
    }
    /* A v1 CUDA handle (68 bytes) is named as such. */
    uint8_t v1[68];
    memset(v1, 0xab, sizeof v1);
    cg_err e = {{0}};
    CHECK(cg_zc_desc_decode(v1, sizeof v1, &o, &e) == CG_E_PROTOCOL && strstr(e.text, "v1 CUDA"),
          "68-byte handle: %s", e.text);

    /* Hello: hand-written golden bytes. */
    static const uint8_t GOLDEN_HELLO[40] = {
        'C', 'G', 'Z', 'H', 1, 0, 0, 0,
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
        3, 0, 0, 0, 5, 0, 0, 0,
        0x00, 0x10, 0x0E, 0, 0, 0, 0, 0,
        1, 0, 0, 0, 0x00, 0x10, 0, 0,
    };
    cg_zc_hello h = {0, 0x1122334455667788ull, 3, 5, 921600, 1, 4096};
    uint8_t hb[CG_ZC_HELLO_SIZE];
    cg_zc_hello_encode(&h, hb);
    CHECK(memcmp(hb, GOLDEN_HELLO, 40) == 0, "hello differs from the golden bytes");
    cg_zc_hello ho;
    CHECK(cg_zc_hello_decode(hb, 63, &ho, &e) == CG_E_BUFFER_TOO_SMALL, "hello truncated");
    hb[4] = 9;
    CHECK(cg_zc_hello_decode(hb, 64, &ho, &e) == CG_E_UNSUPPORTED, "hello version 9");
    return case_descriptor_v2(g) || failures ? 1 : 0;
}

/* ---- control block ------------------------------------------------------------ */

static int case_control(void)
{
    cg_zc_control c;
    cg_err e = {{0}};
    CHECK(cg_zc_control_create(0, 7, &c, &e) == CG_E_INVALID_ARG, "0 slots");
    CHECK(cg_zc_control_create(17, 7, &c, &e) == CG_E_INVALID_ARG, "17 slots");
    CHECK(cg_zc_control_create(3, 0xabcdef, &c, &e) == CG_OK, "create: %s", e.text);
    /* Header as the document lays it out, read as raw bytes. */
    CHECK(memcmp(c.map, "CGZC", 4) == 0 && c.map[4] == 1 && c.map[8] == 3 && c.map[12] == 64 &&
              c.map[16] == 0xef && c.map[17] == 0xcd && c.map[18] == 0xab && c.map[24] == 1,
          "control header bytes");
    /* A learner maps the same memory through its own fd. */
    cg_zc_control l;
    CHECK(cg_zc_control_map(dup(c.handle), 3, 0xabcdee, &l, &e) == CG_E_PROTOCOL, "wrong ring id refused");
    CHECK(cg_zc_control_map(dup(c.handle), 3, 0xabcdef, &l, &e) == CG_OK, "map: %s", e.text);

    /* Producer: EMPTY -> WRITING -> PUBLISHED for frame 5 in slot 1. */
    uint64_t w = cg_zc_lease_load(&c, 1);
    CHECK(w == 0, "EMPTY is 0");
    CHECK(cg_zc_lease_cas(&c, 1, &w, CG_ZC_WORD(5, CG_ZC_WRITING)), "claim");
    CHECK(cg_zc_acquire(&l, 1, 5, &e) == CG_E_STALE, "acquire while WRITING is stale");
    cg_zc_lease_store(&c, 1, CG_ZC_WORD(5, CG_ZC_PUBLISHED));
    /* The word in memory: frame << 8 | state, little-endian. */
    const uint8_t *raw = c.map + 64 + 64;
    CHECK(raw[0] == CG_ZC_PUBLISHED && raw[1] == 5 && raw[2] == 0, "lease word bytes");
    CHECK(cg_zc_acquire(&l, 1, 4, &e) == CG_E_STALE && strstr(e.text, "frame 5"), "older frame: %s", e.text);
    CHECK(cg_zc_acquire(&l, 3, 5, &e) == CG_E_INVALID_ARG, "slot out of range");
    CHECK(cg_zc_release(&l, 1, 5, &e) == CG_E_BAD_STATE, "release before acquire");
    CHECK(cg_zc_acquire(&l, 1, 5, &e) == CG_OK, "acquire: %s", e.text);
    CHECK(cg_zc_acquire(&l, 1, 5, &e) == CG_OK, "acquire twice is fine");
    CHECK(raw[0] == CG_ZC_ACTIVE, "ACTIVE in the producer's view");
    /* The producer cannot take an ACTIVE slot. */
    w = CG_ZC_WORD(5, CG_ZC_PUBLISHED);
    CHECK(!cg_zc_lease_cas(&c, 1, &w, CG_ZC_WORD(6, CG_ZC_WRITING)) &&
              w == CG_ZC_WORD(5, CG_ZC_ACTIVE),
          "CAS on ACTIVE fails and reports the word");
    CHECK(cg_zc_release(&l, 1, 5, &e) == CG_OK, "release");
    CHECK(cg_zc_release(&l, 1, 5, &e) == CG_E_BAD_STATE, "release twice");
    CHECK(cg_zc_lease_load(&c, 1) == CG_ZC_WORD(5, CG_ZC_RELEASED), "RELEASED");
    /* Reclaim: ACTIVE slots of a departed learner come back. */
    cg_zc_lease_store(&c, 0, CG_ZC_WORD(7, CG_ZC_PUBLISHED));
    cg_zc_lease_store(&c, 2, CG_ZC_WORD(8, CG_ZC_PUBLISHED));
    CHECK(cg_zc_acquire(&l, 0, 7, &e) == CG_OK && cg_zc_acquire(&l, 2, 8, &e) == CG_OK, "acquire 2");
    CHECK(cg_zc_control_reclaim(&c) == 2, "two reclaimed");
    CHECK(cg_zc_lease_load(&c, 0) == CG_ZC_WORD(7, CG_ZC_RELEASED) &&
              cg_zc_lease_load(&c, 2) == CG_ZC_WORD(8, CG_ZC_RELEASED),
          "reclaimed to RELEASED with their frames");
    CHECK(cg_zc_release(&l, 0, 7, &e) == CG_E_BAD_STATE, "a reclaimed lease cannot be released");
    /* Teardown. */
    cg_zc_lease_store(&c, 0, CG_ZC_WORD(9, CG_ZC_PUBLISHED));
    cg_zc_control_close(&c);
    CHECK(cg_zc_control_producer_state(&l) == 2, "producer state closed");
    CHECK(cg_zc_acquire(&l, 0, 9, &e) == CG_E_NOT_INITIALIZED, "acquire after close: %s", e.text);
    cg_zc_control_free(&l);
    cg_zc_control_free(&c);
    cg_zc_control_free(&c); /* twice is safe */
    return failures ? 1 : 0;
}

/* ---- socket ----------------------------------------------------------------- */

static char test_dir[96];

static void make_test_dir(void)
{
    snprintf(test_dir, sizeof test_dir, "/tmp/cg-zc-test-%ld", (long)getpid());
    mkdir(test_dir, 0700);
}

static void remove_test_dir(void)
{
    rmdir(test_dir);
}

static int memfd_with(const char *text)
{
    int fd = memfd_create("cg-zc-test", MFD_CLOEXEC);
    if (fd >= 0 && write(fd, text, strlen(text)) != (ssize_t)strlen(text)) return -1;
    return fd;
}

static pid_t spawn_self(char *const argv[])
{
    pid_t pid;
    if (posix_spawn(&pid, self_exe, NULL, NULL, argv, environ) != 0) return -1;
    return pid;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void wait_for(cg_zc_server *s, int connected)
{
    for (int i = 0; i < 2000; i++) {
        cg_zc_server_stats st;
        cg_zc_server_get_stats(s, &st);
        if (st.connected == connected) return;
        usleep(1000);
    }
}

/* Second process: connect, check the fds' count, kinds and order (each
 * memfd holds its name), hold the connection until stdin closes. */
static int child_fd_learner(const char *path)
{
    cg_zc_hello h;
    int fds[CG_ZC_MAX_HANDLES];
    uint32_t n;
    int conn;
    cg_err e = {{0}};
    cg_status st = cg_zc_connect(path, &h, fds, &n, &conn, &e);
    if (st != CG_OK) {
        fprintf(stderr, "child: connect: %s\n", e.text);
        return 2;
    }
    const char *want[] = {"control", "slot0", "slot1", "semaphore"};
    CHECK(n == 4 && h.fd_count == 4 && h.slot_count == 2 && h.mode == 1, "hello: %u fds", n);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        char b[16] = {0};
        CHECK(pread(fds[i], b, sizeof b - 1, 0) > 0 && strcmp(b, want[i]) == 0,
              "fd %u holds '%s', expected '%s'", i, b, want[i]);
        struct stat s1;
        CHECK(fstat(fds[i], &s1) == 0 && S_ISREG(s1.st_mode), "fd %u is a memfd", i);
        int fl = fcntl(fds[i], F_GETFD);
        CHECK(fl >= 0 && (fl & FD_CLOEXEC), "fd %u received close-on-exec", i);
    }
    /* Exactly those: the next fd number free is right after ours. */
    printf("ready\n");
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) {
    }
    return failures ? 1 : 0;
}

static int case_socket(void)
{
    make_test_dir();
    int fds[4] = {memfd_with("control"), memfd_with("slot0"), memfd_with("slot1"),
                  memfd_with("semaphore")};
    cg_zc_control c;
    cg_err e = {{0}};
    CHECK(cg_zc_control_create(2, 0x42, &c, &e) == CG_OK, "control");
    cg_zc_server_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.handles = fds;
    sd.handle_count = 4;
    sd.hello = (cg_zc_hello){0, 0x42, 2, 0, 4096, 1, 4096};
    sd.control = &c;
    sd.dir = test_dir;
    cg_zc_server *s = NULL;
    CHECK(cg_zc_server_create(&sd, &s, &e) == CG_OK, "server: %s", e.text);
    if (!s) return 1;
    const char *path = cg_zc_server_path(s);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600,
          "socket mode %o", (unsigned)(st.st_mode & 0777));
    char name[64];
    snprintf(name, sizeof name, "ring-%ld-0000000000000042.sock", (long)getpid());
    CHECK(strstr(path, name) != NULL, "socket name %s", path);

    /* A learner in a second process, holding the connection through a pipe. */
    int in[2], out[2];
    CHECK(pipe(in) == 0 && pipe(out) == 0, "pipes");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char *argv[] = {(char *)self_exe, "child-fd-learner", (char *)path, NULL};
    pid_t pid;
    CHECK(posix_spawn(&pid, self_exe, &fa, NULL, argv, environ) == 0, "spawn");
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    char ready[8] = {0};
    CHECK(read(out[0], ready, 6) == 6 && memcmp(ready, "ready\n", 6) == 0, "child ready");
    wait_for(s, 1);

    /* A second learner is refused while the first holds the connection. */
    cg_zc_hello h;
    int rfds[CG_ZC_MAX_HANDLES];
    uint32_t n = 99;
    int conn = -1;
    cg_status r = cg_zc_connect(path, &h, rfds, &n, &conn, &e);
    CHECK(r == CG_E_PROTOCOL && strstr(e.text, "another learner") && n == 0 && conn < 0,
          "second learner: %s %s", cg_status_name(r), e.text);

    /* The learner holds slot 1; when it leaves, the lease comes back. */
    cg_zc_lease_store(&c, 1, CG_ZC_WORD(3, CG_ZC_ACTIVE));
    close(in[1]);
    CHECK(wait_child(pid) == 0, "child learner checks");
    wait_for(s, 0);
    for (int i = 0; i < 2000 && cg_zc_lease_load(&c, 1) != CG_ZC_WORD(3, CG_ZC_RELEASED); i++)
        usleep(1000);
    CHECK(cg_zc_lease_load(&c, 1) == CG_ZC_WORD(3, CG_ZC_RELEASED), "lease reclaimed on departure");
    cg_zc_server_stats ss;
    cg_zc_server_get_stats(s, &ss);
    CHECK(ss.accepted == 1 && ss.refused_busy == 1 && ss.departed == 1, "stats %u %u %u",
          ss.accepted, ss.refused_busy, ss.departed);

    /* A new learner is accepted after the first left (in this process). */
    r = cg_zc_connect(path, &h, rfds, &n, &conn, &e);
    CHECK(r == CG_OK && n == 4, "reconnect: %s", e.text);
    for (uint32_t i = 0; r == CG_OK && i < n; i++) close(rfds[i]);
    if (conn >= 0) close(conn);

    /* Closed socket: the producer is gone. */
    char saved[CG_ZC_PATH_SIZE];
    snprintf(saved, sizeof saved, "%s", path);
    cg_zc_server_destroy(s);
    CHECK(access(saved, F_OK) != 0, "socket unlinked at destroy");
    r = cg_zc_connect(saved, &h, rfds, &n, &conn, &e);
    CHECK(r == CG_E_NOT_INITIALIZED && strstr(e.text, "no zero-copy producer"), "closed: %s", e.text);

    /* The directory rule: $XDG_RUNTIME_DIR when an absolute existing
     * directory, else $TMPDIR under the same rule, else /tmp. */
    char dir[CG_ZC_PATH_SIZE], want[256];
    char tmpdir[128];
    snprintf(tmpdir, sizeof tmpdir, "%s/tmpdir", test_dir);
    CHECK(mkdir(tmpdir, 0700) == 0, "mkdir %s", tmpdir);
    setenv("XDG_RUNTIME_DIR", test_dir, 1);
    setenv("TMPDIR", tmpdir, 1);
    snprintf(want, sizeof want, "%s/cg-zc-%u", test_dir, (unsigned)getuid());
    CHECK(cg_zc_socket_dir(dir, sizeof dir) == CG_OK && strcmp(dir, want) == 0, "XDG: %s", dir);
    setenv("XDG_RUNTIME_DIR", "relative/dir", 1);
    snprintf(want, sizeof want, "%s/cg-zc-%u", tmpdir, (unsigned)getuid());
    CHECK(cg_zc_socket_dir(dir, sizeof dir) == CG_OK && strcmp(dir, want) == 0, "TMPDIR: %s", dir);
    /* Absolute but missing (a session's runtime dir gone): $TMPDIR. */
    setenv("XDG_RUNTIME_DIR", "/nonexistent/cg-zc-run/1000", 1);
    CHECK(cg_zc_socket_dir(dir, sizeof dir) == CG_OK && strcmp(dir, want) == 0,
          "missing XDG_RUNTIME_DIR: %s, want %s", dir, want);
    setenv("TMPDIR", "/nonexistent/cg-zc-tmp", 1);
    snprintf(want, sizeof want, "/tmp/cg-zc-%u", (unsigned)getuid());
    CHECK(cg_zc_socket_dir(dir, sizeof dir) == CG_OK && strcmp(dir, want) == 0,
          "missing XDG_RUNTIME_DIR and TMPDIR: %s", dir);
    rmdir(tmpdir);
    unsetenv("XDG_RUNTIME_DIR");
    unsetenv("TMPDIR");
    snprintf(want, sizeof want, "/tmp/cg-zc-%u", (unsigned)getuid());
    CHECK(cg_zc_socket_dir(dir, sizeof dir) == CG_OK && strcmp(dir, want) == 0, "/tmp: %s", dir);
    CHECK(cg_zc_socket_dir(dir, 8) == CG_E_TOO_LARGE, "a path that does not fit");

    /* An unsafe directory is refused. */
    CHECK(chmod(test_dir, 0755) == 0, "chmod");
    s = NULL;
    r = cg_zc_server_create(&sd, &s, &e);
    CHECK(r == CG_E_PROTOCOL && !s && strstr(e.text, "0700"), "0755 dir: %s", e.text);
    chmod(test_dir, 0700);
    for (int i = 0; i < 4; i++) close(fds[i]);
    cg_zc_control_free(&c);
    remove_test_dir();
    return failures ? 1 : 0;
}

/* A fake producer that sends `bytes` bytes of a hello (version `ver`) with
 * `nfds` fds, to check the learner's refusals. */
static int fake_listen(const char *path)
{
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, strnlen(path, sizeof sa.sun_path - 1));
    unlink(path);
    if (bind(l, (struct sockaddr *)&sa, sizeof sa) || listen(l, 1)) return -1;
    return l;
}

static void fake_serve(int l, size_t bytes, int ver, int nfds)
{
    int c = accept(l, NULL, NULL);
    cg_zc_hello h = {0, 9, 2, (uint32_t)nfds, 4096, 2, 4096};
    uint8_t b[CG_ZC_HELLO_SIZE];
    cg_zc_hello_encode(&h, b);
    b[4] = (uint8_t)ver;
    int fds[4];
    for (int i = 0; i < nfds; i++) fds[i] = memfd_with("x");
    struct iovec iov = {.iov_base = b, .iov_len = bytes};
    union {
        char buf[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr a;
    } ctl;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (nfds) {
        m.msg_control = ctl.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
    }
    (void)sendmsg(c, &m, 0);
    for (int i = 0; i < nfds; i++) close(fds[i]);
    close(c);
}

static int case_bad_hello(void)
{
    make_test_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/fake.sock", test_dir);
    struct {
        const char *what;
        size_t bytes;
        int ver, nfds;
        cg_status want;
    } cases[] = {
        {"truncated hello (10 bytes)", 10, 1, 0, CG_E_PROTOCOL},
        {"unknown hello version 3", 64, 3, 3, CG_E_UNSUPPORTED},
        {"fd count 2 for 2 slots in fence mode (3 announced)", 64, 1, 2, CG_E_PROTOCOL},
        {"no bytes at all", 0, 1, 0, CG_E_PROTOCOL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int l = fake_listen(path);
        CHECK(l >= 0, "fake producer");
        pid_t pid = fork(); /* no GPU context in this case */
        if (pid == 0) {
            if (cases[i].bytes) fake_serve(l, cases[i].bytes, cases[i].ver, cases[i].nfds);
            else close(accept(l, NULL, NULL));
            _exit(0);
        }
        cg_zc_hello h;
        int fds[CG_ZC_MAX_HANDLES];
        uint32_t n = 0;
        int conn = -1;
        cg_err e = {{0}};
        int before = dup(0);
        close(before);
        cg_status st = cg_zc_connect(path, &h, fds, &n, &conn, &e);
        int after = dup(0);
        close(after);
        CHECK(st == cases[i].want, "%s: %s (%s)", cases[i].what, cg_status_name(st), e.text);
        CHECK(n == 0 && conn < 0 && after == before, "%s: no fd left open", cases[i].what);
        wait_child(pid);
        close(l);
        unlink(path);
    }
    remove_test_dir();
    return failures ? 1 : 0;
}

/* A server on test_dir for one slot in fence mode: a control block and
 * two memfds standing for the fds (no GPU). */
static cg_zc_server *small_server(cg_zc_control *c, int fds[2])
{
    cg_err e = {{0}};
    fds[0] = memfd_with("control");
    fds[1] = memfd_with("slot0");
    CHECK(cg_zc_control_create(1, 0x43, c, &e) == CG_OK, "control: %s", e.text);
    cg_zc_server_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.handles = fds;
    sd.handle_count = 2;
    sd.hello = (cg_zc_hello){0, 0x43, 1, 0, 4096, 2, 4096};
    sd.control = c;
    sd.dir = test_dir;
    cg_zc_server *s = NULL;
    CHECK(cg_zc_server_create(&sd, &s, &e) == CG_OK, "server: %s", e.text);
    return s;
}

static void small_server_free(cg_zc_server *s, cg_zc_control *c, int fds[2])
{
    cg_zc_server_destroy(s);
    close(fds[0]);
    close(fds[1]);
    cg_zc_control_free(c);
}

/* Socket files of producers that died: removed when a ring starts; the
 * others (a live pid, a name not ours, a file that is not a socket) stay. */
static int case_socket_stale(void)
{
    make_test_dir();
    pid_t dead = fork(); /* no GPU context in this case */
    if (dead == 0) _exit(0);
    wait_child(dead);
    char stale[160], live[160], other[160], plain[160];
    snprintf(stale, sizeof stale, "%s/ring-%ld-00000000000000aa.sock", test_dir, (long)dead);
    snprintf(live, sizeof live, "%s/ring-%ld-00000000000000bb.sock", test_dir, (long)getppid());
    snprintf(other, sizeof other, "%s/other-%ld.sock", test_dir, (long)dead);
    snprintf(plain, sizeof plain, "%s/ring-%ld-00000000000000cc.sock", test_dir, (long)dead);
    const char *socks[] = {stale, live, other};
    for (int i = 0; i < 3; i++) { /* bound, then closed without unlink: a crash */
        int l = fake_listen(socks[i]);
        CHECK(l >= 0, "bind %s", socks[i]);
        close(l);
    }
    int pf = open(plain, O_CREAT | O_WRONLY, 0600);
    CHECK(pf >= 0, "plain file");
    if (pf >= 0) close(pf);
    cg_zc_control c;
    int fds[2];
    cg_zc_server *s = small_server(&c, fds);
    CHECK(access(stale, F_OK) != 0, "the dead producer's socket %s was removed", stale);
    CHECK(access(live, F_OK) == 0, "a live pid's socket stays");
    CHECK(access(other, F_OK) == 0, "a socket not named ring-<pid>-<id>.sock stays");
    CHECK(access(plain, F_OK) == 0, "a regular file stays");
    small_server_free(s, &c, fds);
    unlink(live);
    unlink(other);
    unlink(plain);
    unlink(stale);
    remove_test_dir();
    return failures ? 1 : 0;
}

/* CPU time (user + system) of every thread of this process but the
 * calling one, in clock ticks; -1 when /proc cannot say. */
static long other_threads_ticks(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int tid = atoi(e->d_name);
        if (tid <= 0 || tid == (int)gettid()) continue;
        char path[96], buf[1024];
        snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        /* After "pid (name) ": state, then utime and stime are fields 14, 15. */
        char *p = strrchr(buf, ')');
        unsigned long ut = 0, st = 0;
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            total += (long)(ut + st);
    }
    closedir(d);
    return total;
}

/* A learner that sends bytes (the protocol says it sends nothing): the
 * hand-off thread must not spin reading them. A peer floods for 2 s; the
 * server's thread may use a quarter of one core at most (a resource bound,
 * not a timing limit: a spinning thread uses all of a core), and the flooder
 * is disconnected while a well-behaved learner can still connect. */
static int case_socket_flood(void)
{
    make_test_dir();
    cg_zc_control c;
    int sfds[2];
    cg_zc_server *s = small_server(&c, sfds);
    if (!s) return 1;
    char path[CG_ZC_PATH_SIZE];
    snprintf(path, sizeof path, "%s", cg_zc_server_path(s));
    pid_t pid = fork(); /* no GPU context in this case */
    if (pid == 0) {
        cg_zc_hello h;
        int fds[CG_ZC_MAX_HANDLES];
        uint32_t n;
        int conn;
        cg_err e = {{0}};
        if (cg_zc_connect(path, &h, fds, &n, &conn, &e) != CG_OK) _exit(2);
        char junk[4096];
        memset(junk, 'x', sizeof junk);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do { /* until 2 s passed or the producer hung up */
            if (send(conn, junk, sizeof junk, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
                errno != EAGAIN && errno != EINTR)
                _exit(0);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (t.tv_sec - t0.tv_sec < 2);
        _exit(0);
    }
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    long before = other_threads_ticks();
    sleep(2);
    long ticks = other_threads_ticks() - before;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall_ticks = ((double)(w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9) *
                        (double)sysconf(_SC_CLK_TCK);
    CHECK(wait_child(pid) == 0, "flooding peer connected");
    printf("server thread: %ld ticks in %.0f ticks of wall time while flooded\n", ticks,
           wall_ticks);
    CHECK(before >= 0 && ticks * 4 < (long)wall_ticks,
          "the server thread used %ld of %.0f ticks (< 25%% of one core) while a peer flooded",
          ticks, wall_ticks);
    wait_for(s, 0);
    cg_zc_server_stats st;
    cg_zc_server_get_stats(s, &st);
    CHECK(st.departed == 1 && !st.connected, "the flooder was disconnected (departed %u)",
          st.departed);
    cg_zc_hello h;
    int rfds[CG_ZC_MAX_HANDLES];
    uint32_t n = 0;
    int conn = -1;
    cg_err e = {{0}};
    CHECK(cg_zc_connect(path, &h, rfds, &n, &conn, &e) == CG_OK && n == 2,
          "a learner connects after the flooder: %s", e.text);
    for (uint32_t i = 0; i < n; i++) close(rfds[i]);
    if (conn >= 0) close(conn);
    small_server_free(s, &c, sfds);
    remove_test_dir();
    return failures ? 1 : 0;
}

/* Another uid: the producer runs as a test user; this process (root)
 * connects and must be refused by SO_PEERCRED. */
static int case_peer_uid(void)
{
    if (geteuid() != 0) {
        printf("SKIP zc_peer_uid: needs root to run a producer as a test user\n");
        return SKIP;
    }
    struct passwd *pw = getpwnam("cgzctest");
    if (!pw) {
        if (system("useradd --system --no-create-home --shell /usr/sbin/nologin cgzctest "
                   ">/dev/null 2>&1") != 0 ||
            !(pw = getpwnam("cgzctest"))) {
            printf("SKIP zc_peer_uid: useradd cgzctest failed\n");
            return SKIP;
        }
    }
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    int p[2], q[2];
    CHECK(pipe(p) == 0 && pipe(q) == 0, "pipes");
    pid_t pid = fork(); /* no GPU context in this case */
    if (pid == 0) {
        close(p[0]);
        close(q[1]);
        if (setgid(gid) != 0 || setuid(uid) != 0) _exit(3);
        char dir[96];
        snprintf(dir, sizeof dir, "/tmp/cg-zc-uidtest-%ld", (long)getpid());
        mkdir(dir, 0700);
        int fd = memfd_with("control");
        cg_zc_server_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.handles = &fd;
        sd.handle_count = 1;
        sd.hello = (cg_zc_hello){0, 1, 1, 0, 4096, 2, 4096};
        sd.dir = dir;
        cg_zc_server *s = NULL;
        cg_err e = {{0}};
        if (cg_zc_server_create(&sd, &s, &e) != CG_OK) {
            fprintf(stderr, "uid child: %s\n", e.text);
            _exit(4);
        }
        char path[CG_ZC_PATH_SIZE];
        snprintf(path, sizeof path, "%s", cg_zc_server_path(s));
        (void)!write(p[1], path, sizeof path);
        char c;
        (void)!read(q[0], &c, 1);
        cg_zc_server_stats st;
        cg_zc_server_get_stats(s, &st);
        cg_zc_server_destroy(s);
        rmdir(dir);
        _exit(st.refused_uid == 1 && st.accepted == 0 ? 0 : 5);
    }
    close(p[1]);
    close(q[0]);
    char path[CG_ZC_PATH_SIZE] = {0};
    CHECK(read(p[0], path, sizeof path) == (ssize_t)sizeof path, "path from the producer");
    cg_zc_hello h;
    int fds[CG_ZC_MAX_HANDLES];
    uint32_t n = 0;
    int conn = -1;
    cg_err e = {{0}};
    cg_status st = cg_zc_connect(path, &h, fds, &n, &conn, &e);
    CHECK(st == CG_E_PROTOCOL && strstr(e.text, "another user") && n == 0,
          "other uid: %s %s", cg_status_name(st), e.text);
    (void)!write(q[1], "x", 1);
    int rc = wait_child(pid);
    CHECK(rc == 0, "producer saw one refusal by uid and accepted none (exit %d)", rc);
    return failures ? 1 : 0;
}

/* ---- the Vulkan ring ------------------------------------------------------------ */

static vkt T;

/* Read `size` bytes of a VkBuffer through the harness's staging path:
 * the buffer is copied into a host-visible buffer and mapped. */
static int read_buffer(vkt *t, VkBuffer src, size_t size, uint8_t *out)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer dst;
    if (VKT_FN(t, vkCreateBuffer)(t->dev, &bi, NULL, &dst) != VK_SUCCESS) return 1;
    VkMemoryRequirements req;
    VKT_FN(t, vkGetBufferMemoryRequirements)(t->dev, dst, &req);
    VkPhysicalDeviceMemoryProperties mp;
    ((PFN_vkGetPhysicalDeviceMemoryProperties)t->gipa(t->inst, "vkGetPhysicalDeviceMemoryProperties"))(
        t->phys, &mp);
    uint32_t type = 0;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            type = i;
            break;
        }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    VkDeviceMemory mem;
    if (VKT_FN(t, vkAllocateMemory)(t->dev, &ai, NULL, &mem) != VK_SUCCESS) return 1;
    VKT_FN(t, vkBindBufferMemory)(t->dev, dst, mem, 0);
    VKT_FN(t, vkResetCommandBuffer)(t->cmd, 0);
    VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(t, vkBeginCommandBuffer)(t->cmd, &cbi);
    VkBufferCopy reg = {0, 0, size};
    VKT_FN(t, vkCmdCopyBuffer)(t->cmd, src, dst, 1, &reg);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                    0, 1, &mb, 0, NULL, 0, NULL);
    VKT_FN(t, vkEndCommandBuffer)(t->cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &t->cmd;
    VKT_FN(t, vkResetFences)(t->dev, 1, &t->fence);
    int rc = VKT_FN(t, vkQueueSubmit)(t->queue, 1, &si, t->fence) != VK_SUCCESS ||
             VKT_FN(t, vkWaitForFences)(t->dev, 1, &t->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS;
    void *map = NULL;
    if (!rc && VKT_FN(t, vkMapMemory)(t->dev, mem, 0, VK_WHOLE_SIZE, 0, &map) == VK_SUCCESS) {
        memcpy(out, map, size);
        VKT_FN(t, vkUnmapMemory)(t->dev, mem);
    } else {
        rc = 1;
    }
    VKT_FN(t, vkDestroyBuffer)(t->dev, dst, NULL);
    VKT_FN(t, vkFreeMemory)(t->dev, mem, NULL);
    return rc;
}

/* Import an OPAQUE_FD allocation (consumed) as a transfer-source buffer. */
static int import_buffer(vkt *t, int fd, uint64_t alloc_size, size_t size, VkBuffer *buf,
                         VkDeviceMemory *mem)
{
    VkExternalMemoryBufferCreateInfo eb = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    eb.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = &eb;
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (VKT_FN(t, vkCreateBuffer)(t->dev, &bi, NULL, buf) != VK_SUCCESS) return 1;
    VkMemoryRequirements req;
    VKT_FN(t, vkGetBufferMemoryRequirements)(t->dev, *buf, &req);
    VkImportMemoryFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    imp.fd = fd;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &imp;
    ai.allocationSize = alloc_size;
    /* An OPAQUE_FD import must use the exporter's memory type: the ring
     * takes the first device-local type the buffer allows, and so do we. */
    VkPhysicalDeviceMemoryProperties mp;
    ((PFN_vkGetPhysicalDeviceMemoryProperties)t->gipa(t->inst, "vkGetPhysicalDeviceMemoryProperties"))(
        t->phys, &mp);
    ai.memoryTypeIndex = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && ai.memoryTypeIndex == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            ai.memoryTypeIndex = i;
    VkResult r = VKT_FN(t, vkAllocateMemory)(t->dev, &ai, NULL, mem);
    if (r != VK_SUCCESS) {
        fprintf(stderr, "import: vkAllocateMemory %d\n", r);
        close(fd);
        return 1;
    }
    return VKT_FN(t, vkBindBufferMemory)(t->dev, *buf, *mem, 0) != VK_SUCCESS;
}

static void hex_encode(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static int hex_decode(const char *s, uint8_t *b, size_t cap)
{
    size_t n = strlen(s) / 2;
    if (n > cap) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        b[i] = (uint8_t)v;
    }
    return (int)n;
}

/* The bytes of a slot a descriptor's planes cover (docs/zero-copy-v2/protocol.md):
 * a version 3 descriptor's RGB and depth planes of every eye, else the
 * picture. */
static size_t frame_extent(const cg_zc_desc *d)
{
    size_t px = (size_t)d->width * d->height;
    if (d->eyes <= 1 && !d->depth_format) return (size_t)d->row_pitch * d->height;
    size_t end = (size_t)(d->eyes - 1) * (size_t)d->color_eye_stride + px * 3;
    size_t dend = (size_t)d->depth_offset + (size_t)(d->eyes - 1) * (size_t)d->depth_eye_stride +
                  px * 4;
    return d->depth_format && dend > end ? dend : end;
}

/* Second process: a Vulkan learner. Connects to the descriptors' socket,
 * imports each slot once, and for every descriptor acquires, reads the
 * slot back and compares with zc_pattern(frame), then releases. Version 3
 * descriptors (eyes, depth) read every plane; they are checked by the
 * producer's test from the dump (ZC_LEARNER_DUMP, below). */
static int child_vk_learner(int argc, char **argv)
{
    char why[256];
    int rc = vkt_init(&T, why, sizeof why);
    if (rc) {
        fprintf(stderr, "child: %s\n", why);
        return rc;
    }
    cg_zc_desc d;
    cg_err e = {{0}};
    uint8_t raw[CG_ZC_DESC_MAX_SIZE];
    int conn = -1, first = 1;
    cg_zc_control ctl;
    memset(&ctl, 0, sizeof ctl);
    VkBuffer bufs[CG_ZC_MAX_SLOTS] = {0};
    VkDeviceMemory mems[CG_ZC_MAX_SLOTS] = {0};
    for (int a = 0; a < argc; a++) {
        int len = hex_decode(argv[a], raw, sizeof raw);
        CHECK(len == CG_ZC_DESC_SIZE || len == CG_ZC_DESC_V3_SIZE, "hex");
        CHECK(len > 0 && cg_zc_desc_decode(raw, (size_t)len, &d, &e) == CG_OK, "decode: %s", e.text);
        if (failures) break;
        size_t bytes = frame_extent(&d);
        if (first) {
            first = 0;
            CHECK(memcmp(d.device_uuid, T.uuid, 16) == 0, "the descriptor names this device");
            cg_zc_hello h;
            int fds[CG_ZC_MAX_HANDLES];
            uint32_t n;
            if (cg_zc_connect(d.socket_path, &h, fds, &n, &conn, &e) != CG_OK) {
                fprintf(stderr, "child: connect: %s\n", e.text);
                return 1;
            }
            CHECK(h.ring_id == d.ring_id && h.slot_count == d.slot_count && h.slot_size == d.slot_size &&
                      n == d.slot_count + (d.mode == CG_ZC_MODE_SEMAPHORE ? 2u : 1u),
                  "hello matches the descriptor");
            CHECK(cg_zc_control_map(fds[0], h.slot_count, h.ring_id, &ctl, &e) == CG_OK, "map: %s", e.text);
            for (uint32_t i = 0; i < h.slot_count; i++)
                CHECK(import_buffer(&T, fds[1 + i], h.slot_size, bytes, &bufs[i], &mems[i]) == 0,
                      "import slot %u", i);
        }
        if (failures) break;
        CHECK(cg_zc_acquire(&ctl, d.slot, d.frame, &e) == CG_OK, "acquire frame %llu: %s",
              (unsigned long long)d.frame, e.text);
        uint8_t *got = malloc(bytes), *want = malloc(bytes);
        CHECK(read_buffer(&T, bufs[d.slot], bytes, got) == 0, "read slot");
        /* ZC_LEARNER_DUMP=DIR: the frame's bytes go to DIR/frame-N.bin for
         * the producer's test to compare (an RGB slot is not the pattern). */
        const char *dump = getenv("ZC_LEARNER_DUMP");
        if (dump) {
            char path[512];
            snprintf(path, sizeof path, "%s/frame-%llu.bin", dump, (unsigned long long)d.frame);
            FILE *f = fopen(path, "wb");
            int ok = f && fwrite(got, 1, bytes, f) == bytes;
            if (f && fclose(f) != 0) ok = 0;
            CHECK(ok, "write %s", path);
            memcpy(want, got, bytes);
        } else {
            zc_pattern(want, (int)d.width, (int)d.height, (int)d.frame);
        }
        size_t bad = 0;
        for (size_t i = 0; i < bytes; i++) bad += got[i] != want[i];
        CHECK(bad == 0, "frame %llu in slot %u: %zu bytes differ", (unsigned long long)d.frame,
              d.slot, bad);
        free(got);
        free(want);
        CHECK(cg_zc_release(&ctl, d.slot, d.frame, &e) == CG_OK, "release: %s", e.text);
        printf("learner: frame %llu slot %u byte-exact\n", (unsigned long long)d.frame, d.slot);
    }
    for (uint32_t i = 0; i < CG_ZC_MAX_SLOTS; i++)
        if (bufs[i]) {
            VKT_FN(&T, vkDestroyBuffer)(T.dev, bufs[i], NULL);
            VKT_FN(&T, vkFreeMemory)(T.dev, mems[i], NULL);
        }
    cg_zc_control_free(&ctl);
    if (conn >= 0) close(conn);
    vkt_ring_fini(&T);
    return failures ? 1 : 0;
}

/* Second process: a hostile learner. Connects, writes `what` into every
 * lease word, and leaves without releasing anything. */
static int child_hostile(const char *path, const char *what)
{
    cg_zc_hello h;
    int fds[CG_ZC_MAX_HANDLES];
    uint32_t n;
    int conn;
    cg_err e = {{0}};
    if (cg_zc_connect(path, &h, fds, &n, &conn, &e) != CG_OK) {
        fprintf(stderr, "hostile: connect: %s\n", e.text);
        return 2;
    }
    cg_zc_control c;
    if (cg_zc_control_map(fds[0], h.slot_count, h.ring_id, &c, &e) != CG_OK) return 3;
    for (uint32_t i = 0; i < h.slot_count; i++) {
        uint64_t cur = cg_zc_lease_load(&c, i), f = CG_ZC_WORD_FRAME(cur);
        uint64_t w = strcmp(what, "writing") == 0  ? CG_ZC_WORD(f, CG_ZC_WRITING)
                     : strcmp(what, "closed") == 0 ? CG_ZC_WORD(f, CG_ZC_CLOSED)
                     : strcmp(what, "seven") == 0  ? CG_ZC_WORD(f, 7)
                     : strcmp(what, "future") == 0 ? CG_ZC_WORD(f + 1000, CG_ZC_PUBLISHED)
                     : strcmp(what, "active") == 0 ? CG_ZC_WORD(f + 1, CG_ZC_ACTIVE)
                                                   : UINT64_MAX;
        cg_zc_lease_store(&c, i, w);
    }
    cg_zc_control_free(&c);
    for (uint32_t i = 1; i < n; i++) close(fds[i]);
    close(conn);
    return 0;
}

/* Names seen through an intercepted vkSetDebugUtilsObjectNameEXT. */
static int nnames, ring_names;
static PFN_vkSetDebugUtilsObjectNameEXT real_set_name;
static VKAPI_ATTR VkResult VKAPI_CALL spy_set_name(VkDevice d, const VkDebugUtilsObjectNameInfoEXT *ni)
{
    nnames++;
    if (strncmp(ni->pObjectName, "cg ring ", 8) == 0) ring_names++;
    return real_set_name ? real_set_name(d, ni) : VK_SUCCESS;
}
/* Command labels the ring records (a copy inside "cg ring: frame F -> slot S"). */
static int ring_labels;
static PFN_vkCmdBeginDebugUtilsLabelEXT real_begin_label;
static VKAPI_ATTR void VKAPI_CALL spy_begin_label(VkCommandBuffer cmd, const VkDebugUtilsLabelEXT *l)
{
    if (strncmp(l->pLabelName, "cg ring: frame ", 15) == 0) ring_labels++;
    if (real_begin_label) real_begin_label(cmd, l);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL spy_gipa(VkInstance inst, const char *name)
{
    if (strcmp(name, "vkCmdBeginDebugUtilsLabelEXT") == 0) {
        real_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)T.gipa(inst, name);
        return real_begin_label ? (PFN_vkVoidFunction)spy_begin_label : NULL;
    }
    if (strcmp(name, "vkSetDebugUtilsObjectNameEXT") == 0) {
        real_set_name = (PFN_vkSetDebugUtilsObjectNameEXT)T.gipa(inst, name);
        return (PFN_vkVoidFunction)spy_set_name;
    }
    return T.gipa(inst, name);
}

static cg_vk_ring_desc ring_desc(int w, int h, cg_zc_mode mode)
{
    cg_vk_ring_desc d = vkt_ring_desc(&T, w, h, mode);
    d.get_instance_proc_addr = spy_gipa;
    d.debug_utils = T.has_debug_utils;
    d.socket_dir = test_dir;
    return d;
}

/* One "game" frame in fence mode: upload pattern f into the game image,
 * then record the ring's copy into the game's command buffer, submit and
 * wait on the game's fence (as the game's frame loop does). */
static cg_status game_frame_fence(cg_vk_ring *r, VkImage img, int w, int h, int f, uint8_t *desc)
{
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    zc_pattern(px, w, h, f);
    int up = vkt_upload(&T, img, w, h, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    free(px);
    if (up) return CG_E_VULKAN;
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
    cg_status st = cg_vk_ring_record(r, T.cmd, img, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, desc);
    VKT_FN(&T, vkEndCommandBuffer)(T.cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &T.cmd;
    VKT_FN(&T, vkResetFences)(T.dev, 1, &T.fence);
    VKT_FN(&T, vkQueueSubmit)(T.queue, 1, &si, T.fence);
    VKT_FN(&T, vkWaitForFences)(T.dev, 1, &T.fence, VK_TRUE, UINT64_MAX);
    return st;
}

/* The learner process on ndesc descriptors (each of its own length). */
static int spawn_learner(int ndesc, const uint8_t *const *descs)
{
    char *argv[CG_ZC_MAX_SLOTS + 3];
    static char hex[CG_ZC_MAX_SLOTS][2 * CG_ZC_DESC_MAX_SIZE + 1];
    argv[0] = (char *)self_exe;
    argv[1] = "child-vk-learner";
    for (int i = 0; i < ndesc; i++) {
        hex_encode(descs[i], cg_zc_desc_length(descs[i]), hex[i]);
        argv[2 + i] = hex[i];
    }
    argv[2 + ndesc] = NULL;
    pid_t pid = spawn_self(argv);
    return pid < 0 ? -1 : wait_child(pid);
}

static int run_learner(int ndesc, uint8_t descs[][CG_ZC_DESC_SIZE])
{
    const uint8_t *p[CG_ZC_MAX_SLOTS];
    for (int i = 0; i < ndesc; i++) p[i] = descs[i];
    return spawn_learner(ndesc, p);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Semaphore mode, one frame: pattern `pattern` uploaded into img,
 * published as frame f, the learner's wait for value f done here on the
 * host, then the slot read back byte-exact. px and got hold w*h*4 bytes. */
static void publish_checked(cg_vk_ring *r, const cg_vk_ring_info *info, VkImage img, int w, int h,
                            int f, int pattern, uint8_t *px, uint8_t *got,
                            uint8_t desc[CG_ZC_DESC_SIZE])
{
    size_t bytes = (size_t)w * (size_t)h * 4;
    cg_err e = {{0}};
    zc_pattern(px, w, h, pattern);
    CHECK(vkt_upload(&T, img, w, h, px, VK_IMAGE_LAYOUT_GENERAL) == 0, "upload");
    CHECK(cg_vk_ring_publish(r, img, VK_IMAGE_LAYOUT_GENERAL, desc) == CG_OK, "publish %d: %s", f,
          cg_vk_ring_last_error(r));
    uint64_t v = (uint64_t)f;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &info->semaphore;
    wi.pValues = &v;
    CHECK(VKT_FN(&T, vkWaitSemaphores)(T.dev, &wi, UINT64_MAX) == VK_SUCCESS, "wait %d", f);
    cg_zc_desc dd;
    CHECK(cg_zc_desc_decode(desc, CG_ZC_DESC_SIZE, &dd, &e) == CG_OK, "decode %d: %s", f, e.text);
    CHECK(read_buffer(&T, info->buffers[dd.slot], bytes, got) == 0 && memcmp(got, px, bytes) == 0,
          "frame %d byte-exact in slot %u", f, dd.slot);
}

/* The control block's copy of the counters (docs/zero-copy-v2/protocol.md,
 * "Counters"): 1 when its header is CGZS, 5 and its values equal want. */
static int control_counters_are(const cg_vk_ring_info *info, const uint64_t *want)
{
    const uint8_t *p = info->control->map + CG_ZC_COUNTERS_OFFSET;
    uint32_t n;
    memcpy(&n, p + 4, 4);
    if (memcmp(p, "CGZS", 4) != 0 || n != CG_ZC_COUNTERS) return 0;
    for (int i = 0; i < CG_ZC_COUNTERS; i++) {
        uint64_t v;
        memcpy(&v, p + 8 + 8 * i, 8);
        if (v != want[i]) return 0;
    }
    return 1;
}

/* Each producer counter at its point: 2 frames published, a learner
 * connects and leases both, the third frame is skipped after polling
 * wait_ns, the learner leaves (2 leases reclaimed), the next frame is
 * published. Expected values are the steps taken here. */
static void ring_counters_case(void)
{
    const int w = 16, h = 8;
    cg_vk_ring_desc d = ring_desc(w, h, CG_ZC_MODE_FENCE);
    d.slots = 2;
    d.wait_ns = 3000000;
    cg_err e = {{0}};
    cg_vk_ring *r = NULL;
    VkImage img;
    VkDeviceMemory mem;
    CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
    if (!r || vkt_image(&T, w, h, -1, 0, &img, &mem)) return;
    cg_vk_ring_info info;
    cg_vk_ring_get_info(r, &info);
    uint64_t c[CG_ZC_COUNTERS], zero[CG_ZC_COUNTERS] = {0};
    cg_vk_ring_get_counters(r, c);
    CHECK(memcmp(c, zero, sizeof c) == 0 && control_counters_are(&info, zero),
          "a new ring's counters are 0, in the control block too");
    uint8_t desc[2][CG_ZC_DESC_SIZE], more[CG_ZC_DESC_SIZE];
    for (int f = 1; f <= 2; f++)
        CHECK(game_frame_fence(r, img, w, h, f, desc[f - 1]) == CG_OK, "frame %d", f);
    cg_zc_hello hl;
    int fds[CG_ZC_MAX_HANDLES], conn = -1;
    uint32_t nfd = 0;
    CHECK(cg_zc_connect(info.socket_path, &hl, fds, &nfd, &conn, &e) == CG_OK, "connect: %s", e.text);
    for (uint32_t i = 0; i < nfd; i++) close(fds[i]);
    wait_for(info.server, 1);
    for (int f = 1; f <= 2; f++) {
        cg_zc_desc dd;
        CHECK(cg_zc_desc_decode(desc[f - 1], CG_ZC_DESC_SIZE, &dd, &e) == CG_OK &&
                  cg_zc_acquire(info.control, dd.slot, (uint64_t)f, &e) == CG_OK,
              "lease frame %d: %s", f, e.text);
    }
    CHECK(game_frame_fence(r, img, w, h, 3, more) == CG_E_RING_FULL, "both slots leased: skipped");
    cg_vk_ring_get_counters(r, c);
    CHECK(c[CG_ZC_COUNT_PUBLISHED] == 2 && c[CG_ZC_COUNT_SKIPPED] == 1 &&
              c[CG_ZC_COUNT_WAIT_NS] >= d.wait_ns && c[CG_ZC_COUNT_CONNECTIONS] == 1 &&
              c[CG_ZC_COUNT_RECLAIMED] == 0,
          "published 2, skipped 1, waited %llu ns (>= wait_ns %llu), 1 connection, 0 reclaimed",
          (unsigned long long)c[CG_ZC_COUNT_WAIT_NS], (unsigned long long)d.wait_ns);
    CHECK(control_counters_are(&info, c), "the control block has the same counters after the skip");
    if (conn >= 0) close(conn);
    wait_for(info.server, 0);
    CHECK(game_frame_fence(r, img, w, h, 4, more) == CG_OK, "after the learner left: published");
    cg_vk_ring_get_counters(r, c);
    CHECK(c[CG_ZC_COUNT_PUBLISHED] == 3 && c[CG_ZC_COUNT_SKIPPED] == 1 &&
              c[CG_ZC_COUNT_CONNECTIONS] == 1 && c[CG_ZC_COUNT_RECLAIMED] == 2,
          "published 3, skipped 1, 1 connection, 2 leases reclaimed (%llu)",
          (unsigned long long)c[CG_ZC_COUNT_RECLAIMED]);
    CHECK(control_counters_are(&info, c), "the control block has the same counters after it");
    vkt_image_free(&T, img, mem);
    cg_vk_ring_destroy(r);
}

/* ---- RGB-D and stereo rings (docs/zero-copy-v2/protocol.md, "Depth and stereo planes") ---- */

typedef struct rgbd_cfg {
    int sw, sh, tw, th;
    uint32_t eyes;
    cg_zc_depth_encoding enc;
    float n, f;
    int z01;
    int override; /* frame 2 gives its own near/far/zZeroToOne at the depth call */
} rgbd_cfg;

static const cg_zc_depth_params RGBD_OVERRIDE = {16.0f, 16.5f, 1};

/* What frame f of a configuration used: the depth parameters its
 * descriptor must carry. */
static cg_zc_depth_params rgbd_params(const rgbd_cfg *c, int f)
{
    if (c->override && f == 2) return RGBD_OVERRIDE;
    return (cg_zc_depth_params){c->n, c->f, c->z01};
}

/* The frame's slot as the learner process dumped it, checked plane by
 * plane: colour of eye e against cg_convert's RAW of pattern 2f + e (rows
 * reversed), depth against the formula (linear: <= 2 ulps) or the stored
 * bits (raw). */
static void rgbd_check_dump(const rgbd_cfg *c, const cg_zc_desc *d, const char *dir, int f,
                            uint32_t *max_ulp)
{
    char path[600];
    snprintf(path, sizeof path, "%s/frame-%llu.bin", dir, (unsigned long long)d->frame);
    size_t n = frame_extent(d);
    uint8_t *got = malloc(n);
    FILE *fp = fopen(path, "rb");
    CHECK(fp && got && fread(got, 1, n, fp) == n, "read %s", path);
    if (fp) fclose(fp);
    size_t spx = (size_t)c->sw * (size_t)c->sh, rgb = (size_t)c->tw * (size_t)c->th * 3;
    uint8_t *px = malloc(spx * 4), *want = malloc(rgb);
    float *src = malloc(spx * 4);
    cg_zc_depth_params p = rgbd_params(c, f);
    for (uint32_t e = 0; got && px && want && src && e < c->eyes; e++) {
        zc_pattern(px, c->sw, c->sh, 2 * f + (int)e);
        CHECK(rgb_oracle(px, c->sw, c->sh, c->tw, c->th, 1, NULL, want) == 0, "oracle");
        CHECK(memcmp(got + e * d->color_eye_stride, want, rgb) == 0,
              "%dx%d -> %dx%d frame %d eye %u: the RGB plane is cg_convert's RAW, upright", c->sw,
              c->sh, c->tw, c->th, f, e);
        if (c->enc == CG_ZC_DEPTH_NONE) continue;
        depth_frame(src, c->sw, c->sh, f, (int)e);
        const uint8_t *plane = got + d->depth_offset + e * d->depth_eye_stride;
        int bad = 0;
        for (int y = 0; y < c->th && bad < 3; y++)
            for (int x = 0; x < c->tw && bad < 3; x++) {
                float v = src[depth_source_index(x, y, c->sw, c->sh, c->tw, c->th, 1)], g;
                memcpy(&g, plane + ((size_t)y * (size_t)c->tw + (size_t)x) * 4, 4);
                if (c->enc == CG_ZC_DEPTH_RAW) {
                    if (depth_bits(g) != depth_bits(v)) {
                        CHECK(0, "frame %d eye %u raw (%d, %d): 0x%08x, stored 0x%08x", f, e, x, y,
                              depth_bits(g), depth_bits(v));
                        bad++;
                    }
                    continue;
                }
                float w = depth_reference(v, p.near_plane, p.far_plane, p.z_zero_to_one);
                uint32_t u = depth_ulps(g, w);
                if (u > *max_ulp) *max_ulp = u;
                if (u > 2) {
                    CHECK(0, "frame %d eye %u (%d, %d) of d %.9g: %.9g, the formula says %.9g (%u ulps)",
                          f, e, x, y, (double)v, (double)g, (double)w, u);
                    bad++;
                }
            }
    }
    free(got);
    free(px);
    free(want);
    free(src);
    remove(path);
}

/* Frame f's inputs: each eye's colour (pattern 2f + e) and depth images
 * (fill(f, e): depth_frame, or serve's depth_serve_pattern). */
typedef void (*depth_fill)(float *d, int w, int h, int f, int eye);
static void rgbd_upload_with(const rgbd_cfg *c, VkImage *cimg, VkImage *dimg, int f, depth_fill fill)
{
    size_t spx = (size_t)c->sw * (size_t)c->sh;
    uint8_t *px = malloc(spx * 4);
    float *dp = malloc(spx * 4);
    for (uint32_t e = 0; px && dp && e < c->eyes; e++) {
        zc_pattern(px, c->sw, c->sh, 2 * f + (int)e);
        CHECK(vkt_upload(&T, cimg[e], c->sw, c->sh, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL) == 0,
              "upload colour");
        if (c->enc == CG_ZC_DEPTH_NONE) continue;
        fill(dp, c->sw, c->sh, f, (int)e);
        CHECK(vkt_upload_depth(&T, dimg[e], c->sw, c->sh, dp, VK_IMAGE_LAYOUT_GENERAL) == 0,
              "upload depth");
    }
    free(px);
    free(dp);
}

static void rgbd_upload(const rgbd_cfg *c, VkImage *cimg, VkImage *dimg, int f)
{
    rgbd_upload_with(c, cimg, dimg, f, depth_frame);
}

static void game_begin(void)
{
    VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
}

/* One eye of a game frame: its depth part recorded at the "depth point",
 * the colour part (fence: recorded; semaphore: published after the game's
 * submit), one submit per eye as the mod does for stereo. Returns the
 * colour part's status; *len its descriptor length. */
static cg_status rgbd_eye(cg_vk_ring *r, cg_zc_mode mode, const rgbd_cfg *c, VkImage cimg,
                          VkImage dimg, uint32_t eye, const cg_zc_depth_params *p, uint8_t *desc,
                          size_t *len)
{
    game_begin();
    size_t dl = 99;
    if (c->enc != CG_ZC_DEPTH_NONE)
        CHECK(cg_vk_ring_record_depth(r, T.cmd, dimg, VK_IMAGE_LAYOUT_GENERAL, eye, p, desc, &dl) ==
                      CG_OK &&
                  dl == 0,
              "depth part of eye %u: %s (len %zu)", eye, cg_vk_ring_last_error(r), dl);
    cg_status st;
    if (mode == CG_ZC_MODE_FENCE) {
        st = cg_vk_ring_record_eye(r, T.cmd, cimg, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, eye,
                                   NULL, desc, len);
        CHECK(vkt_submit_wait(&T) == 0, "the game's submit");
    } else {
        CHECK(vkt_submit_wait(&T) == 0, "the game's submit");
        st = cg_vk_ring_publish_eye(r, cimg, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, eye, NULL,
                                    desc, len);
        VKT_FN(&T, vkQueueWaitIdle)(T.queue);
    }
    return st;
}

/* Frames 1..3 of each configuration, both eyes (and depth) per frame, read
 * by the learner process; then the frame-part refusals and an abandoned
 * frame on the first ring. */
static void rgbd_case(cg_zc_mode mode)
{
    static const rgbd_cfg CFG[] = {
        {37, 23, 16, 11, 2, CG_ZC_DEPTH_LINEAR, 0.05f, 1000.0f, 1, 0},
        {33, 20, 47, 29, 2, CG_ZC_DEPTH_LINEAR, 0.1f, 100.0f, 0, 1},
        {64, 48, 64, 48, 1, CG_ZC_DEPTH_RAW, 0, 0, 0, 0},
        {41, 23, 19, 29, 2, CG_ZC_DEPTH_NONE, 0, 0, 0, 0},
        {1, 1, 1, 1, 2, CG_ZC_DEPTH_RAW, 0, 0, 0, 0},
        {640, 360, 640, 360, 2, CG_ZC_DEPTH_LINEAR, 1.0f, 2.0f, 1, 0},
        {1920, 1080, 640, 360, 1, CG_ZC_DEPTH_LINEAR, 0.05f, 1000.0f, 0, 0},
    };
    char dump[] = "/tmp/cg-rgbd-dump-XXXXXX";
    CHECK(mkdtemp(dump) != NULL, "dump dir");
    uint32_t max_ulp = 0;
    int frames = 0;
    for (size_t ci = 0; ci < sizeof CFG / sizeof CFG[0]; ci++) {
        const rgbd_cfg *c = &CFG[ci];
        cg_vk_ring_desc d = ring_desc(c->sw, c->sh, mode);
        d.slot_format = CG_VK_SLOT_RGB8;
        d.target_width = c->tw;
        d.target_height = c->th;
        d.flip = 1;
        d.slots = 3;
        d.eyes = c->eyes;
        d.depth = c->enc;
        d.near_plane = c->n;
        d.far_plane = c->f;
        d.z_zero_to_one = c->z01;
        d.reuse_recordings = mode == CG_ZC_MODE_SEMAPHORE;
        cg_vk_ring *r = NULL;
        cg_err e = {{0}};
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create %zu: %s", ci, e.text);
        if (!r) continue;
        uint8_t tmpl[CG_ZC_DESC_MAX_SIZE];
        cg_zc_desc td;
        CHECK(cg_vk_ring_template(r, tmpl, sizeof tmpl) == CG_OK &&
                  cg_zc_desc_length(tmpl) == CG_ZC_DESC_V3_SIZE &&
                  cg_zc_desc_decode(tmpl, CG_ZC_DESC_V3_SIZE, &td, &e) == CG_OK && td.eyes == c->eyes &&
                  td.depth_encoding == (uint32_t)c->enc &&
                  td.depth_format == (c->enc ? CG_ZC_FORMAT_R32_SFLOAT : 0u),
              "template %zu: version 3, %u eyes, encoding %d: %s", ci, c->eyes, (int)c->enc, e.text);
        VkImage cimg[2], dimg[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
        VkDeviceMemory cmem[2], dmem[2];
        for (uint32_t k = 0; k < c->eyes; k++) {
            CHECK(vkt_image_ex(&T, c->sw, c->sh, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT,
                               -1, 0, &cimg[k], &cmem[k]) == 0,
                  "colour image");
            if (c->enc) CHECK(vkt_depth_image(&T, c->sw, c->sh, &dimg[k], &dmem[k]) == 0, "depth image");
        }
        uint8_t descs[3][CG_ZC_DESC_MAX_SIZE];
        const uint8_t *dp[3];
        for (int f = 1; f <= 3; f++) {
            rgbd_upload(c, cimg, dimg, f);
            cg_zc_depth_params p = rgbd_params(c, f);
            for (uint32_t k = 0; k < c->eyes; k++) {
                size_t len = 99;
                cg_status st = rgbd_eye(r, mode, c, cimg[k], dimg[k], k,
                                        c->override && f == 2 ? &p : NULL, descs[f - 1], &len);
                int lastpart = k + 1 == c->eyes;
                CHECK(st == CG_OK && len == (lastpart ? CG_ZC_DESC_V3_SIZE : 0u),
                      "%zu frame %d eye %u: %s, descriptor length %zu", ci, f, k,
                      cg_vk_ring_last_error(r), len);
            }
            cg_zc_desc dd;
            CHECK(cg_zc_desc_decode(descs[f - 1], CG_ZC_DESC_V3_SIZE, &dd, &e) == CG_OK &&
                      dd.frame == (uint64_t)f,
                  "descriptor of frame %d: %s", f, e.text);
            if (c->enc == CG_ZC_DEPTH_LINEAR)
                CHECK(dd.near_plane == p.near_plane && dd.far_plane == p.far_plane &&
                          dd.depth_flags == (p.z_zero_to_one ? CG_ZC_DEPTH_Z_ZERO_TO_ONE : 0u),
                      "frame %d's descriptor carries its near/far/zZeroToOne", f);
            dp[f - 1] = descs[f - 1];
        }
        setenv("ZC_LEARNER_DUMP", dump, 1);
        CHECK(spawn_learner(3, dp) == 0, "learner process %zu read 3 RGB-D frames", ci);
        unsetenv("ZC_LEARNER_DUMP");
        for (int f = 1; f <= 3; f++) {
            cg_zc_desc dd;
            if (cg_zc_desc_decode(descs[f - 1], CG_ZC_DESC_V3_SIZE, &dd, &e) != CG_OK) continue;
            rgbd_check_dump(c, &dd, dump, f, &max_ulp);
            frames++;
        }
        if (ci == 0) { /* the part order, on a stereo RGB-D ring */
            uint8_t desc[CG_ZC_DESC_MAX_SIZE];
            size_t len;
            uint64_t cnt[CG_ZC_COUNTERS], cnt2[CG_ZC_COUNTERS];
            cg_vk_ring_get_counters(r, cnt);
            game_begin();
            CHECK(cg_vk_ring_record_eye(r, T.cmd, cimg[0], VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 2,
                                        NULL, desc, &len) == (mode == CG_ZC_MODE_FENCE
                                                                  ? CG_E_INVALID_ARG
                                                                  : CG_E_BAD_STATE),
                  "eye 2: %s", cg_vk_ring_last_error(r));
            CHECK(cg_vk_ring_record_depth(r, T.cmd, dimg[0], VK_IMAGE_LAYOUT_GENERAL, 2, NULL, desc,
                                          &len) == CG_E_INVALID_ARG,
                  "depth of eye 2: %s", cg_vk_ring_last_error(r));
            cg_zc_depth_params bad = {-1.0f, 10.0f, 0};
            CHECK(cg_vk_ring_record_depth(r, T.cmd, dimg[0], VK_IMAGE_LAYOUT_GENERAL, 0, &bad, desc,
                                          &len) == CG_E_INVALID_ARG &&
                      strstr(cg_vk_ring_last_error(r), "near"),
                  "near -1: %s", cg_vk_ring_last_error(r));
            CHECK(cg_vk_ring_record_cursor(r, T.cmd, cimg[0], VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                           NULL, desc) == CG_E_BAD_STATE,
                  "the one-part call on a stereo RGB-D ring: %s", cg_vk_ring_last_error(r));
            vkt_submit_wait(&T);
            /* Colour of eye 1 first: out of order, nothing open: skipped. */
            cg_status st = mode == CG_ZC_MODE_FENCE
                               ? (game_begin(),
                                  cg_vk_ring_record_eye(r, T.cmd, cimg[1],
                                                        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 1,
                                                        NULL, desc, &len))
                               : cg_vk_ring_publish_eye(r, cimg[1],
                                                        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 1,
                                                        NULL, desc, &len);
            if (mode == CG_ZC_MODE_FENCE) vkt_submit_wait(&T);
            CHECK(st == CG_E_RING_FULL, "colour of eye 1 first: skipped (%s)", cg_status_name(st));
            /* Eye 0 only, then a new frame: the first is abandoned, never published. */
            cg_vk_ring_info info;
            cg_vk_ring_get_info(r, &info);
            CHECK(rgbd_eye(r, mode, c, cimg[0], dimg[0], 0, NULL, desc, &len) == CG_OK && len == 0,
                  "eye 0 of frame 4");
            uint32_t slot4 = UINT32_MAX;
            for (uint32_t i = 0; i < info.slots; i++)
                if (CG_ZC_WORD_STATE(cg_zc_lease_load(info.control, i)) == CG_ZC_WRITING) slot4 = i;
            CHECK(slot4 != UINT32_MAX, "frame 4's slot is WRITING");
            /* Eye 1 with other depth parameters than eye 0's: refused, nothing changed. */
            cg_zc_depth_params other = {0.5f, 10.0f, 1};
            game_begin();
            CHECK(cg_vk_ring_record_depth(r, T.cmd, dimg[1], VK_IMAGE_LAYOUT_GENERAL, 1, &other, desc,
                                          &len) == CG_E_INVALID_ARG,
                  "eye 1's near/far differ from eye 0's: %s", cg_vk_ring_last_error(r));
            vkt_submit_wait(&T);
            for (int f = 4; f <= 5; f++) {
                rgbd_upload(c, cimg, dimg, f);
                for (uint32_t k = 0; k < 2; k++)
                    CHECK(rgbd_eye(r, mode, c, cimg[k], dimg[k], k, NULL, descs[f - 4], &len) == CG_OK &&
                              len == (k == 1 ? CG_ZC_DESC_V3_SIZE : 0u),
                          "frame %d eye %u after the abandoned one: %s", f, k, cg_vk_ring_last_error(r));
            }
            cg_zc_desc dd;
            CHECK(slot4 == UINT32_MAX ||
                      CG_ZC_WORD_STATE(cg_zc_lease_load(info.control, slot4)) != CG_ZC_WRITING,
                  "the abandoned frame's slot is not WRITING any more");
            CHECK(cg_zc_desc_decode(descs[0], CG_ZC_DESC_V3_SIZE, &dd, &e) == CG_OK && dd.frame == 4,
                  "the frame after the abandoned one is frame 4 (its number used again): %llu",
                  (unsigned long long)dd.frame);
            cg_vk_ring_get_counters(r, cnt2);
            CHECK(cnt2[CG_ZC_COUNT_SKIPPED] == cnt[CG_ZC_COUNT_SKIPPED] + 1 &&
                      cnt2[CG_ZC_COUNT_PUBLISHED] == cnt[CG_ZC_COUNT_PUBLISHED] + 2,
                  "counters: the abandoned frame skipped (%llu -> %llu), 2 published (%llu -> %llu)",
                  (unsigned long long)cnt[CG_ZC_COUNT_SKIPPED],
                  (unsigned long long)cnt2[CG_ZC_COUNT_SKIPPED],
                  (unsigned long long)cnt[CG_ZC_COUNT_PUBLISHED],
                  (unsigned long long)cnt2[CG_ZC_COUNT_PUBLISHED]);
            dp[0] = descs[0];
            dp[1] = descs[1];
            setenv("ZC_LEARNER_DUMP", dump, 1);
            CHECK(spawn_learner(2, dp) == 0, "learner process read frames 4, 5");
            unsetenv("ZC_LEARNER_DUMP");
            for (int f = 4; f <= 5; f++)
                if (cg_zc_desc_decode(descs[f - 4], CG_ZC_DESC_V3_SIZE, &dd, &e) == CG_OK)
                    rgbd_check_dump(c, &dd, dump, f, &max_ulp);
        }
        if (c->enc == CG_ZC_DEPTH_NONE) {
            uint8_t desc[CG_ZC_DESC_MAX_SIZE];
            size_t len;
            game_begin();
            CHECK(cg_vk_ring_record_depth(r, T.cmd, cimg[0], VK_IMAGE_LAYOUT_GENERAL, 0, NULL, desc,
                                          &len) == CG_E_INVALID_ARG,
                  "depth on a ring without depth: %s", cg_vk_ring_last_error(r));
            vkt_submit_wait(&T);
        }
        cg_vk_ring_destroy(r);
        for (uint32_t k = 0; k < c->eyes; k++) {
            vkt_image_free(&T, cimg[k], cmem[k]);
            if (dimg[k]) vkt_image_free(&T, dimg[k], dmem[k]);
        }
    }
    rmdir(dump);
    printf("%d RGB-D frames (%s mode) read by the learner process: colour byte-exact, linear depth "
           "within %u ulp of the formula, raw bit-exact\n",
           frames, mode == CG_ZC_MODE_FENCE ? "fence" : "semaphore", max_ulp);
    CHECK(frames >= 20, "the sweep ran");
}

static int ring_case(const char *which)
{
    char why[256];
    int rc = vkt_init(&T, why, sizeof why);
    if (rc) {
        printf("%s %s: %s\n", rc == SKIP ? "SKIP" : "FAIL", which, why);
        return rc;
    }
    make_test_dir();
    cg_err e = {{0}};
    cg_vk_ring *r = NULL;
    if (strcmp(which, "ring_bad_input") == 0) {
        cg_vk_ring_desc d = ring_desc(64, 64, CG_ZC_MODE_FENCE);
        d.queue = VK_NULL_HANDLE;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && !r && e.text[0], "no queue");
        d = ring_desc(64, 64, (cg_zc_mode)0);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "mode 0: %s", e.text);
        d = ring_desc(64, 64, CG_ZC_MODE_FENCE);
        d.slots = 17;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "17 slots: %s", e.text);
        d = ring_desc(0, 64, CG_ZC_MODE_FENCE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "width 0: %s", e.text);
        d = ring_desc(16385, 64, CG_ZC_MODE_FENCE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_TOO_LARGE, "width 16385: %s", e.text);
        d = ring_desc(64, 64, CG_ZC_MODE_FENCE);
        d.queue_family = 99;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG && !r && strstr(e.text, "99") &&
                  strstr(e.text, "queue famil"),
              "queue family 99: %s", e.text);
        d = ring_desc(64, 64, CG_ZC_MODE_FENCE);
        d.format = VK_FORMAT_R16G16B16A16_SFLOAT;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_E_INVALID_ARG, "64-bit format: %s", e.text);
        d = ring_desc(64, 64, CG_ZC_MODE_FENCE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
        uint8_t desc[CG_ZC_DESC_SIZE];
        CHECK(cg_vk_ring_publish(r, (VkImage)(uintptr_t)1, VK_IMAGE_LAYOUT_GENERAL, desc) == CG_E_BAD_STATE,
              "publish on a fence-mode ring: %s", cg_vk_ring_last_error(r));
        CHECK(cg_vk_ring_record(r, VK_NULL_HANDLE, (VkImage)(uintptr_t)1, VK_IMAGE_LAYOUT_GENERAL, desc) ==
                  CG_E_INVALID_ARG,
              "record without a command buffer");
        cg_vk_ring_destroy(r);
        r = NULL;
        cg_vk_ring_destroy(NULL);
    } else if (strcmp(which, "ring_counters") == 0) {
        ring_counters_case();
    } else if (strcmp(which, "ring_fence") == 0) {
        /* Odd size, 3 slots: create, socket path, names. */
        const int w = 37, h = 23;
        cg_vk_ring_desc d = ring_desc(w, h, CG_ZC_MODE_FENCE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
        if (!r) goto out;
        cg_vk_ring_info info;
        cg_vk_ring_get_info(r, &info);
        CHECK(info.slots == 3 && info.row_pitch == (uint32_t)w * 4 && info.slot_size >= (uint64_t)w * h * 4 &&
                  info.semaphore == VK_NULL_HANDLE && memcmp(info.device_uuid, T.uuid, 16) == 0,
              "info");
        if (T.has_debug_utils)
            CHECK(ring_names >= 3 * 5, "%d objects named 'cg ring ...'", ring_names);
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image(&T, w, h, -1, 0, &img, &mem) == 0, "game image");
        /* Three frames, one per slot, read by a second process. */
        uint8_t descs[4][CG_ZC_DESC_SIZE];
        for (int f = 1; f <= 3; f++)
            CHECK(game_frame_fence(r, img, w, h, f, descs[f - 1]) == CG_OK, "frame %d: %s", f,
                  cg_vk_ring_last_error(r));
        cg_zc_desc dd;
        for (int f = 1; f <= 3; f++) {
            CHECK(cg_zc_desc_decode(descs[f - 1], CG_ZC_DESC_SIZE, &dd, &e) == CG_OK, "decode");
            CHECK(dd.frame == (uint64_t)f && dd.slot == (uint32_t)(f - 1) && dd.mode == CG_ZC_MODE_FENCE &&
                      dd.width == (uint32_t)w && dd.row_pitch == (uint32_t)w * 4 &&
                      strcmp(dd.socket_path, info.socket_path) == 0 && dd.ring_id == info.ring_id,
                  "descriptor of frame %d", f);
        }
        if (T.has_debug_utils) CHECK(ring_labels == 3, "%d copies inside a 'cg ring: frame' label", ring_labels);
        CHECK(run_learner(3, descs) == 0, "learner process: 3 frames byte-exact");
        for (uint32_t i = 0; i < 3; i++)
            CHECK(CG_ZC_WORD_STATE(cg_zc_lease_load(info.control, i)) == CG_ZC_RELEASED,
                  "slot %u RELEASED after the learner", i);

        /* All slots held: frames 4..6 acquired in this process as a learner. */
        uint8_t d4[CG_ZC_DESC_SIZE];
        for (int f = 4; f <= 6; f++) {
            CHECK(game_frame_fence(r, img, w, h, f, d4) == CG_OK, "frame %d", f);
            cg_zc_desc_decode(d4, sizeof d4, &dd, &e);
            CHECK(cg_zc_acquire(info.control, dd.slot, dd.frame, &e) == CG_OK, "acquire %d", f);
        }
        CHECK(game_frame_fence(r, img, w, h, 7, d4) == CG_E_RING_FULL, "ring full: skip at once");
        CHECK(strstr(cg_vk_ring_last_error(r), "skipped") != NULL, "%s", cg_vk_ring_last_error(r));
        cg_vk_ring_destroy(r);
        r = NULL;
        /* With a bound: it waits that long, then skips; the ring stays usable. */
        d.wait_ns = 3000000;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "re-create: %s", e.text);
        cg_vk_ring_get_info(r, &info);
        for (int f = 1; f <= 3; f++) {
            CHECK(game_frame_fence(r, img, w, h, f, d4) == CG_OK, "frame %d", f);
            cg_zc_desc_decode(d4, sizeof d4, &dd, &e);
            CHECK(cg_zc_acquire(info.control, dd.slot, dd.frame, &e) == CG_OK, "acquire %d", f);
        }
        uint64_t t0 = mono_ns();
        uint8_t scratch[CG_ZC_DESC_SIZE];
        VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
        cg_status st = cg_vk_ring_record(r, T.cmd, img, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, scratch);
        VKT_FN(&T, vkEndCommandBuffer)(T.cmd);
        uint64_t waited = mono_ns() - t0;
        CHECK(st == CG_E_RING_FULL && waited >= 3000000, "bounded wait: %s after %llu ns",
              cg_status_name(st), (unsigned long long)waited);
        /* A released slot is taken: the one of frame 2. */
        cg_zc_release(info.control, 1, 2, &e);
        CHECK(game_frame_fence(r, img, w, h, 4, d4) == CG_OK, "after release: %s", cg_vk_ring_last_error(r));
        cg_zc_desc_decode(d4, sizeof d4, &dd, &e);
        CHECK(dd.slot == 1 && dd.frame == 4, "frame 4 went to the released slot 1 (got %u)", dd.slot);
        /* Re-initialisation at another size, read by a new learner. */
        cg_vk_ring_destroy(r);
        r = NULL;
        vkt_image_free(&T, img, mem);
        const int w2 = 64, h2 = 5;
        d = ring_desc(w2, h2, CG_ZC_MODE_FENCE);
        d.slots = 2;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "re-create at 64x5: %s", e.text);
        CHECK(vkt_image(&T, w2, h2, -1, 0, &img, &mem) == 0, "game image 2");
        for (int f = 1; f <= 2; f++)
            CHECK(game_frame_fence(r, img, w2, h2, f, descs[f - 1]) == CG_OK, "frame %d", f);
        CHECK(run_learner(2, descs) == 0, "learner process after re-initialisation");
        vkt_image_free(&T, img, mem);
    } else if (strcmp(which, "ring_deferred") == 0) {
        /* Fence mode: the ring destroyed between recording its copy into
         * the game's command buffer and the game's submit. The submit must
         * not write freed memory (a fault before the fix, lavapipe 3 of 3;
         * 512x512: 1 MiB slots, unmapped when freed). */
        const int w = 512, h = 512;
        cg_vk_ring_desc d = ring_desc(w, h, CG_ZC_MODE_FENCE);
        uint32_t base = cg_vk_ring_deferred_count();
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
        if (!r) goto out;
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image(&T, w, h, -1, 0, &img, &mem) == 0, "game image");
        uint8_t *px = malloc((size_t)w * h * 4);
        zc_pattern(px, w, h, 1);
        CHECK(vkt_upload(&T, img, w, h, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL) == 0, "upload");
        free(px);
        uint8_t desc[CG_ZC_DESC_SIZE];
        VKT_FN(&T, vkResetCommandBuffer)(T.cmd, 0);
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VKT_FN(&T, vkBeginCommandBuffer)(T.cmd, &bi);
        CHECK(cg_vk_ring_record(r, T.cmd, img, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, desc) == CG_OK,
              "record: %s", cg_vk_ring_last_error(r));
        cg_vk_ring_destroy(r);
        r = NULL;
        CHECK(cg_vk_ring_deferred_count() == base + 1, "destroy deferred the slot memory (%u)",
              cg_vk_ring_deferred_count());
        /* Heap churn, so that freed memory would be reused. */
        for (int i = 0; i < 16; i++) free(calloc(1, (size_t)w * h * 4));
        VKT_FN(&T, vkEndCommandBuffer)(T.cmd);
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &T.cmd;
        VKT_FN(&T, vkResetFences)(T.dev, 1, &T.fence);
        CHECK(VKT_FN(&T, vkQueueSubmit)(T.queue, 1, &si, T.fence) == VK_SUCCESS &&
                  VKT_FN(&T, vkWaitForFences)(T.dev, 1, &T.fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS,
              "the game's submit with the copy of a destroyed ring completes");
        /* A later ring on the same device and queue frees it: its first
         * frame call fences the queue, a later one sees the fence. */
        d = ring_desc(w, h, CG_ZC_MODE_FENCE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "second ring: %s", e.text);
        uint8_t descs[2][CG_ZC_DESC_SIZE];
        for (int f = 1; f <= 2; f++)
            CHECK(game_frame_fence(r, img, w, h, f, descs[f - 1]) == CG_OK, "frame %d: %s", f,
                  cg_vk_ring_last_error(r));
        CHECK(cg_vk_ring_deferred_count() == base, "freed after the fence (%u deferred)",
              cg_vk_ring_deferred_count());
        CHECK(run_learner(2, descs) == 0, "the second ring's frames byte-exact");
        /* Destroyed after its frames completed: deferred as well (the ring
         * cannot see that), and freed by the device's owner at teardown. */
        cg_vk_ring_destroy(r);
        r = NULL;
        CHECK(cg_vk_ring_deferred_count() == base + 1, "deferred again");
        CHECK(cg_vk_ring_free_deferred(T.dev) == 1 && cg_vk_ring_deferred_count() == base,
              "cg_vk_ring_free_deferred frees it");
        vkt_image_free(&T, img, mem);
    } else if (strcmp(which, "ring_hostile") == 0) {
        /* A learner that writes what no learner may into every lease word
         * (WRITING, CLOSED, 7, all ones, a future frame) and leaves; then a
         * well-behaved learner must get every frame (0 of 200 before the
         * fix: each publish skipped). */
        const int w = 16, h = 8;
        cg_vk_ring_desc d = ring_desc(w, h, CG_ZC_MODE_FENCE);
        d.wait_ns = 1000000;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
        if (!r) goto out;
        cg_vk_ring_info info;
        cg_vk_ring_get_info(r, &info);
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image(&T, w, h, -1, 0, &img, &mem) == 0, "game image");
        uint8_t desc[CG_ZC_DESC_SIZE];
        CHECK(game_frame_fence(r, img, w, h, 1, desc) == CG_OK, "frame 1");
        static const char *const words[] = {"writing", "closed", "seven", "ones", "future", "active"};
        int frame = 1;
        for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
            char *argv[] = {(char *)self_exe, "child-hostile", (char *)info.socket_path,
                            (char *)words[k], NULL};
            pid_t pid = spawn_self(argv);
            CHECK(pid > 0 && wait_child(pid) == 0, "hostile learner (%s) ran", words[k]);
            wait_for(info.server, 0);
            /* A well-behaved learner in this process, lockstep. */
            cg_zc_hello hh;
            int fds[CG_ZC_MAX_HANDLES];
            uint32_t n = 0;
            int conn = -1;
            cg_zc_control lc;
            memset(&lc, 0, sizeof lc);
            CHECK(cg_zc_connect(info.socket_path, &hh, fds, &n, &conn, &e) == CG_OK, "connect: %s",
                  e.text);
            CHECK(n > 0 && cg_zc_control_map(fds[0], hh.slot_count, hh.ring_id, &lc, &e) == CG_OK,
                  "map: %s", e.text);
            for (uint32_t i = 1; i < n; i++) close(fds[i]);
            int good = 0;
            for (int f = 0; f < 200 && lc.map; f++) {
                frame++;
                cg_zc_desc dd;
                if (game_frame_fence(r, img, w, h, frame, desc) != CG_OK ||
                    cg_zc_desc_decode(desc, sizeof desc, &dd, &e) != CG_OK) {
                    frame--;
                    continue;
                }
                /* The learner holds each frame across the next publish. */
                if (cg_zc_acquire(&lc, dd.slot, dd.frame, &e) == CG_OK &&
                    cg_zc_release(&lc, dd.slot, dd.frame, &e) == CG_OK)
                    good++;
            }
            CHECK(good == 200, "after a hostile learner (%s): %d of 200 frames", words[k], good);
            cg_zc_control_free(&lc);
            if (conn >= 0) close(conn);
            wait_for(info.server, 0);
        }
        vkt_image_free(&T, img, mem);
    } else if (strcmp(which, "ring_rgbd") == 0) {
        rgbd_case(CG_ZC_MODE_FENCE);
    } else if (strcmp(which, "ring_rgbd_semaphore") == 0) {
        if (!T.has_timeline || !T.has_sem_fd) {
            printf("SKIP ring_rgbd_semaphore: %s lacks exportable timeline semaphores\n",
                   T.device_name);
            vkt_ring_fini(&T);
            remove_test_dir();
            return SKIP;
        }
        rgbd_case(CG_ZC_MODE_SEMAPHORE);
    } else if (strcmp(which, "ring_semaphore") == 0) {
        if (!T.has_timeline) {
            printf("SKIP ring_semaphore: %s lacks VK_KHR_external_semaphore_fd or timeline "
                   "semaphores\n",
                   T.device_name);
            vkt_ring_fini(&T);
            remove_test_dir();
            return SKIP;
        }
        const int w = 64, h = 48;
        cg_vk_ring_desc d = ring_desc(w, h, CG_ZC_MODE_SEMAPHORE);
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create: %s", e.text);
        if (!r) goto out;
        cg_vk_ring_info info;
        cg_vk_ring_get_info(r, &info);
        CHECK(info.semaphore != VK_NULL_HANDLE, "semaphore");
        VkImage img;
        VkDeviceMemory mem;
        CHECK(vkt_image(&T, w, h, -1, 0, &img, &mem) == 0, "game image");
        uint8_t descs[3][CG_ZC_DESC_SIZE];
        size_t bytes = (size_t)w * h * 4;
        uint8_t *px = malloc(bytes), *got = malloc(bytes);
        for (int f = 1; f <= 3; f++) publish_checked(r, &info, img, w, h, f, f, px, got, descs[f - 1]);
        VKT_FN(&T, vkQueueWaitIdle)(T.queue);
        CHECK(run_learner(3, descs) == 0, "learner process");
        cg_vk_ring_destroy(r);
        r = NULL;

        /* reuse_recordings: two slots, the game alternating between two
         * images, so every slot sees image A then B then A...: recordings
         * are reused (same image again in a slot) and replaced (the other
         * image), and every frame must still carry its own pixels. */
        d = ring_desc(w, h, CG_ZC_MODE_SEMAPHORE);
        d.slots = 2;
        d.reuse_recordings = 1;
        CHECK(cg_vk_ring_create(&d, &r, &e) == CG_OK, "create with reuse: %s", e.text);
        if (!r) goto out;
        cg_vk_ring_get_info(r, &info);
        VkImage img2;
        VkDeviceMemory mem2;
        CHECK(vkt_image(&T, w, h, -1, 0, &img2, &mem2) == 0, "second game image");
        /* Frames 1..12: images A B A B... for slots 0 1 0 1... (reused),
         * then frames 13..20 switch images every two frames (recorded anew). */
        for (int f = 1; f <= 20; f++) {
            VkImage cur = (f <= 12 ? (f % 2) : ((f / 2) % 2)) ? img : img2;
            uint8_t one[CG_ZC_DESC_SIZE];
            publish_checked(r, &info, cur, w, h, f, 100 + f, px, got, one);
        }
        VKT_FN(&T, vkQueueWaitIdle)(T.queue);
        free(px);
        free(got);
        vkt_image_free(&T, img2, mem2);
        vkt_image_free(&T, img, mem);
    } else {
        fprintf(stderr, "unknown case %s\n", which);
        failures++;
    }
out:
    cg_vk_ring_destroy(r);
    vkt_ring_fini(&T);
    remove_test_dir();
    return failures ? 1 : 0;
}

/* A producer for the Python learner's tests (tests/python/test_ring.py):
 *   serve fence|semaphore W H N STEP
 * A ring of 3 slots at WxH publishes frames 1..N of the test pattern and
 * prints each descriptor in hex, one a line; with STEP=1 it reads a line
 * from stdin before each frame (lockstep, as a vector env steps). It then
 * serves until stdin closes and prints each slot's final lease state
 * ("states: 4 4 4") and whether libcuda was ever mapped ("libcuda: no").
 *   serve fence|semaphore W H N STEP planes EYES none|linear|raw TW TH [NEAR FAR Z01]
 * (tests/python/test_planes.py) the same with an RGB ring (format 23, flip
 * 1, target TW x TH) of EYES (1, 2) eyes and that depth plane (linear with
 * NEAR, FAR and zZeroToOne Z01): frame f's eye e is the colour pattern
 * 2f + e and the depth image depth_serve_pattern(f, e), both W x H, given
 * in the parts' order (rgbd_eye); a descriptor is printed whole (version 3,
 * or 2 for one eye without depth). */
static int serve(int argc, char **argv)
{
    if (argc < 5) return 2;
    cg_zc_mode mode = strcmp(argv[0], "semaphore") == 0 ? CG_ZC_MODE_SEMAPHORE : CG_ZC_MODE_FENCE;
    int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]), step = atoi(argv[4]);
    int planes = argc > 5;
    rgbd_cfg pc = {w, h, w, h, 1, CG_ZC_DEPTH_NONE, 0.0f, 0.0f, 0, 0};
    if (planes) {
        if ((argc != 10 && argc != 13) || strcmp(argv[5], "planes") != 0) return 2;
        pc.eyes = (uint32_t)atoi(argv[6]);
        pc.enc = strcmp(argv[7], "linear") == 0 ? CG_ZC_DEPTH_LINEAR
                 : strcmp(argv[7], "raw") == 0  ? CG_ZC_DEPTH_RAW
                                                : CG_ZC_DEPTH_NONE;
        pc.tw = atoi(argv[8]);
        pc.th = atoi(argv[9]);
        if (argc == 13) {
            pc.n = strtof(argv[10], NULL);
            pc.f = strtof(argv[11], NULL);
            pc.z01 = atoi(argv[12]);
        }
        if (pc.eyes < 1 || pc.eyes > 2) return 2;
    }
    char why[256];
    int rc = vkt_init(&T, why, sizeof why);
    if (rc) {
        fprintf(stderr, "serve: %s\n", why);
        return rc;
    }
    if (mode == CG_ZC_MODE_SEMAPHORE && !T.has_timeline) {
        fprintf(stderr, "serve: %s lacks exportable timeline semaphores\n", T.device_name);
        return SKIP;
    }
    cg_vk_ring_desc d = ring_desc(w, h, mode);
    d.socket_dir = NULL; /* the protocol's own rule */
    d.get_instance_proc_addr = T.gipa;
    d.wait_ns = 1000000000; /* lockstep: the learner releases within a step */
    if (planes) {
        d.slot_format = CG_VK_SLOT_RGB8;
        d.target_width = pc.tw;
        d.target_height = pc.th;
        d.flip = 1;
        d.eyes = pc.eyes;
        d.depth = pc.enc;
        d.near_plane = pc.n;
        d.far_plane = pc.f;
        d.z_zero_to_one = pc.z01;
    }
    cg_err e = {{0}};
    cg_vk_ring *r = NULL;
    VkImage img[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE}, dimg[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    VkDeviceMemory mem[2], dmem[2];
    int bad = cg_vk_ring_create(&d, &r, &e) != CG_OK;
    for (uint32_t k = 0; !bad && k < pc.eyes; k++) {
        bad = planes ? vkt_image_ex(&T, w, h, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT, -1, 0,
                                    &img[k], &mem[k])
                     : vkt_image(&T, w, h, -1, 0, &img[k], &mem[k]);
        if (!bad && pc.enc != CG_ZC_DEPTH_NONE) bad = vkt_depth_image(&T, w, h, &dimg[k], &dmem[k]);
    }
    if (bad) {
        fprintf(stderr, "serve: %s\n", e.text[0] ? e.text : "an image");
        return 1;
    }
    uint8_t desc[CG_ZC_DESC_MAX_SIZE];
    char hex[2 * CG_ZC_DESC_MAX_SIZE + 1];
    uint8_t *px = malloc((size_t)w * (size_t)h * 4);
    char line[64];
    for (int f = 1; f <= n; f++) {
        if (step && !fgets(line, sizeof line, stdin)) break;
        cg_status st = CG_OK;
        size_t len = CG_ZC_DESC_SIZE;
        if (planes) {
            rgbd_upload_with(&pc, img, dimg, f, depth_serve_pattern);
            for (uint32_t k = 0; st == CG_OK && k < pc.eyes; k++)
                st = rgbd_eye(r, mode, &pc, img[k], dimg[k], k, NULL, desc, &len);
            if (failures) st = CG_E_VULKAN;
        } else if (mode == CG_ZC_MODE_FENCE) {
            st = game_frame_fence(r, img[0], w, h, f, desc);
        } else {
            zc_pattern(px, w, h, f);
            st = vkt_upload(&T, img[0], w, h, px, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
                     ? CG_E_VULKAN
                     : cg_vk_ring_publish(r, img[0], VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, desc);
        }
        if (st != CG_OK || len == 0) {
            fprintf(stderr, "serve: frame %d: %s\n", f, cg_vk_ring_last_error(r));
            return 1;
        }
        hex_encode(desc, len, hex);
        printf("%s\n", hex);
        fflush(stdout);
    }
    free(px);
    while (fgets(line, sizeof line, stdin)) {
    }
    cg_vk_ring_info info;
    cg_vk_ring_get_info(r, &info);
    /* The learner has gone: wait for the hand-off thread to reclaim. */
    for (int i = 0; i < 2000; i++) {
        cg_zc_server_stats st;
        cg_zc_server_get_stats(info.server, &st);
        if (!st.connected) break;
        usleep(1000);
    }
    printf("states:");
    for (uint32_t i = 0; i < info.slots; i++)
        printf(" %d", (int)CG_ZC_WORD_STATE(cg_zc_lease_load(info.control, i)));
    printf("\nlibcuda: %s\n", zc_libcuda_mapped() ? "mapped" : "no");
    fflush(stdout);
    for (uint32_t k = 0; k < pc.eyes; k++) {
        vkt_image_free(&T, img[k], mem[k]);
        if (dimg[k]) vkt_image_free(&T, dimg[k], dmem[k]);
    }
    cg_vk_ring_destroy(r);
    vkt_ring_fini(&T);
    return 0;
}

int main(int argc, char **argv)
{
    self_exe = "/proc/self/exe";
    static char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        self_exe = exe;
    }
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    if (strcmp(c, "child-fd-learner") == 0) return child_fd_learner(argv[2]);
    if (strcmp(c, "child-hostile") == 0 && argc >= 4) return child_hostile(argv[2], argv[3]);
    if (strcmp(c, "child-vk-learner") == 0) return child_vk_learner(argc - 2, argv + 2);
    if (strcmp(c, "serve") == 0) return serve(argc - 2, argv + 2);
    if (strcmp(c, "descriptor") == 0) return case_descriptor();
    if (strcmp(c, "control") == 0) return case_control();
    if (strcmp(c, "socket") == 0) return case_socket();
    if (strcmp(c, "bad_hello") == 0) return case_bad_hello();
    if (strcmp(c, "socket_stale") == 0) return case_socket_stale();
    if (strcmp(c, "socket_flood") == 0) return case_socket_flood();
    if (strcmp(c, "peer_uid") == 0) return case_peer_uid();
    return ring_case(c);
}
