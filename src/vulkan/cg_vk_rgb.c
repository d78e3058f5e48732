/*
 * cg_vk_rgb.c - the ring's RGB slot format (cg_vk_rgb.h): the compute
 * pipeline made once, the per-frame barriers + dispatch, and the probe of
 * an SRGB view's decode.
 */
#include "cg_vk_rgb.h"

#include <stdlib.h>
#include <string.h>

#include "cg_cursor.h"
#include "cg_shader_layout.h"
#include "cg_size.h"
#include "cg_vk_internal.h"
/* Generated at build time from cg_vk_rgb.comp (glslangValidator -V --vn). */
#include "cg_vk_rgb_buffer.spv.h" /* cg_rgb_buffer_spv: CG_SRC_BUFFER defined */
#include "cg_vk_rgb_image.spv.h"  /* cg_rgb_image_spv */
#include "cg_vk_rgb_image_srgb.spv.h" /* cg_rgb_image_srgb_spv: CG_SRC_SRGB defined */
#include "cg_vk_copy.spv.h"       /* cg_copy_spv: cg_vk_copy.comp */
#include "cg_vk_copy_srgb.spv.h"  /* cg_copy_srgb_spv: CG_SRC_SRGB defined */
#include "cg_vk_depth.spv.h"      /* cg_depth_spv: cg_vk_depth.comp */

/* The shader's push constants (cg_vk_rgb.comp, Params). */
typedef cg_rgb_shader_params rgb_params;

typedef struct rgb_source {
    VkImage image;
    VkImageView view;
    VkDescriptorSet set;
} rgb_source;

/* The images one pipeline reads, each through a view of `format`. */
typedef struct source_table {
    rgb_source src[CG_VK_RGB_MAX_SOURCES];
    uint32_t count;
    VkFormat format;
    VkImageAspectFlags aspect;
    const char *what; /* "RGB", "depth" */
} source_table;

/* A slot's planes: colour of eye e at e, depth of eye e at DEPTH_PLANE + e. */
#define DEPTH_PLANE CG_VK_RGB_MAX_EYES
#define MAX_PLANES (2 * CG_VK_RGB_MAX_EYES)

struct cg_vk_rgb {
    cg_vk_rgb_desc d;
    const cg_vk_device *vk; /* d.vk */
    VkDevice dev;
    int srgb;        /* an SRGB format */
    int from_buffer; /* SRGB with desc.srgb_staging: copy to the staging buffer first */
    uint32_t bgra;   /* the shader's bgra parameter */
    uint32_t eyes;
    VkDescriptorSetLayout src_layout, slot_layout, depth_src_layout;
    VkPipelineLayout pipeline_layout, depth_pipeline_layout;
    VkPipeline pipeline, depth_pipeline;
    VkDescriptorPool pool;
    VkSampler sampler;
    VkBuffer cursor_buffer, staging;
    VkDeviceMemory cursor_memory, staging_memory;
    VkBuffer slot_buffer[CG_ZC_MAX_SLOTS];
    VkDescriptorSet slot_set[CG_ZC_MAX_SLOTS][MAX_PLANES];
    source_table src, depth_src;
    uint32_t groups_x, groups_y, depth_groups_x, depth_groups_y;
    cg_err err;
};

static int is_bgra(VkFormat f)
{
    return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_B8G8R8A8_SRGB;
}

/* Memory of `req` with `props` for the `what` (a buffer or the probe's
 * image), allocated and named. */
static cg_status allocate(cg_vk_rgb *g, const VkMemoryRequirements *req,
                          VkMemoryPropertyFlags props, VkDeviceMemory *mem, const char *what)
{
    uint32_t type = cg_vk_memory_type(g->vk, req->memoryTypeBits, props);
    if (type == UINT32_MAX)
        return cg_fail(&g->err, CG_E_UNSUPPORTED, "no memory type with properties 0x%x for the %s",
                       (unsigned)props, what);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req->size;
    ai.memoryTypeIndex = type;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkAllocateMemory(g->dev, &ai, NULL, mem)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_DEVICE_MEMORY, *mem, "cg ring rgb %s", what);
    return CG_OK;
}

static cg_status make_buffer(cg_vk_rgb *g, VkDeviceSize size, VkBufferUsageFlags usage,
                             VkMemoryPropertyFlags props, VkBuffer *buf, VkDeviceMemory *mem,
                             const char *what)
{
    VkDevice dev = g->dev;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateBuffer(dev, &bci, NULL, buf)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_BUFFER, *buf, "cg ring rgb %s", what);
    VkMemoryRequirements req;
    g->vk->vkGetBufferMemoryRequirements(dev, *buf, &req);
    CG_TRY(allocate(g, &req, props, mem, what));
    return CG_VK_CHECK(&g->err, g->vk->vkBindBufferMemory(dev, *buf, *mem, 0));
}

/* The bitmap of cg_cursor_rows, 2 bits a pixel (cg_cursor_bits), written
 * once into the cursor uniform buffer. */
