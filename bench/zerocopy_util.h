/*
 * zerocopy_util.h - shared by the zero-copy benchmarks, on top of
 * bench_util.h (clock, medians): the same-run limit every figure is divided
 * by, a plain device-to-device cudaMemcpyAsync of the frame's bytes on a
 * stream, then a stream synchronise (the least any per-frame copy into the
 * shared buffer can cost on this GPU); the skip without CUDA; the result line.
 */
#ifndef ZEROCOPY_UTIL_H
#define ZEROCOPY_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "bench_util.h"
#include "cg_frame.h"

/* Median of `n` timed D2D copies of `bytes` (after warm-up). */
static inline double zc_limit_d2d_us(size_t bytes, int n)
{
    void *a = NULL, *b = NULL;
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&a, bytes);
    cudaMalloc(&b, bytes);
    double *t = malloc(sizeof(double) * (size_t)n);
    for (int i = -10; i < n; i++) {
        double t0 = bench_now_us();
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s);
        cudaStreamSynchronize(s);
        if (i >= 0) t[i] = bench_now_us() - t0;
    }
    double m = bench_median(t, n);
    free(t);
    cudaFree(a);
    cudaFree(b);
    cudaStreamDestroy(s);
    return m;
}

static inline void zc_skip_without_cuda(const char *name)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("%s: skipped: no CUDA device\n", name);
        exit(0);
    }
}

/* The CPU path's work after its readback: tightly packed RGBA8 w x h ->
 * RAW RGB8 in out[0 .. w*h*3), rows reversed when flip is set. */
static inline void zc_rgba_to_raw(const uint8_t *rgba, int w, int h, int flip, uint8_t *out)
{
    cg_convert_params p;
    memset(&p, 0, sizeof p);
    p.src = rgba;
    p.src_stride = (size_t)w * 4;
    p.src_w = p.dst_w = w;
    p.src_h = p.dst_h = h;
    p.flip = flip;
    cg_convert(&p, out, (size_t)w * (size_t)h * 3);
}

/* One result line: median, ratio to the limit, ratio to the CPU path. */
static inline void zc_print(const char *what, int w, int h, double med, double limit, double cpu)
{
    printf("  %-46s %4dx%-4d median %9.1f us   %7.2fx limit", what, w, h, med, med / limit);
    if (cpu > 0) printf("   %5.2fx CPU readback", med / cpu);
    printf("\n");
}

#endif /* ZEROCOPY_UTIL_H */
