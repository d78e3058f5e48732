#version 430
/*
 * cg_vk_depth.comp - the depth plane of zero-copy v2's RGB slot format
 * (docs/zero-copy-v2/protocol.md, "The depth plane"): the game's depth image ->
 * (H, W) float32 at the target size, rows upright, each pixel the depth of
 * the source pixel the RGB plane samples (the same nearest mapping as
 * cg_vk_rgb.comp), one invocation a pixel, written at the start of the
 * bound range (the producer binds the plane of its eye).
 *
 * Compiled to SPIR-V at build time (glslangValidator -V, which defines
 * VULKAN): parameters in push constants, the depth image through a view of
 * its depth aspect. Compiled by a GL 4.3+ driver (no VULKAN): parameters
 * in a std140 uniform block at binding 0, the depth texture at texture
 * unit 0 (a sampler with compare mode NONE), the plane at SSBO binding 2
 * (glBindBufferRange at the plane's offset).
 *
 * raw nonzero: the stored depth float, bit for bit. Otherwise the linear
 * value of docs/wire-format.md "Depth" (eye distance / far, reverse-Z):
 * both of its formulas are n / (n + d*(f - n)) (the [-1, 1] one's
 * denominator n + f + (2d - 1)(f - n) is 2n + 2d(f - n)), so one
 * evaluation serves both zZeroToOne values. It is computed in float, within
 * 2 ulps of the double formula without shaderFloat64: f - n comes from the
 * host as a pair of floats (hi + lo, exact to 48 bits); the denominator's
 * rounding error is kept (Dekker's exact product and the two-sum of the
 * addition), and one Newton step on the quotient, with that error and the
 * exact residual n - q*den, corrects the division's (Vulkan allows 2.5
 * ulps for x / y). `precise` keeps the compiler from contracting or
 * reordering these steps. (fma would be shorter, but Vulkan lets it be an
 * unfused multiply and add, and lavapipe's is on some lanes.)
 */
layout(local_size_x = 64, local_size_y = 4) in;

#ifdef VULKAN
#define CG_BIND_SRC layout(set = 0, binding = 0)
#define CG_BIND_DST layout(set = 1, binding = 0)
layout(push_constant) uniform Params {
#else
#define CG_BIND_SRC layout(binding = 0)
#define CG_BIND_DST layout(binding = 2)
layout(std140, binding = 0) uniform Params {
#endif
    uint src_w;       /* the depth image, pixels */
    uint src_h;
    uint dst_w;       /* the plane (target), pixels */
    uint dst_h;
    uint flip;        /* nonzero when the image's row 0 is the top (Vulkan); GL: 0 */
    uint raw;         /* nonzero: the stored value; 0: linear */
    float near_plane; /* linear: n */
    float range_hi;   /* linear: (float)(f - n), f - n in double */
    float range_lo;   /* linear: (float)((f - n) - range_hi) */
} p;

CG_BIND_SRC uniform sampler2D src;
layout(std430) CG_BIND_DST writeonly buffer Dst { uint words[]; } dst;

/* a == hi + lo exactly, each with at most 12 significant bits (the low
 * 12 bits of the significand cleared: no overflow, no rounding), so the
 * products of halves below are exact. */
vec2 split(float a)
{
    precise float hi = uintBitsToFloat(floatBitsToUint(a) & 0xfffff000u);
    precise float lo = a - hi;
    return vec2(hi, lo);
}

/* Dekker's product: a*b == x + y exactly (round-to-nearest mul/add, which
 * Vulkan and GL guarantee for x * y and x + y; fma is not used, as it may
 * be an unfused multiply-add on a device). */
vec2 two_product(float a, float b)
{
    vec2 as = split(a), bs = split(b);
    precise float x = a * b;
    precise float y = ((as.x * bs.x - x) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
    return vec2(x, y);
}

/* n / (n + d*(f - n)), the denominator and quotient corrected as above. */
float linear_depth(float d)
{
    float n = p.near_plane;
    vec2 prod = two_product(d, p.range_hi);
    precise float den = n + prod.x;
    precise float back = den - n; /* two-sum of n + prod.x */
    precise float sum_err = (n - (den - back)) + (prod.x - back);
    precise float err = d * p.range_lo + (prod.y + sum_err); /* true denominator - den */
    precise float q = n / den;
    vec2 qd = two_product(q, den);
    precise float res = (n - qd.x) - qd.y; /* n - q*den (n - qd.x is exact: qd.x ~ n) */
    precise float res2 = res - q * err;
    precise float out_q = q + res2 * (1.0 / den);
    return out_q;
}

void main()
{
    uvec2 q = gl_GlobalInvocationID.xy;
    if (q.x >= p.dst_w || q.y >= p.dst_h) return;
    uint yb = p.dst_h - 1u - q.y; /* the bottom-up row of this pixel, as RAW counts them */
    /* The same size (the common case) needs no division. */
    uint sy = p.src_h == p.dst_h ? yb : yb * p.src_h / p.dst_h;
    uint sx = p.src_w == p.dst_w ? q.x : q.x * p.src_w / p.dst_w;
    uint row = p.flip != 0u ? p.src_h - 1u - sy : sy;
    float d = texelFetch(src, ivec2(int(sx), int(row)), 0).r;
    dst.words[q.y * p.dst_w + q.x] = floatBitsToUint(p.raw != 0u ? d : linear_depth(d));
}
