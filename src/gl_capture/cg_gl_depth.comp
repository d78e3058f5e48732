#version 430
/*
 * cg_gl_depth.comp - the depth plane of zero-copy v2's RGB slot format
 * (docs/zero-copy-v2.md): the game's depth texture -> float32 values, rows
 * upright (row 0 is the picture's top), dst_w*4 bytes a row, nearest resize
 * by the RGB plane's mapping, one invocation a pixel, written at the start
 * of the bound range. The GL producer's copy of the interface of
 * src/vulkan/cg_vk_depth.comp (the Vulkan producer's: same Params block,
 * bindings and local size), so that one source can serve both the way
 * cg_vk_rgb.comp does; cg_gl_depth.c compiles it at ring creation.
 *
 * Bindings (GL): parameters in a std140 uniform block at binding 0; the
 * depth texture at texture unit 0 (a sampler2D: texelFetch(...).r is the
 * stored depth; the producer's sampler object has compare mode NONE); the
 * plane at SSBO binding 2, bound at the plane's offset in the slot.
 *
 * raw nonzero: the texel as texelFetch returns it, bit for bit (a float
 * format's stored value). Otherwise linear: reverse-Z depth d
 * (1 = near, 0 = far) to eye distance / far, n / (n + d*(f-n))
 * (docs/wire-format.md "Depth": its [0,1] and [-1,1] clip formulas are
 * this one function), within 2 float ulps of the double formula without
 * 64-bit floats and without relying on fma being fused (Mesa's llvmpipe
 * computes GLSL's fma as a multiply and an add): the denominator as an
 * unevaluated sum of two floats (Dekker's exact product, Knuth's exact sum;
 * f - n comes from the host as range_hi + range_lo), then the quotient
 * with one correction step, whose residual is exact the same way.
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
    uint src_w;       /* the depth texture, pixels */
    uint src_h;
    uint dst_w;       /* the plane (target), pixels */
    uint dst_h;
    uint flip;        /* nonzero when the texture's row 0 is the top (GL: 0) */
    uint raw;         /* nonzero: the stored value; 0: linear */
    float near_plane; /* linear: n */
    float range_hi;   /* linear: (float)(f - n), f - n in double */
    float range_lo;   /* linear: (float)((f - n) - range_hi) */
} p;

CG_BIND_SRC uniform sampler2D src;
layout(std430) CG_BIND_DST writeonly buffer Dst { uint words[]; } dst;

/* a*b == x + y exactly (Dekker's split: no fused multiply-add needed). */
vec2 exact_product(float a, float b)
{
    precise float prod = a * b;
    precise float ca = 4097.0 * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl;
    return vec2(prod, err);
}

/* n / (n + d*(f-n)), about 0.5 ulp. */
float linear_depth(float d)
{
    float n = p.near_plane;
    precise vec2 dm = exact_product(d, p.range_hi);
    precise float hi = n + dm.x; /* den = hi + lo */
    precise float bv = hi - n;
    precise float lo = ((n - (hi - bv)) + (dm.x - bv)) + (dm.y + d * p.range_lo);
    precise float q = n / hi;
    precise vec2 qh = exact_product(q, hi);
    precise float r = ((n - qh.x) - qh.y) - q * lo; /* n - q*den */
    precise float z = q + r / hi;
    return z;
}

void main()
{
    uvec2 q = gl_GlobalInvocationID.xy;
    if (q.x >= p.dst_w || q.y >= p.dst_h) return;
    uint yb = p.dst_h - 1u - q.y; /* the bottom-up row of this pixel */
    uint sy = p.src_h == p.dst_h ? yb : yb * p.src_h / p.dst_h;
    uint sx = p.src_w == p.dst_w ? q.x : q.x * p.src_w / p.dst_w;
    uint row = p.flip != 0u ? p.src_h - 1u - sy : sy;
    float d = texelFetch(src, ivec2(int(sx), int(row)), 0).r;
    dst.words[q.y * p.dst_w + q.x] = floatBitsToUint(p.raw != 0u ? d : linear_depth(d));
}
