/*
 * zerocopy_util.h - shared by the zero-copy benchmarks: a monotonic clock,
 * medians, and the same-run limit every figure is divided by: a plain
 * device-to-device cudaMemcpyAsync of the frame's bytes on a stream, then a
 * stream synchronise (the least any per-frame copy into the shared buffer
 * can cost on this GPU).
 */
#ifndef ZEROCOPY_UTIL_H
#define ZEROCOPY_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

static inline double zc_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int zc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double zc_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, zc_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
        double t0 = zc_now_us();
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s);
        cudaStreamSynchronize(s);
        if (i >= 0) t[i] = zc_now_us() - t0;
    }
    double m = zc_median(t, n);
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

/* One result line: median, ratio to the limit, ratio to the CPU path. */
static inline void zc_print(const char *what, int w, int h, double med, double limit, double cpu)
{
    printf("  %-46s %4dx%-4d median %9.1f us   %7.2fx limit", what, w, h, med, med / limit);
    if (cpu > 0) printf("   %5.2fx CPU readback", med / cpu);
    printf("\n");
}

#endif /* ZEROCOPY_UTIL_H */