static cg_status upload_cursor(cg_vk_rgb *g)
{
    uint32_t rows[CG_CURSOR_SIZE];
    cg_cursor_bits(rows);
    CG_TRY(make_buffer(g, sizeof rows, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                       &g->cursor_buffer, &g->cursor_memory, "cursor bitmap"));
    void *map = NULL;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkMapMemory(g->dev, g->cursor_memory, 0, VK_WHOLE_SIZE, 0, &map)));
    memcpy(map, rows, sizeof rows);
    g->vk->vkUnmapMemory(g->dev, g->cursor_memory);
    return CG_OK;
}

/* Set 0 of a pipeline: its source, an image through the immutable nearest
 * sampler or (SRGB, srgb_staging) the staging buffer. */
static cg_status make_source_layout(cg_vk_rgb *g, int buffer, VkDescriptorSetLayout *out,
                                    const char *what)
{
    VkDescriptorSetLayoutBinding sb = {0};
    sb.binding = 0;
    sb.descriptorCount = 1;
    sb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    if (buffer) {
        sb.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    } else {
        sb.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        sb.pImmutableSamplers = &g->sampler;
    }
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = 1;
    li.pBindings = &sb;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateDescriptorSetLayout(g->dev, &li, NULL, out)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, *out, "cg ring %s source set layout", what);
    return CG_OK;
}

/* Sets (source, slot plane) and the push constants (both shaders' blocks
 * are 9 words). */
static cg_status make_pipeline_layout(cg_vk_rgb *g, VkDescriptorSetLayout src,
                                      VkPipelineLayout *out, const char *what)
{
    VkDescriptorSetLayout sets[2] = {src, g->slot_layout};
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(rgb_params)};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 2;
    pli.pSetLayouts = sets;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pc;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreatePipelineLayout(g->dev, &pli, NULL, out)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_PIPELINE_LAYOUT, *out, "cg ring %s pipeline layout", what);
    return CG_OK;
}

static cg_status make_layouts(cg_vk_rgb *g)
{
    VkDevice dev = g->dev;
    CG_TRY(make_source_layout(g, g->from_buffer, &g->src_layout, "rgb"));
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};

    VkDescriptorSetLayoutBinding db[2] = {{0}, {0}};
    db[0].binding = 0;
    db[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    db[0].descriptorCount = 1;
    db[0].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    db[1] = db[0];
    db[1].binding = 1;
    db[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    li.bindingCount = 2;
    li.pBindings = db;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateDescriptorSetLayout(dev, &li, NULL, &g->slot_layout)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, g->slot_layout, "cg ring rgb slot set layout");

    CG_TRY(make_pipeline_layout(g, g->src_layout, &g->pipeline_layout, "rgb"));
    if (g->d.depth) {
        CG_TRY(make_source_layout(g, 0, &g->depth_src_layout, "depth"));
        CG_TRY(make_pipeline_layout(g, g->depth_src_layout, &g->depth_pipeline_layout, "depth"));
    }
    return CG_OK;
}

static cg_status make_pipeline(cg_vk_rgb *g, const uint32_t *code, size_t size,
                               VkPipelineLayout layout, VkPipeline *out, const char *what)
{
    VkDevice dev = g->dev;
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = size;
    mi.pCode = code;
    VkShaderModule mod;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateShaderModule(dev, &mi, NULL, &mod)));
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = mod;
    ci.stage.pName = "main";
    ci.layout = layout;
    cg_status st = CG_VK_CHECK(&g->err, g->vk->vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL,
                                                            out));
    g->vk->vkDestroyShaderModule(dev, mod, NULL); /* the pipeline keeps what it needs */
    CG_TRY(st);
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_PIPELINE, *out, "cg ring %s", what);
    return CG_OK;
}

static cg_status make_pipelines(cg_vk_rgb *g)
{
    if (g->d.copy && g->srgb)
        CG_TRY(make_pipeline(g, cg_copy_srgb_spv, sizeof cg_copy_srgb_spv, g->pipeline_layout,
                             &g->pipeline, "compute copy pipeline (SRGB)"));
    else if (g->d.copy)
        CG_TRY(make_pipeline(g, cg_copy_spv, sizeof cg_copy_spv, g->pipeline_layout, &g->pipeline,
                             "compute copy pipeline"));
    else if (g->from_buffer)
        CG_TRY(make_pipeline(g, cg_rgb_buffer_spv, sizeof cg_rgb_buffer_spv, g->pipeline_layout,
                             &g->pipeline, "rgb pipeline (from buffer)"));
    else if (g->srgb)
        CG_TRY(make_pipeline(g, cg_rgb_image_srgb_spv, sizeof cg_rgb_image_srgb_spv,
                             g->pipeline_layout, &g->pipeline, "rgb pipeline (from SRGB image)"));
    else
        CG_TRY(make_pipeline(g, cg_rgb_image_spv, sizeof cg_rgb_image_spv, g->pipeline_layout,
                             &g->pipeline, "rgb pipeline (from image)"));
    if (g->d.depth)
        CG_TRY(make_pipeline(g, cg_depth_spv, sizeof cg_depth_spv, g->depth_pipeline_layout,
                             &g->depth_pipeline, "depth pipeline"));
    return CG_OK;
}

