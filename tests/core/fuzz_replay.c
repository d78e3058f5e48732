/* Replays pseudo-random inputs into the fuzz target, so the target runs as
 * an ordinary ctest test with any compiler. Fails by abort() in the target. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(void)
{
    uint32_t s = 0x12345678u;
    uint8_t buf[256];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = 0;
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        n = s % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            buf[i] = (uint8_t)s;
        }
        /* Bias the sizes towards valid ones half of the time. */
        if (iter % 2 && n >= 4)
            for (size_t i = 0; i < 4; i++) buf[i] &= 0x3f;
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("fuzz_replay: 20000 inputs, all levels matched the scalar reference\n");
    return 0;
}
