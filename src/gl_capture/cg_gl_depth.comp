#version 430
/*
 * cg_gl_depth.comp - the depth plane of zero-copy v2's RGB slot format
 * (docs/zero-copy-v2.md, "Depth planes"): the game's depth texture -> float32
 * values, rows upright (row 0 is the picture's top), tightly packed
 * (W*4 bytes a row), nearest resize by the RGB plane's mapping, in one
 * dispatch. Written for GL (cg_gl_depth.c compiles it at ring creation);
 * GLSL 4.30 as cg_vk_rgb.comp, with the same VULKAN form of its bindings,
 * so one source can serve both producers.
 *
 * Bindings (GL): parameters in a std140 uniform block at binding 0; the
 * depth texture at texture unit 0 (a sampler2D: texelFetch(...).r is the
 * stored depth; the producer's sampler object has compare mode NONE); the
 * plane at SSBO binding 2, bound at the plane's offset in the slot.
 *
 * encoding 2 (RAW): the texel as texelFetch returns it, bit for bit (a
 * float format's stored value). encoding 1 (LINEAR): reverse-Z depth d
 * (1 = near, 0 = far) to eye distance / far, n / (n + d*(f-n))
 * (docs/wire-format.md "Depth": its [0,1] and [-1,1] clip formulas are
 * this one function), within 2 float ulps of the double formula without
 * 64-bit floats and without relying on fma being fused (Mesa's llvmpipe
 * computes GLSL's fma as a multiply and an add): the denominator as an
 * unevaluated sum of two floats (Dekker's exact product, Knuth's exact sum;
 * f - n comes from the host as fmn + fmn_lo), then the quotient with one
 * correction step, whose residual is exact the same way.
 */
layout(local_size_x = 64) in;

#ifdef VULKAN
#define CG_BIND_SRC layout(set = 0, binding = 0)
#define CG_BIND_DST layout(set = 1, binding = 0)
layout(push_constant) uniform Params {
#else
#define CG_BIND_SRC layout(binding = 0)
#define CG_BIND_DST layout(binding = 2)
layout(std140, binding = 0) uniform Params {
#endif
    uint src_w;      /* the depth texture, pixels */
    uint src_h;
    uint dst_w;      /* the plane (target), pixels */
    uint dst_h;
    uint flip;       /* nonzero when the texture's row 0 is the top (GL: 0) */
    uint encoding;   /* 1 linear, 2 raw */
    float near_plane; /* linear: n */
    float fmn;       /* linear: (float)((double)f - n) */
    float fmn_lo;    /* linear: (float)(((double)f - n) - fmn), what fmn lost */
} p;

CG_BIND_SRC uniform sampler2D depth;
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
    precise vec2 dm = exact_product(d, p.fmn);
    precise float hi = n + dm.x; /* den = hi + lo */
    precise float bv = hi - n;
    precise float lo = ((n - (hi - bv)) + (dm.x - bv)) + (dm.y + d * p.fmn_lo);
    precise float q = n / hi;
    precise vec2 qh = exact_product(q, hi);
    precise float r = ((n - qh.x) - qh.y) - q * lo; /* n - q*den */
    precise float z = q + r / hi;
    return z;
}

void main()
{
    uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 64u) + gl_GlobalInvocationID.x;
    if (i >= p.dst_w * p.dst_h) return;
    uint y = i / p.dst_w, x = i - y * p.dst_w;
    uint yb = p.dst_h - 1u - y; /* the bottom-up row of this pixel */
    uint sy = p.src_h == p.dst_h ? yb : yb * p.src_h / p.dst_h;
    uint sx = p.src_w == p.dst_w ? x : x * p.src_w / p.dst_w;
    uint row = p.flip != 0u ? p.src_h - 1u - sy : sy;
    float d = texelFetch(depth, ivec2(int(sx), int(row)), 0).r;
    dst.words[i] = floatBitsToUint(p.encoding == 1u ? linear_depth(d) : d);
}