/* Where plane k of a slot starts (DEPTH_PLANE + e: eye e's depth). */
static VkDeviceSize plane_offset(const cg_vk_rgb *g, uint32_t k)
{
    if (k >= DEPTH_PLANE) return g->d.depth_offset + (k - DEPTH_PLANE) * g->d.depth_eye_stride;
    return k * g->d.color_eye_stride;
}

/* A set of the slot layout: what the shader writes (buf from offset) and
 * the cursor bitmap. */
static void write_slot_set(cg_vk_rgb *g, VkDescriptorSet set, VkBuffer buf, VkDeviceSize offset)
{
    VkDescriptorBufferInfo slot = {buf, offset, VK_WHOLE_SIZE};
    VkDescriptorBufferInfo cursor = {g->cursor_buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w[2] = {{.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET},
                                 {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    w[0].dstSet = w[1].dstSet = set;
    w[0].descriptorCount = w[1].descriptorCount = 1;
    w[0].dstBinding = 0;
    w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w[0].pBufferInfo = &slot;
    w[1].dstBinding = 1;
    w[1].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    w[1].pBufferInfo = &cursor;
    g->vk->vkUpdateDescriptorSets(g->dev, 2, w, 0, NULL);
}

static cg_status make_sets(cg_vk_rgb *g)
{
    VkDevice dev = g->dev;
    uint32_t nsrc = g->from_buffer ? 1 : CG_VK_RGB_MAX_SOURCES;
    uint32_t ndepth = g->d.depth ? CG_VK_RGB_MAX_SOURCES : 0;
    /* Planes in use: the colour of each eye, then (depth) each eye's depth. */
    uint32_t planes[MAX_PLANES], np = 0;
    for (uint32_t e = 0; e < g->eyes; e++) planes[np++] = e;
    for (uint32_t e = 0; g->d.depth && e < g->eyes; e++) planes[np++] = DEPTH_PLANE + e;
    uint32_t nslot = g->d.slots * np;
    VkDescriptorPoolSize sizes[3] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nslot + 1},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nslot},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, CG_VK_RGB_MAX_SOURCES + ndepth},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = nslot + nsrc + ndepth;
    pi.poolSizeCount = g->from_buffer && !ndepth ? 2 : 3;
    pi.pPoolSizes = sizes;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateDescriptorPool(dev, &pi, NULL, &g->pool)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_DESCRIPTOR_POOL, g->pool, "cg ring rgb descriptor pool");

    enum { MAX_SETS = CG_ZC_MAX_SLOTS * MAX_PLANES + 2 * CG_VK_RGB_MAX_SOURCES };
    VkDescriptorSetLayout layouts[MAX_SETS];
    VkDescriptorSet sets[MAX_SETS];
    for (uint32_t i = 0; i < nslot; i++) layouts[i] = g->slot_layout;
    for (uint32_t i = 0; i < nsrc; i++) layouts[nslot + i] = g->src_layout;
    for (uint32_t i = 0; i < ndepth; i++) layouts[nslot + nsrc + i] = g->depth_src_layout;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = g->pool;
    ai.descriptorSetCount = nslot + nsrc + ndepth;
    ai.pSetLayouts = layouts;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkAllocateDescriptorSets(dev, &ai, sets)));
    for (uint32_t i = 0; i < nsrc; i++) g->src.src[i].set = sets[nslot + i];
    for (uint32_t i = 0; i < ndepth; i++) g->depth_src.src[i].set = sets[nslot + nsrc + i];

    for (uint32_t j = 0; j < nslot; j++) {
        uint32_t i = j / np, k = planes[j % np];
        g->slot_set[i][k] = sets[j];
        /* The plane's shader writes from its start: the set binds it there. */
        write_slot_set(g, sets[j], g->slot_buffer[i], plane_offset(g, k));
    }
    if (g->from_buffer) {
        VkDescriptorBufferInfo st = {g->staging, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = g->src.src[0].set;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w.pBufferInfo = &st;
        g->vk->vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    }
    return CG_OK;
}

/* The planes' offsets must suit a storage buffer descriptor's. */
static cg_status check_planes(cg_vk_rgb *g)
{
    VkPhysicalDeviceProperties2 pp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    g->vk->vkGetPhysicalDeviceProperties2(g->vk->physical_device, &pp);
    VkDeviceSize align = pp.properties.limits.minStorageBufferOffsetAlignment;
    for (uint32_t k = 0; k < MAX_PLANES; k++) {
        if ((k % DEPTH_PLANE) >= g->eyes || (k >= DEPTH_PLANE && !g->d.depth)) continue;
        if (align && plane_offset(g, k) % align)
            return cg_fail(&g->err, CG_E_UNSUPPORTED,
                           "plane offset %llu is not a multiple of this device's "
                           "minStorageBufferOffsetAlignment (%llu)",
                           (unsigned long long)plane_offset(g, k), (unsigned long long)align);
    }
    return CG_OK;
}

