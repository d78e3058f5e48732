package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;

/**
 * Zero-copy v2 (docs/zero-copy-v2/producer.md): the game copies each frame on its own Vulkan queue into
 * a ring of exportable buffers that the learner process imports once; no CUDA in the game. One
 * ring per process, held by this object (a Kotlin {@code object} in the mod).
 *
 * <p>Vulkan handles are passed as the {@code long} values LWJGL uses ({@code address()} of
 * dispatchable handles, the 64-bit value of the others). Call every method on the thread that
 * owns the game's queue.
 */
public final class VulkanZerocopyRing {
    public static final VulkanZerocopyRing INSTANCE = new VulkanZerocopyRing();

    /** The learner's stream waits on the GPU for the ring's timeline semaphore. */
    public static final int MODE_SEMAPHORE = 1;
    /** The copy is recorded into the game's command buffer; its fence covers it. */
    public static final int MODE_FENCE = 2;

    static {
        System.loadLibrary("native-lib");
    }

    private VulkanZerocopyRing() {}

    /** {@link #copyPathImpl}: slots written by vkCmdCopyImageToBuffer. */
    public static final int COPY_PATH_TRANSFER = 0;
    /** {@link #copyPathImpl}: slots written by the compute copy (one dispatch, same bytes). */
    public static final int COPY_PATH_COMPUTE = 1;
    /** {@link #copyPathImpl}: a ring of {@link #initRgbImpl} (its own compute pass). */
    public static final int COPY_PATH_RGB = 2;
    /**
     * {@link #copyPathImpl}: a ring of {@link #initRgbImpl} whose SRGB image is first copied as
     * stored into a staging buffer (a second pass on the GPU): the ring's probe of the SRGB
     * view's decode at init did not give every byte back on this driver. The same bytes.
     */
    public static final int COPY_PATH_RGB_STAGING = 3;

    /** VkImageUsageFlags bits {@link #initCopyImpl} looks at. */
    public static final int IMAGE_USAGE_TRANSFER_SRC = 0x1;
    public static final int IMAGE_USAGE_SAMPLED = 0x4;

    /**
     * Create the ring (slots 0 = 3) and its hand-off socket for an R8G8B8A8_UNORM image: the
     * same as {@link #initCopyImpl} with imageFormat 37 and imageUsage 0 (unknown: the transfer
     * copy; name the image's usage there to get the compute copy). A swapchain image is usually
     * B8G8R8A8: name its format there, or a learner trusting the descriptor swaps red and blue.
     * Returns a 192-byte descriptor with frame 0 (it names no frame; a learner may connect with
     * it before the first frame). queueFamily: the family of {@code queue}, one the device has
     * (IllegalArgumentException otherwise). waitNanos: when every slot is held by the learner,
     * poll this long before skipping a frame (0 = skip at once). debugUtils: VK_EXT_debug_utils
     * is enabled on the instance.
     */
    public native ByteString initImpl(long instance, long physicalDevice, long device,
            int queueFamily, long queue, long getInstanceProcAddr, int width, int height,
            int slots, int mode, long waitNanos, boolean debugUtils);

    /**
     * {@link #initImpl} for an image of {@code imageFormat}, the game image's VkFormat: 37
     * R8G8B8A8_UNORM, 43 R8G8B8A8_SRGB, 44 B8G8R8A8_UNORM, 50 B8G8R8A8_SRGB (0 = 37). The copy
     * keeps the image's bytes, and every descriptor names this format; any other format (one
     * the copy cannot hand over as stored 8-bit RGBA/BGRA) is an IllegalArgumentException.
     *
     * <p>{@code imageUsage}: the VkImageUsageFlags every image given to publish/record was
     * created with (0 = unknown). With {@link #IMAGE_USAGE_SAMPLED} the slots are written by the
     * compute copy, one dispatch that reads the image through a view (the same bytes, several
     * times less GPU time than the transfer copy; the ring keeps a view of each image, at most 8:
     * keep them alive while the ring lives); for an SRGB format (43, 50) only where a probe run
     * here once (one small submit to {@code queue}, waited for: call this on the thread that owns
     * it) shows the view's decode, encoded back in the shader, gives every byte back; otherwise
     * by vkCmdCopyImageToBuffer, which needs {@link #IMAGE_USAGE_TRANSFER_SRC} (an SRGB image
     * needs it in any case). A nonzero usage with neither way to read the image, or a negative
     * one, is an IllegalArgumentException. The choice is made here, once: {@link #copyPathImpl}
     * reports it.
     */
    public native ByteString initCopyImpl(long instance, long physicalDevice, long device,
            int queueFamily, long queue, long getInstanceProcAddr, int width, int height,
            int imageFormat, int imageUsage, int slots, int mode, long waitNanos,
            boolean debugUtils);

