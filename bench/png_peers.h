/*
 * png_peers.h - other PNG encoders, for bench_core's comparison table
 * (`bench_core 1 png-peers`). None is a dependency: each is built from its
 * source directory when the configure step is given one (bench/core.cmake:
 * CG_BENCH_FPNGE_DIR, CG_BENCH_FPNG_DIR, CG_BENCH_SPNG_DIR, CG_BENCH_STB_DIR,
 * each also read from the environment variable of the same name), and
 * skipped by name otherwise. Their code is never part of this repository.
 */
#ifndef BENCH_PNG_PEERS_H
#define BENCH_PNG_PEERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Encode w x h top-down 8-bit RGB rows (stride w * 3) with the peer's
 * default settings into *out (realloc'd to *cap as needed); returns the
 * PNG's length, 0 on failure. */
typedef size_t (*png_peer_fn)(const uint8_t *rgb, int w, int h, uint8_t **out, size_t *cap);

typedef struct png_peer {
    const char *name;    /* "fpnge default" */
    const char *missing; /* NULL when built; else what to set to build it */
    png_peer_fn encode;
    const char *built;   /* how it was compiled, when that matters; else NULL */
} png_peer;

/* The peers bench_core knows of, built or not (static storage). */
const png_peer *png_peers(int *count);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_PNG_PEERS_H */