static cg_status setup(cg_vk_rgb *g)
{
    g->srgb = cg_vk_rgb_is_srgb(g->d.format);
    g->from_buffer = g->srgb && g->d.srgb_staging;
    /* UNORM: texelFetch returns the stored byte / 255; SRGB: its decode,
     * which the _srgb shaders encode back (cg_vk_rgb_probe checks it). */
    g->src.format = g->d.format;
    g->src.aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    g->src.what = "RGB";
    g->depth_src.format = VK_FORMAT_D32_SFLOAT;
    g->depth_src.aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
    g->depth_src.what = "depth";
    CG_TRY(check_planes(g));
    /* The RGB shader's source buffer holds stored bytes (BGRA: swapped
     * there; a view gives R, G, B in their places and the RGB shader then
     * reads no bgra); the copy writes a BGRA texel's components back in
     * stored order. */
    g->bgra = is_bgra(g->d.format);
    if (!g->from_buffer || g->d.depth) {
        VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        si.magFilter = si.minFilter = VK_FILTER_NEAREST;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateSampler(g->dev, &si, NULL, &g->sampler)));
        CG_VK_NAME(g->vk, VK_OBJECT_TYPE_SAMPLER, g->sampler, "cg ring rgb sampler");
    }
    if (g->from_buffer) {
        size_t bytes;
        CG_TRY(cg_image_size(g->d.src_w, g->d.src_h, 4, &bytes));
        CG_TRY(make_buffer(g, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &g->staging, &g->staging_memory,
                           "staging (SRGB source)"));
    }
    CG_TRY(upload_cursor(g));
    CG_TRY(make_layouts(g));
    CG_TRY(make_pipelines(g));
    CG_TRY(make_sets(g));
    cg_shader_groups_64x4(g->d.dst_w, g->d.dst_h, &g->depth_groups_x, &g->depth_groups_y);
    if (g->d.copy)
        cg_shader_groups_64x4(g->d.src_w, g->d.src_h, &g->groups_x, &g->groups_y);
    else
        cg_vk_rgb_groups(g->d.dst_w, g->d.dst_h, &g->groups_x, &g->groups_y);
    return CG_OK;
}

int cg_vk_rgb_built(void)
{
    return 1;
}

cg_status cg_vk_rgb_create(const cg_vk_rgb_desc *d, cg_vk_rgb **out, cg_err *err)
{
    CG_RETURN_IF(!out, CG_E_INVALID_ARG);
    *out = NULL;
    if (!d || !d->vk || !d->vk->device || !d->slot_buffers || d->slots < 1 || d->slots > CG_ZC_MAX_SLOTS)
        return cg_fail(err, CG_E_INVALID_ARG, "RGB slot format: incomplete description");
    if (d->eyes > CG_VK_RGB_MAX_EYES || (d->copy && (d->eyes > 1 || d->depth)))
        return cg_fail(err, CG_E_INVALID_ARG, "%u eyes%s: 1..%d, and a compute copy has one eye and no depth",
                       d->eyes, d->depth ? " with depth" : "", CG_VK_RGB_MAX_EYES);
    if (d->copy && d->srgb_staging)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "the staging copy is the RGB format's: a compute copy reads the image");
    CG_TRY(cg_check_dims(d->src_w, d->src_h));
    cg_status st = cg_check_dims(d->dst_w, d->dst_h);
    if (st != CG_OK)
        return cg_fail(err, st, "target size %dx%d (1..%d per side)", d->dst_w, d->dst_h, CG_MAX_DIM);
    cg_vk_rgb *g = calloc(1, sizeof *g);
    CG_RETURN_IF(!g, CG_E_NO_MEMORY);
    g->d = *d;
    g->vk = d->vk;
    g->dev = d->vk->device;
    g->eyes = d->eyes ? d->eyes : 1;
    memcpy(g->slot_buffer, d->slot_buffers, sizeof(VkBuffer) * d->slots);
    g->d.slot_buffers = NULL; /* the caller's array is not kept */
    st = setup(g);
    if (st != CG_OK) {
        cg_fail_from(err, st, &g->err);
        cg_vk_rgb_destroy(g);
        return st;
    }
    *out = g;
    return CG_OK;
}

void cg_vk_rgb_destroy(cg_vk_rgb *g)
{
    if (!g) return;
    VkDevice dev = g->dev;
    for (uint32_t i = 0; i < g->src.count; i++)
        if (g->src.src[i].view) g->vk->vkDestroyImageView(dev, g->src.src[i].view, NULL);
    for (uint32_t i = 0; i < g->depth_src.count; i++)
        if (g->depth_src.src[i].view) g->vk->vkDestroyImageView(dev, g->depth_src.src[i].view, NULL);
    if (g->pool) g->vk->vkDestroyDescriptorPool(dev, g->pool, NULL);
    if (g->pipeline) g->vk->vkDestroyPipeline(dev, g->pipeline, NULL);
    if (g->depth_pipeline) g->vk->vkDestroyPipeline(dev, g->depth_pipeline, NULL);
    if (g->pipeline_layout) g->vk->vkDestroyPipelineLayout(dev, g->pipeline_layout, NULL);
    if (g->depth_pipeline_layout) g->vk->vkDestroyPipelineLayout(dev, g->depth_pipeline_layout, NULL);
    if (g->slot_layout) g->vk->vkDestroyDescriptorSetLayout(dev, g->slot_layout, NULL);
    if (g->src_layout) g->vk->vkDestroyDescriptorSetLayout(dev, g->src_layout, NULL);
    if (g->depth_src_layout) g->vk->vkDestroyDescriptorSetLayout(dev, g->depth_src_layout, NULL);
    if (g->sampler) g->vk->vkDestroySampler(dev, g->sampler, NULL);
    if (g->cursor_buffer) g->vk->vkDestroyBuffer(dev, g->cursor_buffer, NULL);
    if (g->cursor_memory) g->vk->vkFreeMemory(dev, g->cursor_memory, NULL);
    if (g->staging) g->vk->vkDestroyBuffer(dev, g->staging, NULL);
    if (g->staging_memory) g->vk->vkFreeMemory(dev, g->staging_memory, NULL);
    free(g);
}

