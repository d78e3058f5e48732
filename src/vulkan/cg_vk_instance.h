/*
 * cg_vk_instance.h - the process's own Vulkan instance, for a producer
 * whose caller has none (the GL ring: a GL game makes no Vulkan instance).
 *
 * Why it outlives every ring: on NVIDIA (driver 580, the H200's EGL device)
 * destroying the last VkInstance of a process destroys the game's EGL
 * context with it: no context is current afterwards, and eglMakeCurrent of
 * the game's own context fails with EGL_BAD_CONTEXT. With another instance
 * alive it does not happen. A window resize is a ring's destroy + create,
 * so the instance (and the loader under it) is made on first use and kept
 * until the process ends; each ring still makes and destroys its own
 * VkDevice. This is the one process-wide object below jni/, by design.
 *
 * Thread-safe. The loader is dlopen'ed once per library name and never
 * closed; at most CG_VK_INSTANCE_MAX names are kept (tests use two).
 */
#ifndef CG_VK_INSTANCE_H
#define CG_VK_INSTANCE_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "cg_err.h"
#include "cg_status.h"

#define CG_VK_INSTANCE_MAX 4

typedef struct cg_vk_instance {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance; /* Vulkan 1.2 API, no layers, no extensions */
} cg_vk_instance;

/* The instance of the loader `library` (NULL: "libvulkan.so.1"), made on
 * the first call that succeeds and the same one on every later call.
 * CG_E_UNSUPPORTED: no such loader, no vkGetInstanceProcAddr, a 1.0 loader;
 * CG_E_VULKAN: vkCreateInstance failed (a later call tries again);
 * CG_E_NO_MEMORY: CG_VK_INSTANCE_MAX loaders are already kept. The caller
 * must not destroy the instance. */
cg_status cg_vk_instance_get(const char *library, cg_vk_instance *out, cg_err *err);

#endif
