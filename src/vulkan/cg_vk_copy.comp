#version 430
/*
 * cg_vk_copy.comp - the compute copy of zero-copy v2's RGBA slot formats
 * (descriptor formats 37/44; docs/zero-copy-v2/producer.md, "The compute copy"):
 * the game's RGBA8/BGRA8 image into the slot as its stored bytes,
 * 4 a pixel, tightly packed, rows in the image's own order (row y of the
 * image is row y of the slot: what vkCmdCopyImageToBuffer and, in GL,
 * glReadPixels write), one invocation a pixel.
 *
 * Compiled to SPIR-V at build time (glslangValidator -V, which defines
 * VULKAN): parameters in push constants. Compiled by a GL 4.3+ driver (no
 * VULKAN): parameters in a std140 uniform block at binding 0, the source at
 * texture unit 0, the slot at SSBO binding 2. The parameter block is the
 * RGB shader's (cg_vk_rgb.comp), so both share their host-side structs;
 * only src_w, src_h and bgra are read here.
 *
 * texelFetch of a UNORM texel returns stored / 255, and round(x * 255)
 * gives each stored byte back exactly, for all 256 values (packUnorm4x8's
 * rule, written out: it needs GLSL 4.00, and a GL 3.3 context with the
 * compute extensions compiles this too). A BGRA image's texel comes back as (R, G, B, A) of
 * stored bytes (B, G, R, A): writing .bgra keeps the stored order.
 *
 * CG_SRC_SRGB defined (Vulkan only: the ring's SPIR-V for SRGB images,
 * read through a view of their own SRGB format): texelFetch returns R, G
 * and B decoded to linear, and the sRGB encode turns each back into
 * stored / 255 before the rounding; alpha is never decoded. Exact only
 * where the decode is accurate enough: the ring probes it once at create
 * (every byte value of every channel) and else keeps the transfer copy.
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
    uint src_w;     /* the image, pixels */
    uint src_h;
    uint dst_w;     /* unused here: the slot is the image's size */
    uint dst_h;
    uint flip;      /* unused: a copy keeps the image's row order */
    uint bgra;      /* nonzero: the image is B8G8R8A8 */
    uint cursor_on; /* unused: no cursor in a copy */
    int cursor_x;
    int cursor_y;
} p;

CG_BIND_SRC uniform sampler2D src;
layout(std430) CG_BIND_DST writeonly buffer Dst { uint words[]; } dst;

#ifdef CG_SRC_SRGB
/* The sRGB encode (the inverse of the view's decode): linear -> stored / 255. */
vec3 srgb_encode(vec3 c)
{
    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, greaterThan(c, vec3(0.0031308)));
}
#endif

void main()
{
    uvec2 q = gl_GlobalInvocationID.xy;
    if (q.x >= p.src_w || q.y >= p.src_h) return;
    vec4 t = texelFetch(src, ivec2(q), 0);
#ifdef CG_SRC_SRGB
    t.rgb = srgb_encode(t.rgb);
#endif
    uvec4 b = uvec4(round(clamp(p.bgra != 0u ? t.bgra : t, 0.0, 1.0) * 255.0));
    dst.words[q.y * p.src_w + q.x] = b.x | (b.y << 8) | (b.z << 16) | (b.w << 24);
}