static rgb_source *find_source(source_table *t, VkImage src)
{
    for (uint32_t i = 0; i < t->count; i++)
        if (t->src[i].image == src) return &t->src[i];
    return NULL;
}

/* A view of `image`'s aspect in the table's format (the table's `what`
 * names it), written into `set` (of the table's source layout). */
static cg_status make_source_view(cg_vk_rgb *g, const source_table *t, VkImage image,
                                  VkDescriptorSet set, VkImageView *view)
{
    VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = t->format;
    vi.subresourceRange.aspectMask = t->aspect;
    vi.subresourceRange.levelCount = 1;
    vi.subresourceRange.layerCount = 1;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateImageView(g->dev, &vi, NULL, view)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_IMAGE_VIEW, *view, "cg ring %s source view", t->what);
    VkDescriptorImageInfo ii = {VK_NULL_HANDLE, *view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    w.pImageInfo = &ii;
    g->vk->vkUpdateDescriptorSets(g->dev, 1, &w, 0, NULL);
    return CG_OK;
}

/* The table's view and set of `src`, made the first time it is seen. */
static cg_status prepare_source(cg_vk_rgb *g, source_table *t, VkImage src, cg_err *err)
{
    if (find_source(t, src)) return CG_OK;
    if (t->count == CG_VK_RGB_MAX_SOURCES)
        return cg_fail(err, CG_E_INVALID_ARG,
                       "the RGB slot format reads at most %d distinct %s images per ring (it "
                       "keeps a view of each); re-create the ring for new images",
                       CG_VK_RGB_MAX_SOURCES, t->what);
    rgb_source *s = &t->src[t->count];
    cg_status st = make_source_view(g, t, src, s->set, &s->view);
    if (st != CG_OK) return cg_fail_from(err, st, &g->err);
    s->image = src;
    t->count++;
    return CG_OK;
}

cg_status cg_vk_rgb_prepare(cg_vk_rgb *g, VkImage src, cg_err *err)
{
    CG_RETURN_IF(!g || !src, CG_E_INVALID_ARG);
    if (g->from_buffer) return CG_OK; /* read through the staging buffer */
    return prepare_source(g, &g->src, src, err);
}

cg_status cg_vk_rgb_prepare_depth(cg_vk_rgb *g, VkImage depth, cg_err *err)
{
    CG_RETURN_IF(!g || !depth, CG_E_INVALID_ARG);
    if (!g->d.depth) return cg_fail(err, CG_E_BAD_STATE, "this ring has no depth plane");
    return prepare_source(g, &g->depth_src, depth, err);
}

/* A part's first barrier, as the plain copy's: the first scope is every
 * earlier command on the queue (the game's rendering, and the frame's
 * earlier parts) and its writes; `ib` (NULL: the image stays in its
 * layout) moves the image to where it is read. The slot's old contents are
 * dropped; after a release to the learner it is acquired back. */
static void first_barrier(cg_vk_rgb *g, VkCommandBuffer cmd, VkBuffer buf,
                          const VkImageMemoryBarrier *ib, VkPipelineStageFlags read_stage,
                          VkAccessFlags read_access, int acquire)
{
    VkBufferMemoryBarrier bb =
        acquire ? cg_vk_buffer_barrier(buf, 0, VK_ACCESS_SHADER_WRITE_BIT, VK_QUEUE_FAMILY_EXTERNAL,
                                       g->d.queue_family)
                : cg_vk_buffer_barrier(buf, VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_MEMORY_READ_BIT,
                                       VK_ACCESS_SHADER_WRITE_BIT, VK_QUEUE_FAMILY_IGNORED,
                                       VK_QUEUE_FAMILY_IGNORED);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    mb.dstAccessMask = read_access | VK_ACCESS_SHADER_READ_BIT;
    g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                read_stage | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 1,
                                &bb, ib ? 1 : 0, ib);
}

/* After the dispatch: the slot released to the learner (the frame's last
 * part), the image back to the game's layout (`back`, NULL: it stayed);
 * the game's later commands (any stage) wait for both. A part that is
 * neither needs nothing here: the next part's first barrier orders it. */