    /**
     * How this ring writes its slots, chosen at init: {@link #COPY_PATH_TRANSFER} (0,
     * vkCmdCopyImageToBuffer), {@link #COPY_PATH_COMPUTE} (1, the compute copy) or
     * {@link #COPY_PATH_RGB} (2, the RGB slot format of {@link #initRgbImpl}), or
     * {@link #COPY_PATH_RGB_STAGING} (3, the same through a staging copy of an SRGB image). The
     * slots' bytes and the descriptor are the same for 0 and 1, and for 2 and 3.
     * IllegalStateException without a ring.
     */
    public native int copyPathImpl();

    /**
     * Semaphore mode, right after the game's vkQueueSubmit of the frame: submit the copy of
     * {@code image} (in {@code imageLayout}, a VkImageLayout value) and the semaphore signal.
     * Returns the frame's 192-byte descriptor, or null when every slot was held (frame skipped).
     */
    public native ByteString publishImpl(long image, int imageLayout);

    /**
     * Fence mode: record the copy into the game's {@code commandBuffer} before it is submitted.
     * Send the returned descriptor after the game's fence wait for that submission. null when
     * every slot was held (frame skipped). Submit (or reset) {@code commandBuffer} before the
     * next frame call (recordImpl/publishImpl, on this ring or the next one), and keep
     * {@code image} alive until that submission completes. {@link #destroyImpl} may come between
     * this call and the submit: the memory the copy writes is then kept (see there).
     */
    public native ByteString recordImpl(long commandBuffer, long image, int imageLayout);

    /**
     * Create the ring in the RGB slot format (docs/zero-copy-v2/protocol.md, "The RGB slot format"):
     * each slot holds what the learner trains on, {@code (targetHeight, targetWidth, 3)} uint8,
     * rows upright, nearest resize and the cursor exactly as the RAW observation
     * ({@code convertCapturedFrameImpl} with the same {@code flipVertically}: true for a Vulkan
     * image, whose row 0 is the top), made by one compute dispatch on the game's queue instead of
     * the copy. imageFormat: the game image's VkFormat (37, 43, 44 or 50; 0 = 37); a UNORM image
     * needs VK_IMAGE_USAGE_SAMPLED_BIT (its view is kept while the ring lives: at most 8 distinct
     * images); an SRGB one is read the same way where a probe run here once (a small submit to
     * {@code queue}, waited for) shows its view's decode round-trips, else through a staging copy
     * that needs TRANSFER_SRC. targetWidth x targetHeight: the slot's size (0 x 0 = the
     * image's). The other arguments as {@link #initImpl}. Returns the template descriptor
     * (version 2, format 23).
     */
    public native ByteString initRgbImpl(long instance, long physicalDevice, long device,
            int queueFamily, long queue, long getInstanceProcAddr, int width, int height,
            int imageFormat, int targetWidth, int targetHeight, boolean flipVertically, int slots,
            int mode, long waitNanos, boolean debugUtils);

    /**
     * {@link #publishImpl} with this frame's cursor (hot spot in target pixels from the top-left,
     * any value; drawn as the RAW observation draws it). A cursor to draw needs a ring made by
     * {@link #initRgbImpl} (IllegalArgumentException otherwise).
     */
    public native ByteString publishCursorImpl(long image, int imageLayout, boolean drawCursor,
            int cursorX, int cursorY);

    /**
     * {@link #recordImpl} with this frame's cursor. In the RGB slot format the ring's compute
     * pipeline, descriptor sets and push constants are left bound in {@code commandBuffer}.
     */
    public native ByteString recordCursorImpl(long commandBuffer, long image, int imageLayout,
            boolean drawCursor, int cursorX, int cursorY);

    /** {@link #initRgbdImpl} depthEncoding: no depth plane. */
    public static final int DEPTH_NONE = 0;
    /** {@link #initRgbdImpl} depthEncoding: eye distance / far, as captureDepthImpl with
     * requiresDepthConversion = true gives it (docs/wire-format.md, "Depth"). */
    public static final int DEPTH_LINEAR = 1;
    /** {@link #initRgbdImpl} depthEncoding: the stored depth floats, bit for bit. */
    public static final int DEPTH_RAW = 2;

