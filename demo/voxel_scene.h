/*
 * voxel_scene.h - the demo's stand-in for the game: a headless EGL context
 * (GL 3.3 core; the NVIDIA EGL device when present, else Mesa llvmpipe) that
 * renders a small Minecraft-like voxel world into a color + depth texture
 * pair the way the game renders its main target (reverse-Z depth). The JNI
 * wrapper (voxel_scene_jni.c) hands the textures to the Java demo; the
 * demo_frame test renders the same frames and checks them against a ray
 * caster. Demo-only: one scene per process (globals).
 *
 * The scene, as the test's ray caster computes it:
 * - World: columns (x, z), 0 <= x, z < VS_WORLD, of height
 *   vs_height_at(x, z) in 1..VS_MAX_H; block (x, y, z) is solid for
 *   0 <= y < height. Drawn faces: every column's top, and each side face
 *   whose neighbour column (height 0 outside the world) is lower.
 * - Block colours (vs_block_color): the top block is sand where the column
 *   is at most 3 high, else grass (its sides grass_side); the 3 blocks below
 *   it are dirt, the rest stone.
 * - Shading, Minecraft's flat lighting with its ambient occlusion: a face's
 *   colour is the block's colour times VS_SHADE_TOP (top faces), VS_SHADE_Z
 *   (+z and -z) or VS_SHADE_X (+x and -x), times, at each corner, the
 *   occlusion factor 1 - VS_AO_STEP * occ, where occ counts the solid blocks
 *   among the 3 in front of the face that touch the corner (the two beside
 *   it along the face's edges and the diagonal one; both edge blocks solid
 *   count as 3). A face is two triangles split along the diagonal whose
 *   corners have the larger summed factor; inside a triangle the colour is
 *   interpolated linearly in world space (GL's perspective-correct
 *   interpolation).
 * - Fog: with d the eye-space depth (clip w), the colour is mixed towards
 *   the sky colour VS_SKY by clamp((d - 40) / 60, 0, 1). Where no face is
 *   hit, the sky colour (the clear colour).
 * - Camera (vs_camera): frame f of n flies an arc over the world; vertical
 *   field of view VS_FOVY radians, near VS_NEAR, far VS_FAR.
 */
#ifndef CG_DEMO_VOXEL_SCENE_H
#define CG_DEMO_VOXEL_SCENE_H

#include <stddef.h>

enum { VS_WORLD = 48, VS_MAX_H = 12 };
#define VS_NEAR 0.1f
#define VS_FAR 160.0f
#define VS_FOVY 1.1f
#define VS_SHADE_TOP 1.0f
#define VS_SHADE_Z 0.8f
#define VS_SHADE_X 0.6f
#define VS_AO_STEP 0.2f
#define VS_FOG_START 40.0f
#define VS_FOG_RANGE 60.0f
extern const float VS_SKY[3];

/* Terrain height of column (x, z): rolling hills, 1..VS_MAX_H; 0 outside. */
int vs_height_at(int x, int z);

/* The colour of block y of a column `top` high, on its top face or a side. */
void vs_block_color(int y, int top, int is_top_face, float out[3]);

/* Eye and look-at point of frame `frame` of `frames`. */
void vs_camera(int frame, int frames, float eye[3], float at[3]);

/* Makes the context (current on this thread) and the w x h targets. 0 on
 * success; nonzero with the reason in why, the scene closed. */
int vs_open(int w, int h, char *why, size_t why_len);

/* "EGL device 0: llvmpipe ..." */
const char *vs_describe(void);

/* The color and depth texture names (what the mod hands to the capturer). */
unsigned vs_color_texture(void);
unsigned vs_depth_texture(void);

/* Whether depth uses the [0,1] clip range (glClipControl) rather than [-1,1]. */
int vs_zero_to_one(void);

/* Renders frame `frame` of `frames`, finished on the GPU (glFinish). 0 = ok. */
int vs_render(int frame, int frames);

/* glReadPixels of the color target: w*h RGBA8 bottom-up rows into dst
 * (dst_len bytes, at least w*h*4). 0 = ok. */
int vs_readback(void *dst, size_t dst_len);

/* Deletes the GL objects and the context; a no-op when not open. */
void vs_close(void);

#endif /* CG_DEMO_VOXEL_SCENE_H */
