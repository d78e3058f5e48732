/*
 * Fuzz target for cg_shm_parse_name, the check every shared-memory native
 * runs on its names first. Oracle, independent of the parser: a name is
 * valid exactly when it is the canonical spelling of some port 0..INT_MAX
 * and direction, i.e. when printing the number read by strtoll back into
 * "/craftground_%lld_p2j" (or _j2p) gives the input again.
 * Built as a libFuzzer binary with clang (fuzz_shm_name) and, with any
 * compiler, as a ctest replay (main below, CG_FUZZ_REPLAY).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_shm_channel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int oracle(const char *s, int *port, cg_shm_dir *dir)
{
    static const char prefix[] = "/craftground_";
    if (strncmp(s, prefix, sizeof prefix - 1) != 0) return 0;
    const char *num = s + sizeof prefix - 1;
    if (*num < '0' || *num > '9') return 0; /* strtoll would skip spaces and signs */
    char *end;
    long long v = strtoll(num, &end, 10);
    if (v < 0 || v > INT_MAX) return 0;
    for (int d = 0; d < 2; d++) {
        char canon[64];
        snprintf(canon, sizeof canon, "%s%lld_%s", prefix, v, d == 0 ? "p2j" : "j2p");
        if (strcmp(canon, s) == 0) {
            *port = (int)v;
            *dir = d == 0 ? CG_SHM_P2J : CG_SHM_J2P;
            return 1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[128];
    if (size >= sizeof s) size = sizeof s - 1;
    memcpy(s, data, size);
    s[size] = '\0';
    int port = -7, want_port = -1;
    cg_shm_dir dir = (cg_shm_dir)9, want_dir = CG_SHM_P2J;
    cg_status st = cg_shm_parse_name(s, &port, &dir);
    int valid = oracle(s, &want_port, &want_dir);
    if (valid != (st == CG_OK)) abort();
    if (valid && (port != want_port || dir != want_dir)) abort();
    if (!valid && (st != CG_E_INVALID_ARG || port != -7 || dir != (cg_shm_dir)9)) abort();
    return 0;
}

#if defined(CG_FUZZ_REPLAY)
/* Pseudo-random mutations of valid names (digits, length, suffix, bytes),
 * so that both verdicts come up often. */
int main(void)
{
    uint32_t r = 0x2545F491u;
#define NEXT() (r ^= r << 13, r ^= r >> 17, r ^= r << 5, r)
    static const char *const seeds[] = {"/craftground_8000_p2j", "/craftground_0_j2p",
                                        "/craftground_2147483647_p2j",
                                        "/craftground_2147483648_j2p"};
    static const char alphabet[] = "0123456789_/-+ pj2craftgound\x01\xff";
    long valid = 0;
    for (int iter = 0; iter < 200000; iter++) {
        char s[64];
        snprintf(s, sizeof s, "%s", seeds[NEXT() % 4]);
        size_t n = strlen(s);
        int edits = (int)(NEXT() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = NEXT() % (n + 1);
            char c = alphabet[NEXT() % (sizeof alphabet - 1)];
            switch (NEXT() % 3) {
            case 0: /* replace */
                if (at < n) s[at] = c;
                break;
            case 1: /* insert */
                if (n + 1 < sizeof s) {
                    memmove(s + at + 1, s + at, n - at + 1);
                    s[at] = c;
                    n++;
                }
                break;
            default: /* delete */
                if (at < n) {
                    memmove(s + at, s + at + 1, n - at);
                    n--;
                }
                break;
            }
        }
        LLVMFuzzerTestOneInput((const uint8_t *)s, n);
        int p;
        cg_shm_dir d;
        valid += cg_shm_parse_name(s, &p, &d) == CG_OK;
    }
    printf("fuzz_shm_name: 200000 names, %ld valid, parser and oracle agreed on all\n", valid);
    return valid > 1000 && valid < 190000 ? 0 : 1; /* both verdicts were exercised */
}
#endif