    /**
     * {@link #initRgbImpl} with eyes and a depth plane (docs/zero-copy-v2/protocol.md, "Depth and stereo
     * planes"): each slot holds {@code eyes} (1 or 2; 0 is taken as 1, as slots 0 is the
     * default; negative or more than 2: IllegalArgumentException) RGB planes and, with depthEncoding
     * {@link #DEPTH_LINEAR} or {@link #DEPTH_RAW}, a depth plane per eye, {@code (targetHeight,
     * targetWidth)} float32, upright, each pixel the depth of the source pixel the RGB plane
     * samples. The depth comes from the game's VK_FORMAT_D32_SFLOAT image (usage SAMPLED, the
     * colour image's size). near, far, zZeroToOne: LINEAR's parameters, checked here (finite
     * 0 < near < far, else IllegalArgumentException); recordDepthImpl always gives a frame's own,
     * so from Java these are never a frame's (C callers may pass none); ignored for RAW.
     * Returns the template descriptor: 256 bytes (version 3) when eyes is 2 or there is a depth
     * plane, else the 192 of initRgbImpl. Frames then go part by part, for each eye in order
     * (eye 0 first): {@link #recordDepthImpl} (with a depth plane) at the mod's depth point,
     * then the colour part, {@link #publishEyeImpl} (semaphore mode, after the game's submit of
     * that eye) or {@link #recordEyeImpl} (fence mode); the last part returns the descriptor.
     * publishCursorImpl / recordCursorImpl are for rings of one eye without depth
     * (IllegalStateException here).
     */
    public native ByteString initRgbdImpl(long instance, long physicalDevice, long device,
            int queueFamily, long queue, long getInstanceProcAddr, int width, int height,
            int imageFormat, int targetWidth, int targetHeight, boolean flipVertically, int slots,
            int mode, long waitNanos, boolean debugUtils, int eyes, int depthEncoding, float near,
            float far, boolean zZeroToOne);

    /**
     * Record eye {@code eye}'s depth plane from {@code depthImage} (a D32_SFLOAT image in
     * {@code imageLayout}, Minecraft's GENERAL; returned to it) into the game's
     * {@code commandBuffer} (both modes), right after the level is rendered and before the
     * depth is cleared, outside a render pass. near, far, zZeroToOne: this frame's LINEAR
     * parameters (they go into its descriptor; ignored for RAW); both eyes of a frame give the
     * same. Returns an empty ByteString (the frame needs its colour part), or null when the
     * frame is skipped (every slot held, or a part out of order: the open frame is then
     * abandoned, never published). IllegalArgumentException: eye outside 0..eyes-1, a ring
     * without depth, bad near/far.
     */
    public native ByteString recordDepthImpl(long commandBuffer, long depthImage, int imageLayout,
            int eye, float near, float far, boolean zZeroToOne);

    /**
     * Semaphore mode: eye {@code eye}'s colour, as {@link #publishCursorImpl}, right after the
     * game's submit of that eye's frame. Returns the descriptor when this part completes the
     * frame (the last eye), an empty ByteString when the frame needs more parts, null when it is
     * skipped.
     */
    public native ByteString publishEyeImpl(long image, int imageLayout, int eye,
            boolean drawCursor, int cursorX, int cursorY);

    /**
     * Fence mode: eye {@code eye}'s colour recorded into the game's {@code commandBuffer}, as
     * {@link #recordCursorImpl}; returns as {@link #publishEyeImpl}. Send the descriptor after
     * the game's fence wait.
     */
    public native ByteString recordEyeImpl(long commandBuffer, long image, int imageLayout,
            int eye, boolean drawCursor, int cursorX, int cursorY);

    /**
     * Destroy the ring; init may be called again (any size). No-op without a ring. Any thread,
     * also between recordImpl and the game's submit of that command buffer: a fence-mode ring
     * that recorded a copy keeps its slot memory (the copy may still be submitted) until the
     * first frame calls of a later ring on the same device and queue have fenced that queue, or
     * until {@link #freeDeferredImpl}.
     */
    public native void destroyImpl();

    /**
     * The game is about to destroy {@code device} (a VkDevice, after its vkDeviceWaitIdle, no
     * command buffer with a recorded copy left to submit): free the memory destroyed fence-mode
     * rings kept on it. Call it before vkDestroyDevice whenever a fence-mode ring was destroyed
     * on that device. Returns how many rings' memory was freed.
     */
    public native int freeDeferredImpl(long device);

    /**
     * The producer's counters, for diagnosing a slow run: [0] frames published, [1] frames
     * skipped because every slot was held (the frame calls that returned null), [2] nanoseconds
     * spent polling for a free slot (at most waitNanos a frame), [3] learners accepted, [4]
     * leases reclaimed because their learner left. The same values are in the control block
     * (docs/zero-copy-v2/protocol.md, "Counters"), where the learner reads them. IllegalStateException
     * without a ring.
     */
    public native long[] countersImpl();

    /** Destroyed rings whose memory is still kept (see destroyImpl), for diagnostics. */
    public native int deferredCountImpl();
}