static void last_barrier(cg_vk_rgb *g, VkCommandBuffer cmd, VkBuffer buf,
                         const VkImageMemoryBarrier *back, int release)
{
    if (!release && !back) return;
    VkBufferMemoryBarrier rel = cg_vk_buffer_barrier(buf, VK_ACCESS_SHADER_WRITE_BIT, 0,
                                                     g->d.queue_family, VK_QUEUE_FAMILY_EXTERNAL);
    g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, release ? 1 : 0,
                                &rel, back ? 1 : 0, back);
}

static void dispatch(cg_vk_rgb *g, VkCommandBuffer cmd, VkPipeline pipeline,
                     VkPipelineLayout layout, VkDescriptorSet src_set, VkDescriptorSet slot_set,
                     const void *pc, uint32_t pc_size, uint32_t gx, uint32_t gy)
{
    VkDescriptorSet sets[2] = {src_set, slot_set};
    g->vk->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    g->vk->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, sets, 0, NULL);
    g->vk->vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pc_size, pc);
    g->vk->vkCmdDispatch(cmd, gx, gy, 1);
}

void cg_vk_rgb_record(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, VkImage src,
                      VkImageLayout src_layout, const cg_cursor *cursor, int acquire)
{
    cg_vk_rgb_record_eye(g, cmd, slot, 0, src, src_layout, cursor,
                         CG_VK_PART_RELEASE | (acquire ? CG_VK_PART_ACQUIRE : 0u));
}

