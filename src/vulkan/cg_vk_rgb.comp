#version 430
/*
 * cg_vk_rgb.comp - the RGB slot format of zero-copy v2 (docs/zero-copy-v2/protocol.md,
 * "The RGB slot format"): the game's RGBA8 frame -> the RAW observation
 * (nearest resize, cursor) with its rows upright, 3 bytes per pixel,
 * tightly packed, in one dispatch.
 *
 * Compiled to SPIR-V at build time (glslangValidator -V, which defines
 * VULKAN): parameters in push constants. Compiled by a GL 4.3+ driver
 * (no VULKAN): parameters in a std140 uniform block at binding 0; the
 * source at texture unit / SSBO binding 0, the slot at SSBO binding 2, the
 * cursor at UBO binding 3.
 *
 * CG_SRC_BUFFER defined: the source is a buffer of the image's texels as
 * stored (R, G, B, A bytes; B, G, R, A when bgra), the copy the producer
 * makes of an SRGB image (its stored bytes, never decoded) where its
 * probe found the view's decode inexact. Otherwise a sampler of the image
 * in its own format: of a UNORM image texelFetch returns unorm8 / 255 and
 * round(x * 255) gives the stored byte back exactly; of an SRGB image
 * (CG_SRC_SRGB defined, Vulkan only) it returns the byte decoded to
 * linear, which the sRGB encode turns back into byte / 255 first (exact
 * where the producer's probe says so: every byte value of every channel).
 *
 * Each invocation writes 4 consecutive pixels of the slot (pixel index
 * p = Y * dst_w + x, row-major, so rows need not be word aligned) as 3
 * words; past the last pixel the bytes are 0 (the slot is allocated in
 * whole 12-byte groups).
 */
layout(local_size_x = 64) in;

#ifdef VULKAN
#define CG_BIND_SRC layout(set = 0, binding = 0)
#define CG_BIND_DST layout(set = 1, binding = 0)
#define CG_BIND_CURSOR layout(set = 1, binding = 1)
layout(push_constant) uniform Params {
#else
#define CG_BIND_SRC layout(binding = 0)
#define CG_BIND_DST layout(binding = 2)
#define CG_BIND_CURSOR layout(binding = 3)
layout(std140, binding = 0) uniform Params {
#endif
    uint src_w;     /* the game image, pixels */
    uint src_h;
    uint dst_w;     /* the slot (target), pixels */
    uint dst_h;
    uint flip;      /* the RAW path's flip: nonzero when the image's row 0 is the top */
    uint bgra;      /* read with CG_SRC_BUFFER only: texels are B, G, R, A */
    uint cursor_on; /* nonzero: the hot spot lies inside the target */
    int cursor_x;   /* hot spot, target pixels from the top-left */
    int cursor_y;
} p;

#ifdef CG_SRC_BUFFER
layout(std430) CG_BIND_SRC readonly buffer Src { uint texels[]; } src;
#else
CG_BIND_SRC uniform sampler2D src;
#endif
layout(std430) CG_BIND_DST writeonly buffer Dst { uint words[]; } dst;
/* The bitmap of cg_cursor.c, 2 bits a pixel: row r is word r (rows[r / 4][r % 4]),
 * column c bits 2c..2c+1: 0 untouched, 1 black, 2 white. */
layout(std140) CG_BIND_CURSOR uniform Cursor { uvec4 rows[4]; } cur;

#ifdef CG_SRC_SRGB
/* The sRGB encode (the inverse of the view's decode): linear -> byte / 255. */
vec3 srgb_encode(vec3 c)
{
    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, greaterThan(c, vec3(0.0031308)));
}
#endif

uvec3 source_texel(uint sx, uint row)
{
#ifdef CG_SRC_BUFFER
    uint v = src.texels[row * p.src_w + sx];
    uvec3 c = uvec3(v & 255u, (v >> 8) & 255u, (v >> 16) & 255u);
    return p.bgra != 0u ? c.bgr : c;
#else
    vec4 t = texelFetch(src, ivec2(int(sx), int(row)), 0);
#ifdef CG_SRC_SRGB
    t.rgb = srgb_encode(t.rgb);
#endif
    return uvec3(round(t.rgb * 255.0));
#endif
}

/* Slot pixel (x, y), y counted from the top. */
uvec3 pixel(uint x, uint y)
{
    if (p.cursor_on != 0u) {
        int dx = int(x) - p.cursor_x, dy = int(y) - p.cursor_y;
        if (dx >= 0 && dx < 16 && dy >= 0 && dy < 16) {
            uint code = (cur.rows[dy >> 2][dy & 3] >> uint(2 * dx)) & 3u;
            if (code != 0u) return code == 2u ? uvec3(255u) : uvec3(0u);
        }
    }
    uint yb = p.dst_h - 1u - y; /* RAW's (bottom-up) row of this pixel */
    /* The same size (the common case) needs no division. */
    uint sy = p.src_h == p.dst_h ? yb : yb * p.src_h / p.dst_h;
    uint sx = p.src_w == p.dst_w ? x : x * p.src_w / p.dst_w;
    return source_texel(sx, p.flip != 0u ? p.src_h - 1u - sy : sy);
}

void main()
{
    uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 64u) + gl_GlobalInvocationID.x;
    uint n = p.dst_w * p.dst_h;
    uint p0 = i * 4u;
    if (p0 >= n) return;
    uint y = p0 / p.dst_w, x = p0 - y * p.dst_w;
    uvec3 c[4];
    for (int k = 0; k < 4; k++) {
        c[k] = p0 + uint(k) < n ? pixel(x, y) : uvec3(0u);
        if (++x == p.dst_w) {
            x = 0u;
            y++;
        }
    }
    uint w = i * 3u;
    dst.words[w] = c[0].r | (c[0].g << 8) | (c[0].b << 16) | (c[1].r << 24);
    dst.words[w + 1u] = c[1].g | (c[1].b << 8) | (c[2].r << 16) | (c[2].g << 24);
    dst.words[w + 2u] = c[2].b | (c[3].r << 8) | (c[3].g << 16) | (c[3].b << 24);
}
