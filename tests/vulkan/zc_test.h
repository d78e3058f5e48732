/*
 * zc_test.h - test-only helpers shared by tests/vulkan, tests/cuda and the
 * zero-copy benchmarks: a CHECK macro that counts failures and goes on, and
 * the frame pattern every zero-copy test uploads and checks (consumer.py
 * recomputes it independently in numpy).
 */
#ifndef ZC_TEST_H
#define ZC_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Each test file defines `static int failures;`. */
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
        }                                                                       \
    } while (0)

/* Frame f of the RGBA8 test pattern, w x h, row 0 first in memory:
 * R = 7x + 13f, G = 5y + 29f, B = (x ^ y) + 3f, A = 255 - f (mod 256). */
static inline void zc_pattern(uint8_t *rgba, int w, int h, int f)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = rgba + ((size_t)y * (size_t)w + (size_t)x) * 4;
            p[0] = (uint8_t)(x * 7 + f * 13);
            p[1] = (uint8_t)(y * 5 + f * 29);
            p[2] = (uint8_t)((x ^ y) + f * 3);
            p[3] = (uint8_t)(255 - f);
        }
}

/* Is libcuda mapped into this process? (A zero-copy v2 game process must
 * never load it.) */
static inline int zc_libcuda_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libcuda.so")) found = 1;
    if (f) fclose(f);
    return found;
}

#endif