void cg_vk_rgb_record_eye(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                          VkImage src, VkImageLayout src_layout, const cg_cursor *cursor,
                          unsigned part)
{
    const rgb_source *source = g->from_buffer ? &g->src.src[0] : find_source(&g->src, src);
    VkBuffer buf = g->slot_buffer[slot];
    /* Where the shader or the staging copy reads the image. */
    VkImageLayout read_layout = g->from_buffer ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                                               : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    VkAccessFlags read_access = g->from_buffer ? VK_ACCESS_TRANSFER_READ_BIT : VK_ACCESS_SHADER_READ_BIT;
    VkPipelineStageFlags read_stage =
        g->from_buffer ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    int move = src_layout != read_layout;

    VkImageMemoryBarrier ib = cg_vk_image_barrier(src, src_layout, read_layout,
                                                  VK_ACCESS_MEMORY_WRITE_BIT, read_access);
    /* staging: its earlier read (WAR) before this copy writes it */
    first_barrier(g, cmd, buf, move ? &ib : NULL, read_stage,
                  read_access | (g->from_buffer ? VK_ACCESS_TRANSFER_WRITE_BIT : 0),
                  (part & CG_VK_PART_ACQUIRE) != 0);
    VkImageMemoryBarrier back = cg_vk_image_barrier(src, read_layout, src_layout, read_access,
                                                    VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    if (g->from_buffer) {
        /* SRGB: its stored bytes, as they are, into the staging buffer. */
        VkBufferImageCopy reg;
        memset(&reg, 0, sizeof reg);
        reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        reg.imageSubresource.layerCount = 1;
        reg.imageExtent.width = (uint32_t)g->d.src_w;
        reg.imageExtent.height = (uint32_t)g->d.src_h;
        reg.imageExtent.depth = 1;
        g->vk->vkCmdCopyImageToBuffer(cmd, src, read_layout, g->staging, 1, &reg);
        VkBufferMemoryBarrier sb = cg_vk_buffer_barrier(g->staging, VK_ACCESS_TRANSFER_WRITE_BIT,
                                                        VK_ACCESS_SHADER_READ_BIT,
                                                        VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
        g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                0, 0, NULL, 1, &sb, move ? 1 : 0, &back);
    }

    rgb_params pc;
    cg_rgb_shader_params_make(g->d.src_w, g->d.src_h, g->d.dst_w, g->d.dst_h, g->d.flip, g->bgra,
                              cursor, &pc);
    dispatch(g, cmd, g->pipeline, g->pipeline_layout, source->set, g->slot_set[slot][eye], &pc,
             sizeof pc, g->groups_x, g->groups_y);
    /* The UNORM path gives the image back here. */
    last_barrier(g, cmd, buf, move && !g->from_buffer ? &back : NULL,
                 (part & CG_VK_PART_RELEASE) != 0);
}

void cg_vk_rgb_record_depth(cg_vk_rgb *g, VkCommandBuffer cmd, uint32_t slot, uint32_t eye,
                            VkImage depth, VkImageLayout depth_layout,
                            const cg_vk_depth_params *p, unsigned part)
{
    const rgb_source *source = find_source(&g->depth_src, depth);
    VkBuffer buf = g->slot_buffer[slot];
    const VkImageLayout read_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    int move = depth_layout != read_layout;
    VkImageMemoryBarrier ib = cg_vk_image_barrier(depth, depth_layout, read_layout,
                                                  VK_ACCESS_MEMORY_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
    VkImageMemoryBarrier back = cg_vk_image_barrier(depth, read_layout, depth_layout,
                                                    VK_ACCESS_SHADER_READ_BIT,
                                                    VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    ib.subresourceRange.aspectMask = back.subresourceRange.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    first_barrier(g, cmd, buf, move ? &ib : NULL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT, (part & CG_VK_PART_ACQUIRE) != 0);
    cg_depth_shader_params pc;
    cg_depth_shader_params_make(g->d.src_w, g->d.src_h, g->d.dst_w, g->d.dst_h, g->d.flip, p->raw,
                                p->near_plane, p->far_plane, &pc);
    dispatch(g, cmd, g->depth_pipeline, g->depth_pipeline_layout, source->set,
             g->slot_set[slot][DEPTH_PLANE + eye], &pc, sizeof pc, g->depth_groups_x,
             g->depth_groups_y);
    last_barrier(g, cmd, buf, move ? &back : NULL, (part & CG_VK_PART_RELEASE) != 0);
}

/* ---- the SRGB probe --------------------------------------------------------
 * A view of an SRGB image decodes it, and the _srgb shaders encode each
 * colour channel back; round(x * 255) then gives the stored byte only if
 * the driver's decode is accurate enough, which nothing in Vulkan promises
 * to that degree. So once, before the pass is trusted with SRGB: every
 * byte value of every channel through the pass's own pipeline. */

static int probe_fails_for_tests; /* cg_vk_rgb_fail_probe_for_tests */

void cg_vk_rgb_fail_probe_for_tests(int fail)
{
    probe_fails_for_tests = fail;
}

#define PROBE_W 256      /* the probe image: PROBE_W x 1, pixel i holds value i */
#define PROBE_OUT 1024u  /* the pass's output in the probe buffer: after the 1024 uploaded bytes */
#define PROBE_BYTES 2048u

/* What the probe makes; probe_free frees what was made. */
typedef struct probe {
    VkImage image;
    VkDeviceMemory image_memory;
    VkImageView view;
    VkBuffer buffer; /* host-visible: the upload at 0, the pass's output at PROBE_OUT */
    VkDeviceMemory buffer_memory;
    uint8_t *map;
    VkDescriptorPool pool;
    VkDescriptorSet sets[2]; /* source, output */
    VkCommandPool cmd_pool;
    VkCommandBuffer cmd;
    VkFence fence;
} probe;

/* Stored byte c (memory order) of probe pixel i: each channel holds every
 * value once, in an order of its own, so a swapped channel shows too. */
static uint8_t probe_byte(int i, int c)
{
    switch (c) {
    case 0: return (uint8_t)i;
    case 1: return (uint8_t)(255 - i);
    case 2: return (uint8_t)(i ^ 0x5a);
    default: return (uint8_t)(i * 7); /* 7 is odd: every value once */
    }
}

static void probe_free(cg_vk_rgb *g, probe *p)
{
    VkDevice dev = g->dev;
    if (p->fence) g->vk->vkDestroyFence(dev, p->fence, NULL);
    if (p->cmd_pool) g->vk->vkDestroyCommandPool(dev, p->cmd_pool, NULL); /* frees p->cmd */
    if (p->pool) g->vk->vkDestroyDescriptorPool(dev, p->pool, NULL);
    if (p->view) g->vk->vkDestroyImageView(dev, p->view, NULL);
    if (p->image) g->vk->vkDestroyImage(dev, p->image, NULL);
    if (p->image_memory) g->vk->vkFreeMemory(dev, p->image_memory, NULL);
    if (p->buffer) g->vk->vkDestroyBuffer(dev, p->buffer, NULL);
    if (p->buffer_memory) g->vk->vkFreeMemory(dev, p->buffer_memory, NULL); /* unmaps */
}

/* The image (the pass's format, SAMPLED | TRANSFER_DST), the buffer with
 * the pattern uploaded, and the two sets that bind them for the pass. */
static cg_status probe_objects(cg_vk_rgb *g, probe *p)
{
    VkDevice dev = g->dev;
    VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = g->d.format;
    ci.extent.width = PROBE_W;
    ci.extent.height = ci.extent.depth = 1;
    ci.mipLevels = ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateImage(dev, &ci, NULL, &p->image)));
    CG_VK_NAME(g->vk, VK_OBJECT_TYPE_IMAGE, p->image, "cg ring rgb SRGB probe image");
    VkImageMemoryRequirementsInfo2 ri = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
    ri.image = p->image;
    VkMemoryRequirements2 req = {.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
    g->vk->vkGetImageMemoryRequirements2(dev, &ri, &req);
    CG_TRY(allocate(g, &req.memoryRequirements, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                    &p->image_memory, "SRGB probe image"));
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkBindImageMemory(dev, p->image, p->image_memory, 0)));

    CG_TRY(make_buffer(g, PROBE_BYTES,
                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                       &p->buffer, &p->buffer_memory, "SRGB probe buffer"));
    void *map = NULL;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkMapMemory(dev, p->buffer_memory, 0, VK_WHOLE_SIZE, 0, &map)));
    p->map = map;
    memset(p->map, 0, PROBE_BYTES);
    for (int i = 0; i < PROBE_W; i++)
        for (int c = 0; c < 4; c++) p->map[i * 4 + c] = probe_byte(i, c);

    VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 2;
    pi.poolSizeCount = 3;
    pi.pPoolSizes = sizes;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateDescriptorPool(dev, &pi, NULL, &p->pool)));
    VkDescriptorSetLayout layouts[2] = {g->src_layout, g->slot_layout};
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = p->pool;
    ai.descriptorSetCount = 2;
    ai.pSetLayouts = layouts;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkAllocateDescriptorSets(dev, &ai, p->sets)));
    CG_TRY(make_source_view(g, &g->src, p->image, p->sets[0], &p->view));
    write_slot_set(g, p->sets[1], p->buffer, PROBE_OUT);
    return CG_OK;
}

