/*
 * vkt.h - test-only Vulkan harness: loads libvulkan.so.1 with dlopen,
 * makes an instance and a device with external memory (and, where the
 * driver has them, external semaphores and timeline semaphores), and moves
 * pixels in and out of images through host-visible staging buffers. Used by
 * tests/vulkan, tests/cuda and bench/zerocopy_*.c.
 */
#ifndef VKT_H
#define VKT_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <stddef.h>
#include <stdint.h>

#define VKT_SKIP 77

typedef struct vkt {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    uint32_t qfam;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    int has_debug_utils, has_sem_fd, has_timeline;
    /* $CG_VKT_QUEUE_PRIORITY=low|medium|high: the queue's global priority, where the device
     * has VK_KHR/EXT_global_priority (the benchmarks' games; 0: the driver's default). */
    int queue_priority;
    uint8_t uuid[16];
    char device_name[256];
    PFN_vkGetDeviceProcAddr gdpa;
    /* Host-visible staging buffer, kept and grown across transfers. */
    VkBuffer stage;
    VkDeviceMemory stage_mem;
    void *stage_map;
    size_t stage_size;
} vkt;

/* Returns 0, VKT_SKIP (no loader/ICD/extension: `why` says which), or 1. */
int vkt_init(vkt *t, char *why, size_t whylen);
void vkt_fini(vkt *t);

/* A device function by name (aborts the test when missing). */
PFN_vkVoidFunction vkt_dfn(vkt *t, const char *name);
#define VKT_FN(t, name) ((PFN_##name)vkt_dfn((t), #name))

/* An RGBA8 OPTIMAL image with TRANSFER_SRC|TRANSFER_DST|COLOR_ATTACHMENT
 * usage and dedicated memory; import_fd >= 0 imports that OPAQUE_FD
 * (consumed) instead of allocating fresh memory. Returns 0 on success. */
int vkt_image(vkt *t, int w, int h, int import_fd, uint64_t import_size, VkImage *img,
              VkDeviceMemory *mem);
void vkt_image_free(vkt *t, VkImage img, VkDeviceMemory mem);
/* The same with a format and usage bits added to those three. */
int vkt_image_ex(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags extra_usage,
                 int import_fd, uint64_t import_size, VkImage *img, VkDeviceMemory *mem);

/* vkt_image_ex's image with its dedicated memory exportable as OPAQUE_FD
 * (vkGetMemoryFdKHR); *size: the allocation's size, as an importer needs it. */
int vkt_image_export(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags extra_usage,
                     VkImage *img, VkDeviceMemory *mem, uint64_t *size);

/* A colour image barrier on mip 0 / layer 0, no queue family transfer. */
VkImageMemoryBarrier vkt_image_barrier(VkImage img, VkImageLayout from, VkImageLayout to,
                                       VkAccessFlags src_access, VkAccessFlags dst_access);

/* A VK_FORMAT_D32_SFLOAT OPTIMAL image with Minecraft's depth usage
 * (TRANSFER_SRC|TRANSFER_DST|SAMPLED|DEPTH_STENCIL_ATTACHMENT). 0: done. */
int vkt_depth_image(vkt *t, int w, int h, VkImage *img, VkDeviceMemory *mem);
/* Upload w*h floats (row 0 first) into a depth image; it ends in `final`. */
int vkt_upload_depth(vkt *t, VkImage img, int w, int h, const float *depth, VkImageLayout final);
/* Download a depth image (in `cur`, left in `cur`) into out[w*h]. */
int vkt_download_depth(vkt *t, VkImage img, VkImageLayout cur, int w, int h, float *out);
/* A device-local buffer of `size` bytes with usage | TRANSFER_SRC. 0: done. */
int vkt_buffer(vkt *t, size_t size, VkBufferUsageFlags usage, VkBuffer *buf, VkDeviceMemory *mem);
void vkt_buffer_free(vkt *t, VkBuffer buf, VkDeviceMemory mem);

/* End t->cmd (recording), submit it with t->fence, wait. 0 on success. */
int vkt_submit_wait(vkt *t);

/* Copy the first `size` bytes of buf into out through the staging buffer
 * and wait. external: buf was released to VK_QUEUE_FAMILY_EXTERNAL (a ring
 * slot): it is acquired for the copy and released back. */
int vkt_read_buffer(vkt *t, VkBuffer buf, size_t size, uint8_t *out, int external);

/* Upload w*h*4 bytes (row 0 first) into img; the image ends in `final`. */
int vkt_upload(vkt *t, VkImage img, int w, int h, const uint8_t *rgba, VkImageLayout final);
/* Download img (currently in `cur`, left in `cur`) into out[w*h*4]. */
int vkt_download(vkt *t, VkImage img, VkImageLayout cur, int w, int h, uint8_t *out);

#endif
