/* cuda_probe.h - test-only: is there a CUDA device? (exit 77 if not) */
#ifndef CUDA_PROBE_H
#define CUDA_PROBE_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

static inline void cuda_probe_or_skip(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorName(e) : "count 0");
        exit(77);
    }
}

#endif
