// The VectorLearner's gather (python/craftground_capture/vector.py): copies
// `count` frames, one per ring, from their slots into one (N, H, W, C)
// uint8 batch, in one launch. Compiled to PTX text (gather.ptx, shipped in
// the package and loaded with cuModuleLoadData) by
//     nvcc -ptx -arch=compute_90 -o gather.ptx gather.cu
// tests/python/test_vector.py checks that gather.ptx equals a fresh compile
// when nvcc is present.
//
// Entry e (0 <= e < count) copies the frame at src[e] (H rows of row_bytes =
// W * C bytes, row r at src[e] + r * src_pitch) into batch row dst_index[e]
// (at dst + dst_index[e] * H * row_bytes, tightly packed). With flip, output
// row y is source row H - 1 - y. words: row_bytes and src_pitch are
// multiples of 4 (and every pointer is 4-aligned), so 4 bytes move at once.
// Grid: x covers H * (row_bytes / (words ? 4 : 1)) units with 256-thread
// blocks, y = count.
#define CG_GATHER_MAX 256

struct cg_gather_list {
    unsigned long long src[CG_GATHER_MAX];
    unsigned int dst_index[CG_GATHER_MAX];
};

extern "C" __global__ void cg_gather(cg_gather_list list, unsigned char *dst, unsigned int height,
                                     unsigned int row_bytes, unsigned int src_pitch,
                                     unsigned int flip, unsigned int words)
{
    unsigned int e = blockIdx.y;
    unsigned int unit = words ? 4u : 1u;
    unsigned int per_row = row_bytes / unit;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (unsigned long long)per_row * height) return;
    unsigned int y = (unsigned int)(i / per_row), x = (unsigned int)(i % per_row) * unit;
    unsigned int sy = flip ? height - 1u - y : y;
    const unsigned char *s = (const unsigned char *)list.src[e] + (size_t)sy * src_pitch + x;
    unsigned char *d = dst + ((size_t)list.dst_index[e] * height + y) * row_bytes + x;
    if (words)
        *(unsigned int *)d = *(const unsigned int *)s;
    else
        *d = *s;
}
