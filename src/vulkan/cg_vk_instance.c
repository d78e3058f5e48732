/*
 * cg_vk_instance.c - the process's own Vulkan instance (cg_vk_instance.h).
 */
#include "cg_vk_instance.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cg_vk_device.h" /* cg_vk_check_result */

typedef struct kept {
    char library[256];
    void *lib; /* never dlclose'd: the driver's state must stay */
    cg_vk_instance vk;
} kept;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static kept g_kept[CG_VK_INSTANCE_MAX];
static int g_count;

static cg_status make_instance(kept *k, cg_err *err)
{
    PFN_vkGetInstanceProcAddr gipa = k->vk.get_instance_proc_addr;
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
    uint32_t version = VK_API_VERSION_1_0;
    if (eiv) (void)eiv(&version);
    if (version < VK_API_VERSION_1_1)
        return cg_fail(err, CG_E_UNSUPPORTED, "the Vulkan loader is 1.0; 1.1 is needed");
    PFN_vkCreateInstance ci = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
    if (!ci) return cg_fail(err, CG_E_UNSUPPORTED, "the Vulkan loader has no vkCreateInstance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "craftground gl ring";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    return cg_vk_check_result(err, ci(&ici, NULL, &k->vk.instance), "vkCreateInstance", __FILE__,
                              __LINE__);
}

static cg_status find_or_open(const char *name, kept **out, cg_err *err)
{
    for (int i = 0; i < g_count; i++)
        if (strcmp(g_kept[i].library, name) == 0) {
            *out = &g_kept[i];
            return CG_OK;
        }
    if (strlen(name) >= sizeof g_kept[0].library)
        return cg_fail(err, CG_E_INVALID_ARG, "Vulkan loader name of %zu bytes", strlen(name));
    if (g_count == CG_VK_INSTANCE_MAX)
        return cg_fail(err, CG_E_NO_MEMORY, "%d Vulkan loaders are kept already; not %s",
                       CG_VK_INSTANCE_MAX, name);
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return cg_fail(err, CG_E_UNSUPPORTED, "no Vulkan loader: %s", dlerror());
    void *sym = dlsym(lib, "vkGetInstanceProcAddr");
    if (!sym) {
        dlclose(lib); /* no instance was made through it */
        return cg_fail(err, CG_E_UNSUPPORTED, "%s has no vkGetInstanceProcAddr", name);
    }
    kept *k = &g_kept[g_count++];
    snprintf(k->library, sizeof k->library, "%s", name);
    k->lib = lib;
    memcpy(&k->vk.get_instance_proc_addr, &sym, sizeof sym); /* object -> function, C11-clean */
    *out = k;
    return CG_OK;
}

cg_status cg_vk_instance_get(const char *library, cg_vk_instance *out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    memset(out, 0, sizeof *out);
    const char *name = library ? library : "libvulkan.so.1";
    pthread_mutex_lock(&g_lock);
    kept *k = NULL;
    cg_status st = find_or_open(name, &k, err);
    if (st == CG_OK && !k->vk.instance) st = make_instance(k, err);
    if (st == CG_OK) *out = k->vk;
    pthread_mutex_unlock(&g_lock);
    return st;
}
