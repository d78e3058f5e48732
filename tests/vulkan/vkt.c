/* vkt.c - see vkt.h. Test code: failures print and return nonzero. */
#include "vkt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void staging_free(vkt *t);

#define IFN(t, name) ((PFN_##name)(t)->gipa((t)->inst, #name))

PFN_vkVoidFunction vkt_dfn(vkt *t, const char *name)
{
    PFN_vkVoidFunction f = t->gdpa(t->dev, name);
    if (!f) {
        fprintf(stderr, "vkt: device function %s missing\n", name);
        exit(1);
    }
    return f;
}

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0) return 1;
    return 0;
}

int vkt_init(vkt *t, char *why, size_t whylen)
{
    memset(t, 0, sizeof *t);
    t->lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!t->lib) return snprintf(why, whylen, "no Vulkan loader: %s", dlerror()), VKT_SKIP;
    t->gipa = (PFN_vkGetInstanceProcAddr)dlsym(t->lib, "vkGetInstanceProcAddr");
    if (!t->gipa) return snprintf(why, whylen, "loader lacks vkGetInstanceProcAddr"), VKT_SKIP;

    PFN_vkEnumerateInstanceExtensionProperties eiep =
        (PFN_vkEnumerateInstanceExtensionProperties)t->gipa(NULL,
                                                            "vkEnumerateInstanceExtensionProperties");
    uint32_t n = 0;
    eiep(NULL, &n, NULL);
    VkExtensionProperties *ie = calloc(n + 1, sizeof *ie);
    eiep(NULL, &n, ie);
    t->has_debug_utils = has_ext(ie, n, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    free(ie);
    const char *iext[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    app.pApplicationName = "cg-vk-test";
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    ici.enabledExtensionCount = t->has_debug_utils ? 1 : 0;
    ici.ppEnabledExtensionNames = iext;
    PFN_vkCreateInstance ci = (PFN_vkCreateInstance)t->gipa(NULL, "vkCreateInstance");
    VkResult r = ci(&ici, NULL, &t->inst);
    if (r != VK_SUCCESS) return snprintf(why, whylen, "vkCreateInstance: %d (no ICD?)", r), VKT_SKIP;

    uint32_t nd = 0;
    IFN(t, vkEnumeratePhysicalDevices)(t->inst, &nd, NULL);
    if (nd == 0) return snprintf(why, whylen, "no Vulkan physical device"), VKT_SKIP;
    VkPhysicalDevice *pd = calloc(nd, sizeof *pd);
    IFN(t, vkEnumeratePhysicalDevices)(t->inst, &nd, pd);
    /* Prefer a real GPU; lavapipe (CPU) otherwise. */
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < nd; i++) {
        VkPhysicalDeviceProperties p;
        IFN(t, vkGetPhysicalDeviceProperties)(pd[i], &p);
        int rank = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU     ? 3
                   : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2
                                                                             : 1;
        if (rank > best_rank) best = (int)i, best_rank = rank;
    }
    /* $CG_VKT_DEVICE_UUID (32 hex digits, the CUDA/Vulkan device UUID): that
     * GPU instead (a game on a chosen GPU of a multi-GPU machine). */
    const char *want = getenv("CG_VKT_DEVICE_UUID");
    if (want && *want) {
        best = -1;
        for (uint32_t i = 0; i < nd && best < 0; i++) {
            VkPhysicalDeviceIDProperties id = {
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
            VkPhysicalDeviceProperties2 q = {
                .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
            q.pNext = &id;
            IFN(t, vkGetPhysicalDeviceProperties2)(pd[i], &q);
            char hex[33];
            for (int k = 0; k < 16; k++) snprintf(hex + 2 * k, 3, "%02x", id.deviceUUID[k]);
            if (strlen(want) == 32 && strncasecmp(hex, want, 32) == 0) best = (int)i;
        }
        if (best < 0) {
            free(pd);
            return snprintf(why, whylen, "CG_VKT_DEVICE_UUID=%s: no Vulkan device has it", want), 1;
        }
    }
    t->phys = pd[best];
    free(pd);
    VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &idp;
    IFN(t, vkGetPhysicalDeviceProperties2)(t->phys, &p2);
    memcpy(t->uuid, idp.deviceUUID, 16);
    snprintf(t->device_name, sizeof t->device_name, "%s", p2.properties.deviceName);

    uint32_t ne = 0;
    IFN(t, vkEnumerateDeviceExtensionProperties)(t->phys, NULL, &ne, NULL);
    VkExtensionProperties *de = calloc(ne + 1, sizeof *de);
    IFN(t, vkEnumerateDeviceExtensionProperties)(t->phys, NULL, &ne, de);
    if (!has_ext(de, ne, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        free(de);
        return snprintf(why, whylen, "%s lacks VK_KHR_external_memory_fd", t->device_name),
               VKT_SKIP;
    }
    t->has_sem_fd = has_ext(de, ne, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    /* A global queue priority, asked for by name (the KHR and EXT extensions share values). */
    const char *prio_name = getenv("CG_VKT_QUEUE_PRIORITY"), *prio_ext = NULL;
    VkQueueGlobalPriorityEXT want_prio = 0;
    if (prio_name && strcmp(prio_name, "low") == 0) want_prio = VK_QUEUE_GLOBAL_PRIORITY_LOW_EXT;
    if (prio_name && strcmp(prio_name, "medium") == 0)
        want_prio = VK_QUEUE_GLOBAL_PRIORITY_MEDIUM_EXT;
    if (prio_name && strcmp(prio_name, "high") == 0) want_prio = VK_QUEUE_GLOBAL_PRIORITY_HIGH_EXT;
    if (want_prio && has_ext(de, ne, "VK_KHR_global_priority"))
        prio_ext = "VK_KHR_global_priority";
    else if (want_prio && has_ext(de, ne, VK_EXT_GLOBAL_PRIORITY_EXTENSION_NAME))
        prio_ext = VK_EXT_GLOBAL_PRIORITY_EXTENSION_NAME;
    free(de);
    VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &tf;
    IFN(t, vkGetPhysicalDeviceFeatures2)(t->phys, &f2);
    t->has_timeline = tf.timelineSemaphore && t->has_sem_fd;

    uint32_t nq = 0;
    IFN(t, vkGetPhysicalDeviceQueueFamilyProperties)(t->phys, &nq, NULL);
    VkQueueFamilyProperties *qp = calloc(nq, sizeof *qp);
    IFN(t, vkGetPhysicalDeviceQueueFamilyProperties)(t->phys, &nq, qp);
    t->qfam = UINT32_MAX;
    for (uint32_t i = 0; i < nq && t->qfam == UINT32_MAX; i++)
        if (qp[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) t->qfam = i;
    free(qp);
    if (t->qfam == UINT32_MAX) return snprintf(why, whylen, "no graphics queue"), VKT_SKIP;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = t->qfam;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    const char *dext[3] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                           VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME, NULL};
    uint32_t n_dext = t->has_sem_fd ? 2 : 1;
    VkDeviceQueueGlobalPriorityCreateInfoEXT gp = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_GLOBAL_PRIORITY_CREATE_INFO_EXT,
        .globalPriority = want_prio};
    if (prio_ext) {
        dext[n_dext++] = prio_ext;
        qci.pNext = &gp;
    }
    tf.timelineSemaphore = t->has_timeline ? VK_TRUE : VK_FALSE;
    tf.pNext = NULL;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &tf;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = n_dext;
    dci.ppEnabledExtensionNames = dext;
    r = IFN(t, vkCreateDevice)(t->phys, &dci, NULL, &t->dev);
    if (prio_ext && r == VK_ERROR_NOT_PERMITTED_EXT) { /* not allowed to this process: default */
        dci.enabledExtensionCount = n_dext - 1;
        qci.pNext = NULL;
        prio_ext = NULL;
        r = IFN(t, vkCreateDevice)(t->phys, &dci, NULL, &t->dev);
    }
    t->queue_priority = prio_ext ? (int)want_prio : 0;
    if (r != VK_SUCCESS) return snprintf(why, whylen, "vkCreateDevice: %d", r), 1;
    t->gdpa = IFN(t, vkGetDeviceProcAddr);
    VKT_FN(t, vkGetDeviceQueue)(t->dev, t->qfam, 0, &t->queue);

    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = t->qfam;
    VKT_FN(t, vkCreateCommandPool)(t->dev, &pci, NULL, &t->pool);
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = t->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VKT_FN(t, vkAllocateCommandBuffers)(t->dev, &cai, &t->cmd);
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VKT_FN(t, vkCreateFence)(t->dev, &fci, NULL, &t->fence);
    return 0;
}

void vkt_fini(vkt *t)
{
    if (t->dev) {
        VKT_FN(t, vkDeviceWaitIdle)(t->dev);
        staging_free(t);
        VKT_FN(t, vkDestroyFence)(t->dev, t->fence, NULL);
        VKT_FN(t, vkDestroyCommandPool)(t->dev, t->pool, NULL);
        IFN(t, vkDestroyDevice)(t->dev, NULL);
    }
    if (t->inst) IFN(t, vkDestroyInstance)(t->inst, NULL);
    if (t->lib) dlclose(t->lib);
    memset(t, 0, sizeof *t);
}

static uint32_t mem_type(vkt *t, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    IFN(t, vkGetPhysicalDeviceMemoryProperties)(t->phys, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

int vkt_image(vkt *t, int w, int h, int import_fd, uint64_t import_size, VkImage *img,
              VkDeviceMemory *mem)
{
    return vkt_image_ex(t, w, h, VK_FORMAT_R8G8B8A8_UNORM, 0, import_fd, import_size, img, mem);
}

/* An image of exactly `usage`; with `exportable` the memory allocated exportable as OPAQUE_FD
 * (its size in *size when size is not NULL). */
static int image_make(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags usage,
                      int import_fd, uint64_t import_size, int exportable, VkImage *img,
                      VkDeviceMemory *mem, uint64_t *size);

#define VKT_COLOR_USAGE                                                                     \
    (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |                   \
     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)

int vkt_image_ex(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags extra_usage,
                 int import_fd, uint64_t import_size, VkImage *img, VkDeviceMemory *mem)
{
    return image_make(t, w, h, format, VKT_COLOR_USAGE | extra_usage, import_fd, import_size, 0,
                      img, mem, NULL);
}

int vkt_image_export(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags extra_usage,
                     VkImage *img, VkDeviceMemory *mem, uint64_t *size)
{
    return image_make(t, w, h, format, VKT_COLOR_USAGE | extra_usage, -1, 0, 1, img, mem, size);
}

int vkt_depth_image(vkt *t, int w, int h, VkImage *img, VkDeviceMemory *mem)
{
    /* Minecraft's depth target's usage: sampled, transfer, attachment. */
    return image_make(t, w, h, VK_FORMAT_D32_SFLOAT,
                      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                      -1, 0, 0, img, mem, NULL);
}

static int image_make(vkt *t, int w, int h, VkFormat format, VkImageUsageFlags usage,
                      int import_fd, uint64_t import_size, int exportable, VkImage *img,
                      VkDeviceMemory *mem, uint64_t *size)
{
    VkExternalMemoryImageCreateInfo ext = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.pNext = import_fd >= 0 || exportable ? &ext : NULL;
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = format;
    ci.extent.width = (uint32_t)w;
    ci.extent.height = (uint32_t)h;
    ci.extent.depth = 1;
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (VKT_FN(t, vkCreateImage)(t->dev, &ci, NULL, img) != VK_SUCCESS) return 1;
    VkMemoryRequirements req;
    VKT_FN(t, vkGetImageMemoryRequirements)(t->dev, *img, &req);
    VkMemoryDedicatedAllocateInfo ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    ded.image = *img;
    VkImportMemoryFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    imp.fd = import_fd;
    imp.pNext = &ded;
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    exp.pNext = &ded;
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = import_fd >= 0 ? (const void *)&imp
                              : exportable ? (const void *)&exp : (const void *)&ded;
    ai.allocationSize = import_fd >= 0 ? import_size : req.size;
    if (size) *size = ai.allocationSize;
    ai.memoryTypeIndex = mem_type(t, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkResult r = VKT_FN(t, vkAllocateMemory)(t->dev, &ai, NULL, mem);
    if (r != VK_SUCCESS) {
        fprintf(stderr, "vkt_image: vkAllocateMemory %d\n", r);
        return 1;
    }
    return VKT_FN(t, vkBindImageMemory)(t->dev, *img, *mem, 0) != VK_SUCCESS;
}

void vkt_image_free(vkt *t, VkImage img, VkDeviceMemory mem)
{
    VKT_FN(t, vkDestroyImage)(t->dev, img, NULL);
    VKT_FN(t, vkFreeMemory)(t->dev, mem, NULL);
}

static int make_buffer(vkt *t, size_t size, VkBufferUsageFlags usage, VkMemoryPropertyFlags props,
                       VkBuffer *buf, VkDeviceMemory *mem)
{
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = usage;
    if (VKT_FN(t, vkCreateBuffer)(t->dev, &bi, NULL, buf) != VK_SUCCESS) return 1;
    VkMemoryRequirements req;
    VKT_FN(t, vkGetBufferMemoryRequirements)(t->dev, *buf, &req);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = mem_type(t, req.memoryTypeBits, props);
    if (VKT_FN(t, vkAllocateMemory)(t->dev, &ai, NULL, mem) != VK_SUCCESS) return 1;
    return VKT_FN(t, vkBindBufferMemory)(t->dev, *buf, *mem, 0) != VK_SUCCESS;
}

static int staging(vkt *t, size_t size, VkBuffer *buf, VkDeviceMemory *mem, void **map)
{
    if (make_buffer(t, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, buf,
                    mem))
        return 1;
    return VKT_FN(t, vkMapMemory)(t->dev, *mem, 0, VK_WHOLE_SIZE, 0, map) != VK_SUCCESS;
}

VkImageMemoryBarrier vkt_image_barrier(VkImage img, VkImageLayout from, VkImageLayout to,
                                       VkAccessFlags src_access, VkAccessFlags dst_access)
{
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    return b;
}

static void layout(vkt *t, VkImage img, VkImageAspectFlags aspect, VkImageLayout from,
                   VkImageLayout to)
{
    VkImageMemoryBarrier b =
        vkt_image_barrier(img, from, to, VK_ACCESS_MEMORY_WRITE_BIT,
                          VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    b.subresourceRange.aspectMask = aspect;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1,
                                    &b);
}

static int run_copy(vkt *t, VkImage img, VkImageAspectFlags aspect, VkImageLayout before,
                    VkImageLayout after, VkBuffer buf, int w, int h, int to_image)
{
    VKT_FN(t, vkResetCommandBuffer)(t->cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(t, vkBeginCommandBuffer)(t->cmd, &bi);
    VkImageLayout xfer = to_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
                                  : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    layout(t, img, aspect, before, xfer);
    VkBufferImageCopy reg;
    memset(&reg, 0, sizeof reg);
    reg.imageSubresource.aspectMask = aspect;
    reg.imageSubresource.layerCount = 1;
    reg.imageExtent.width = (uint32_t)w;
    reg.imageExtent.height = (uint32_t)h;
    reg.imageExtent.depth = 1;
    if (to_image)
        VKT_FN(t, vkCmdCopyBufferToImage)(t->cmd, buf, img, xfer, 1, &reg);
    else
        VKT_FN(t, vkCmdCopyImageToBuffer)(t->cmd, img, xfer, buf, 1, &reg);
    layout(t, img, aspect, xfer, after);
    return vkt_submit_wait(t);
}

int vkt_submit_wait(vkt *t)
{
    VKT_FN(t, vkEndCommandBuffer)(t->cmd);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &t->cmd;
    VKT_FN(t, vkResetFences)(t->dev, 1, &t->fence);
    if (VKT_FN(t, vkQueueSubmit)(t->queue, 1, &si, t->fence) != VK_SUCCESS) return 1;
    return VKT_FN(t, vkWaitForFences)(t->dev, 1, &t->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS;
}

static void staging_free(vkt *t)
{
    if (t->stage) VKT_FN(t, vkDestroyBuffer)(t->dev, t->stage, NULL);
    if (t->stage_mem) VKT_FN(t, vkFreeMemory)(t->dev, t->stage_mem, NULL);
    t->stage = VK_NULL_HANDLE;
    t->stage_mem = VK_NULL_HANDLE;
    t->stage_map = NULL;
    t->stage_size = 0;
}

static int transfer(vkt *t, VkImage img, VkImageAspectFlags aspect, VkImageLayout before,
                    VkImageLayout after, int w, int h, uint8_t *host, int to_image)
{
    size_t size = (size_t)w * (size_t)h * 4;
    if (size > t->stage_size) {
        staging_free(t);
        if (staging(t, size, &t->stage, &t->stage_mem, &t->stage_map)) return 1;
        t->stage_size = size;
    }
    if (to_image) memcpy(t->stage_map, host, size);
    int rc = run_copy(t, img, aspect, before, after, t->stage, w, h, to_image);
    if (!to_image) memcpy(host, t->stage_map, size);
    return rc;
}

int vkt_upload(vkt *t, VkImage img, int w, int h, const uint8_t *rgba, VkImageLayout final)
{
    return transfer(t, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED, final, w, h,
                    (uint8_t *)rgba, 1);
}

int vkt_upload_depth(vkt *t, VkImage img, int w, int h, const float *depth, VkImageLayout final)
{
    return transfer(t, img, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED, final, w, h,
                    (uint8_t *)depth, 1);
}

int vkt_download_depth(vkt *t, VkImage img, VkImageLayout cur, int w, int h, float *out)
{
    return transfer(t, img, VK_IMAGE_ASPECT_DEPTH_BIT, cur, cur, w, h, (uint8_t *)out, 0);
}

int vkt_buffer(vkt *t, size_t size, VkBufferUsageFlags usage, VkBuffer *buf, VkDeviceMemory *mem)
{
    return make_buffer(t, size, usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, buf, mem);
}

void vkt_buffer_free(vkt *t, VkBuffer buf, VkDeviceMemory mem)
{
    VKT_FN(t, vkDestroyBuffer)(t->dev, buf, NULL);
    VKT_FN(t, vkFreeMemory)(t->dev, mem, NULL);
}

int vkt_download(vkt *t, VkImage img, VkImageLayout cur, int w, int h, uint8_t *out)
{
    return transfer(t, img, VK_IMAGE_ASPECT_COLOR_BIT, cur, cur, w, h, out, 0);
}

int vkt_read_buffer(vkt *t, VkBuffer buf, size_t size, uint8_t *out, int external)
{
    if (size > t->stage_size) {
        staging_free(t);
        if (staging(t, size, &t->stage, &t->stage_mem, &t->stage_map)) return 1;
        t->stage_size = size;
    }
    VKT_FN(t, vkResetCommandBuffer)(t->cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT_FN(t, vkBeginCommandBuffer)(t->cmd, &bi);
    VkBufferMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    b.srcQueueFamilyIndex = external ? VK_QUEUE_FAMILY_EXTERNAL : VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = external ? t->qfam : VK_QUEUE_FAMILY_IGNORED;
    b.buffer = buf;
    b.size = VK_WHOLE_SIZE;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                    VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 1, &b, 0, NULL);
    VkBufferCopy reg = {0, 0, size};
    VKT_FN(t, vkCmdCopyBuffer)(t->cmd, buf, t->stage, 1, &reg);
    /* Back to the external owner, as it was handed over. */
    b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    b.dstAccessMask = 0;
    b.srcQueueFamilyIndex = external ? t->qfam : VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = external ? VK_QUEUE_FAMILY_EXTERNAL : VK_QUEUE_FAMILY_IGNORED;
    VKT_FN(t, vkCmdPipelineBarrier)(t->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 1, &b, 0, NULL);
    if (vkt_submit_wait(t)) return 1;
    memcpy(out, t->stage_map, size);
    return 0;
}