/* Upload, the pass's dispatch over the 256x1 image, the output to the
 * host: submitted to `queue` and waited for. */
static cg_status probe_run(cg_vk_rgb *g, probe *p, VkQueue queue)
{
    VkDevice dev = g->dev;
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    cpi.queueFamilyIndex = g->d.queue_family;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateCommandPool(dev, &cpi, NULL, &p->cmd_pool)));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = p->cmd_pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkAllocateCommandBuffers(dev, &cai, &p->cmd)));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkCreateFence(dev, &fi, NULL, &p->fence)));

    VkCommandBuffer cmd = p->cmd;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkBeginCommandBuffer(cmd, &bi)));
    VkImageMemoryBarrier ib = cg_vk_image_barrier(p->image, VK_IMAGE_LAYOUT_UNDEFINED,
                                                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                                                  VK_ACCESS_TRANSFER_WRITE_BIT);
    g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                0, 0, NULL, 0, NULL, 1, &ib);
    VkBufferImageCopy reg;
    memset(&reg, 0, sizeof reg);
    reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    reg.imageSubresource.layerCount = 1;
    reg.imageExtent.width = PROBE_W;
    reg.imageExtent.height = reg.imageExtent.depth = 1;
    g->vk->vkCmdCopyBufferToImage(cmd, p->buffer, p->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                                  &reg);
    ib = cg_vk_image_barrier(p->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                             VK_ACCESS_SHADER_READ_BIT);
    g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, 0, NULL, 1, &ib);
    /* The frame's parameters for a 256x1 image into a 256x1 slot. */
    rgb_params pc;
    cg_rgb_shader_params_make(PROBE_W, 1, PROBE_W, 1, 0, g->bgra, NULL, &pc);
    uint32_t gx, gy;
    if (g->d.copy)
        cg_shader_groups_64x4(PROBE_W, 1, &gx, &gy);
    else
        cg_vk_rgb_groups(PROBE_W, 1, &gx, &gy);
    dispatch(g, cmd, g->pipeline, g->pipeline_layout, p->sets[0], p->sets[1], &pc, sizeof pc, gx, gy);
    VkBufferMemoryBarrier out = cg_vk_buffer_barrier(p->buffer, VK_ACCESS_SHADER_WRITE_BIT,
                                                     VK_ACCESS_HOST_READ_BIT,
                                                     VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED);
    g->vk->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                0, 0, NULL, 1, &out, 0, NULL);
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkEndCommandBuffer(cmd)));
    /* The host's writes of the pattern are visible to the submit's commands. */
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    CG_TRY(CG_VK_CHECK(&g->err, g->vk->vkQueueSubmit(queue, 1, &si, p->fence)));
    return CG_VK_CHECK(&g->err, g->vk->vkWaitForFences(dev, 1, &p->fence, VK_TRUE, UINT64_MAX));
}

/* The output against the uploaded pattern: the copy writes the stored
 * bytes (BGRA too, .bgra), the RGB shader R, G, B of the channels so
 * named (in a BGRA image, stored bytes 2, 1, 0). */
static cg_status probe_check(cg_vk_rgb *g, const uint8_t *out)
{
    int n = g->d.copy ? 4 : 3;
    for (int i = 0; i < PROBE_W; i++)
        for (int c = 0; c < n; c++) {
            int stored = g->d.copy || !g->bgra ? c : 2 - c;
            uint8_t want = probe_byte(i, stored), got = out[i * n + c];
            if (got != want)
                return cg_fail(&g->err, CG_E_UNSUPPORTED,
                               "SRGB probe (format %d, %s): stored byte %u (pixel %d, byte %d) "
                               "came back as %u: this driver's sRGB decode does not round-trip",
                               (int)g->d.format, g->d.copy ? "compute copy" : "RGB", want, i,
                               stored, got);
        }
    if (probe_fails_for_tests)
        return cg_fail(&g->err, CG_E_UNSUPPORTED,
                       "SRGB probe (format %d): failed by cg_vk_rgb_fail_probe_for_tests",
                       (int)g->d.format);
    return CG_OK;
}

cg_status cg_vk_rgb_probe(cg_vk_rgb *g, VkQueue queue, cg_err *err)
{
    CG_RETURN_IF(!g || !queue, CG_E_INVALID_ARG);
    if (!g->srgb || g->from_buffer) return CG_OK; /* nothing is decoded */
    probe p;
    memset(&p, 0, sizeof p);
    cg_status st = probe_objects(g, &p);
    if (st == CG_OK) st = probe_run(g, &p, queue);
    if (st == CG_OK) st = probe_check(g, p.map + PROBE_OUT);
    probe_free(g, &p);
    return st == CG_OK ? CG_OK : cg_fail_from(err, st, &g->err);
}
