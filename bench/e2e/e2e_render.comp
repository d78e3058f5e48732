#version 450
// The end-to-end benchmark's "game render" (bench/e2e): a scrolling landscape
// (sky gradient, hills, block-noise grass) that changes every frame with the
// frame number and the learner's action, written into the game's RGBA8 image,
// plus `iters` rounds of ALU work per pixel: the render's configurable GPU
// cost (the game calibrates iters to a target time with GPU timestamps).
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform P {
    uint frame;
    uint iters;
    uint action;
    uint w;
    uint h;
    uint scene;  // 1: the soak's scene (bench/e2e/soak.py), which the learner predicts
    uint game;
    uint gen;
} p;

void main()
{
    uvec2 g = gl_GlobalInvocationID.xy;
    if (g.x >= p.w || g.y >= p.h) return;
    if (p.scene == 1u) {
        // 8 bands from the top; the left half frame bits 0-15 and band * 16 + game, the right
        // half frame bits 16-23, the game's generation and 255 - (band * 16 + game): every
        // byte exact (k / 255 stores k), any render size, rows and games told apart.
        uint band = g.y * 8u / p.h, id = band * 16u + (p.game & 15u);
        uvec3 b = g.x < p.w / 2u ? uvec3(p.frame & 255u, (p.frame >> 8) & 255u, id)
                                 : uvec3((p.frame >> 16) & 255u, p.gen & 255u, 255u - id);
        imageStore(img, ivec2(g), vec4(vec3(b) / 255.0, 1.0));
        return;
    }
    float x = float(g.x + p.frame * 3u + p.action * 7u) / float(p.w);
    float y = float(g.y) / float(p.h);
    float hill = 0.55 + 0.12 * sin(x * 12.566) + 0.05 * sin(x * 43.98 + 1.3);
    vec3 c;
    if (y < hill) {
        c = mix(vec3(0.45, 0.65, 0.95), vec3(0.85, 0.9, 1.0), y / hill);
    } else {
        vec2 cell = vec2(floor(x * 160.0), floor(y * 90.0));
        float n = fract(sin(dot(cell, vec2(12.9898, 78.233))) * 43758.5453);
        c = vec3(0.2, 0.5, 0.15) * (0.7 + 0.3 * n);
    }
    float v = c.r;
    for (uint i = 0u; i < p.iters; i++) v = fract(v * 1.618 + 0.31);
    c.r = mix(c.r, v, 0.002);  // keeps the loop's work in the output
    imageStore(img, ivec2(g), vec4(c, 1.0));
}
