/*
 * cg_vk_device_own.c - the library's own Vulkan device on a GPU named by
 * its UUID, for a producer whose caller has no Vulkan (the GL ring),
 * made in the process's own instance (cg_vk_instance.h) (cg_vk_device.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_vk_device.h"
#include "cg_vk_instance.h"

static int has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0) return 1;
    return 0;
}

/* The physical device d->match picks among the instance's. */
static cg_status pick(const cg_vk_own_desc *d, cg_vk_own_device *o, cg_err *err)
{
    const cg_vk_device *vk = &o->vk;
    uint32_t n = 0;
    CG_TRY(CG_VK_CHECK(err, vk->vkEnumeratePhysicalDevices(vk->instance, &n, NULL)));
    if (n > 16) n = 16;
    VkPhysicalDevice pd[16];
    uint8_t uuids[16][CG_DEVICE_UUID_SIZE];
    char names[16][VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    const char *name_ptr[16];
    if (n) {
        VkResult res = vk->vkEnumeratePhysicalDevices(vk->instance, &n, pd);
        if (res != VK_SUCCESS && res != VK_INCOMPLETE) CG_TRY(CG_VK_CHECK(err, res));
    }
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceIDProperties idp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        p2.pNext = &idp;
        vk->vkGetPhysicalDeviceProperties2(pd[i], &p2);
        memcpy(uuids[i], idp.deviceUUID, CG_DEVICE_UUID_SIZE);
        snprintf(names[i], sizeof names[i], "%s", p2.properties.deviceName);
        name_ptr[i] = names[i];
    }
    uint32_t k = 0;
    CG_TRY(d->match(d->uuid, (const uint8_t(*)[CG_DEVICE_UUID_SIZE])uuids, name_ptr, n, &k, err));
    o->vk.physical_device = pd[k];
    memcpy(o->uuid, uuids[k], CG_DEVICE_UUID_SIZE);
    memcpy(o->name, names[k], sizeof o->name); /* both NUL-terminated, 256 */
    return CG_OK;
}

/* Which of the extensions the device has, and timeline semaphores. */
static cg_status features(cg_vk_own_device *o, cg_err *err)
{
    const cg_vk_device *vk = &o->vk;
    VkPhysicalDevice phys = vk->physical_device;
    uint32_t ne = 0;
    CG_TRY(CG_VK_CHECK(err, vk->vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, NULL)));
    VkExtensionProperties *ext = calloc(ne + 1, sizeof *ext);
    if (!ext) return cg_fail(err, CG_E_NO_MEMORY, "device extension list");
    VkResult res = vk->vkEnumerateDeviceExtensionProperties(phys, NULL, &ne, ext);
    int mem_fd = res == VK_SUCCESS && has_ext(ext, ne, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    o->semaphore_fd = res == VK_SUCCESS && has_ext(ext, ne, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    free(ext);
    if (!mem_fd)
        return cg_fail(err, CG_E_UNSUPPORTED, "Vulkan device %s lacks %s", o->name,
                       VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &tf;
    vk->vkGetPhysicalDeviceFeatures2(phys, &f2);
    o->timeline = o->semaphore_fd && tf.timelineSemaphore;
    return CG_OK;
}

static cg_status create(cg_vk_own_device *o, cg_err *err)
{
    const cg_vk_device *vk = &o->vk;
    VkPhysicalDevice phys = vk->physical_device;
    /* Any queue serves: the ring's submits carry no commands. */
    uint32_t nq = 0;
    vk->vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
    VkQueueFamilyProperties qp[16];
    if (nq > 16) nq = 16;
    vk->vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qp);
    o->queue_family = UINT32_MAX;
    for (uint32_t i = 0; i < nq && o->queue_family == UINT32_MAX; i++)
        if (qp[i].queueCount > 0) o->queue_family = i;
    if (o->queue_family == UINT32_MAX)
        return cg_fail(err, CG_E_UNSUPPORTED, "Vulkan device %s has no queue", o->name);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = o->queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    const char *names[2] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                            VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
    VkPhysicalDeviceTimelineSemaphoreFeatures on = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    on.timelineSemaphore = o->timeline ? VK_TRUE : VK_FALSE;
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = o->timeline ? &on : NULL;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = o->semaphore_fd ? 2 : 1;
    dci.ppEnabledExtensionNames = names;
    VkDevice dev = VK_NULL_HANDLE;
    CG_TRY(CG_VK_CHECK(err, vk->vkCreateDevice(phys, &dci, NULL, &dev)));
    /* On failure the device stays in o->vk for cg_vk_own_device_close. */
    CG_TRY(cg_vk_device_load_device(&o->vk, phys, dev, err));
    if (!o->semaphore_fd) o->vk.vkGetSemaphoreFdKHR = NULL; /* not enabled */
    o->vk.vkGetDeviceQueue(dev, o->queue_family, 0, &o->queue);
    return CG_OK;
}

cg_status cg_vk_own_device_open(const cg_vk_own_desc *d, cg_vk_own_device *out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    memset(out, 0, sizeof *out);
    CG_RETURN_IF(!d || !d->uuid || !d->match, CG_E_INVALID_ARG);
    cg_vk_instance inst;
    CG_TRY(cg_vk_instance_get(d->library, &inst, err));
    cg_vk_device_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.get_instance_proc_addr = inst.get_instance_proc_addr;
    dd.instance = inst.instance;
    CG_TRY(cg_vk_device_load(&out->vk, &dd, err));
    CG_TRY(pick(d, out, err));
    CG_TRY(features(out, err));
    return create(out, err);
}

void cg_vk_own_device_close(cg_vk_own_device *o)
{
    if (!o || !o->vk.device) return;
    /* Entries may be missing when loading failed half-way. */
    if (o->vk.vkDeviceWaitIdle) (void)o->vk.vkDeviceWaitIdle(o->vk.device);
    if (o->vk.vkDestroyDevice) o->vk.vkDestroyDevice(o->vk.device, NULL);
    o->vk.device = VK_NULL_HANDLE;
    /* Not the instance: it is the process's (cg_vk_instance.h says why). */
}
