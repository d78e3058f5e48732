package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;

/**
 * Zero-copy v2 for the GL backend (docs/zero-copy-v2/producer.md, "The GL producer"): each frame's
 * colour texture is packed by GL, with GPU commands only, into a ring of buffers that the
 * learner process imports once; no CUDA in the game. The ring is made through the library's
 * own Vulkan device on the GPU that renders the GL context. One ring per process, held by this
 * object (a Kotlin {@code object} in the mod).
 *
 * <p>Call every method on the game's render thread, with the GL context that {@code initImpl}
 * saw current. Slots hold tightly packed RGBA8 rows in GL's order (row 0 is the bottom; the
 * descriptor's ROWS_BOTTOM_UP flag says so).
 */
public final class GlZerocopyRing {
    public static final GlZerocopyRing INSTANCE = new GlZerocopyRing();

    /** Semaphore mode where GL has GL_EXT_semaphore_fd, else fence mode. */
    public static final int MODE_AUTO = 0;
    /** GL signals a semaphore the learner's stream waits on: no CPU wait in the game. */
    public static final int MODE_SEMAPHORE = 1;
    /** The CPU waits for GL's copy before the descriptor is returned (GL without semaphores). */
    public static final int MODE_FENCE = 2;

    static {
        System.loadLibrary("native-lib");
    }

    private GlZerocopyRing() {}

    /**
     * Create the ring (slots 0 = 3) for a width x height colour texture, its hand-off socket,
     * and the GL side (memory imported once). Returns a 192-byte descriptor with frame 0 (mode
     * at bytes 28..31 says which mode was picked). waitNanos: when every slot is held by the
     * learner, poll this long before skipping a frame (0 = skip at once).
     * UnsupportedOperationException names what this driver lacks (an extension, a Vulkan
     * device on GL's GPU); the readback and v1 paths keep working.
     */
    public native ByteString initImpl(int width, int height, int slots, int mode, long waitNanos);

    /** {@link #copyPathImpl}: slots written by glReadPixels into the imported buffer. */
    public static final int COPY_PATH_READ_PIXELS = 0;
    /** {@link #copyPathImpl}: slots written by the compute copy (one dispatch, same bytes). */
    public static final int COPY_PATH_COMPUTE = 1;
    /** {@link #copyPathImpl}: a ring of {@link #initRgbImpl} (its own compute pass). */
    public static final int COPY_PATH_RGB = 2;

    /** GL_RGBA8, the internal format of Minecraft's main framebuffer colour texture. */
    public static final int GL_RGBA8 = 0x8058;

    /**
     * {@link #initImpl} for textures of {@code textureFormat}, the GL internal format every
     * texture given to publish has (0 = unknown). With {@link #GL_RGBA8}, in a GL that runs
     * compute shaders (4.3) and holds a slot in one shader storage block, the slots are written
     * by the compute copy: one dispatch, the same bytes and rows as glReadPixels (GL's order,
     * ROWS_BOTTOM_UP), several times less GPU time; a texture of another format is then refused
     * per frame (IllegalArgumentException, nothing published). Anything else: glReadPixels. A
     * negative textureFormat is an IllegalArgumentException. The choice is made here, once:
     * {@link #copyPathImpl} reports it.
     */
    public native ByteString initCopyImpl(int width, int height, int textureFormat, int slots,
            int mode, long waitNanos);

    /**
     * How this ring writes its slots, chosen at init: {@link #COPY_PATH_READ_PIXELS} (0),
     * {@link #COPY_PATH_COMPUTE} (1) or {@link #COPY_PATH_RGB} (2, {@link #initRgbImpl}). The
     * slots' bytes and the descriptor are the same for 0 and 1. IllegalStateException without
     * a ring.
     */
    public native int copyPathImpl();

    /**
     * Publish the current contents of {@code texture} (a GL_TEXTURE_2D at least the ring's
     * size) as the next frame. Returns the frame's 192-byte descriptor, or null when every slot
     * was held by the learner (frame skipped).
     */
    public native ByteString publishImpl(int texture);

    /**
     * Create the ring in the RGB slot format (docs/zero-copy-v2/protocol.md, "The RGB slot format"): each
     * slot holds what the learner trains on, {@code (targetHeight, targetWidth, 3)} uint8, rows
     * upright, nearest resize and the cursor exactly as the RAW observation of the same frame
     * ({@code convertCapturedFrameImpl} of GL's readback, its rows reversed), made by one GL
     * compute dispatch instead of the pack. Needs GL 4.3 (UnsupportedOperationException
     * otherwise) and a GL_RGBA8 or GL_RGB8 texture (not sRGB). targetWidth x targetHeight: the slot's size (0 x 0 =
     * the texture's). The other arguments as {@link #initImpl}. Returns the template descriptor
     * (version 2, format 23, rows upright: no ROWS_BOTTOM_UP flag).
     */
    public native ByteString initRgbImpl(int width, int height, int targetWidth, int targetHeight,
            int slots, int mode, long waitNanos);

    /**
     * {@link #publishImpl} with this frame's cursor (hot spot in target pixels from the top-left,
     * any value; drawn as the RAW observation draws it). A cursor to draw needs a ring made by
     * {@link #initRgbImpl} (IllegalArgumentException otherwise).
     */
    public native ByteString publishCursorImpl(int texture, boolean drawCursor, int cursorX,
            int cursorY);

    /** {@link #initRgbdImpl} depthEncoding: no depth plane. */
    public static final int DEPTH_NONE = 0;
    /** Depth planes of eye distance / far (docs/wire-format.md "Depth", with conversion). */
    public static final int DEPTH_LINEAR = 1;
    /** Depth planes of the depth buffer as stored (reverse-Z, 1 = near), bit-exact. */
    public static final int DEPTH_RAW = 2;

    /**
     * {@link #initRgbImpl} with a second eye and/or a depth plane per eye (docs/zero-copy-v2/protocol.md,
     * "Depth and stereo planes"): eyes 1 or 2 (0 is taken as 1, as slots 0 is the default;
     * negative or more than 2: IllegalArgumentException); depthEncoding {@link #DEPTH_NONE},
     * {@link #DEPTH_LINEAR} or {@link #DEPTH_RAW}: each slot then also holds, per eye, the
     * depth of the pixels the RGB plane samples, {@code (targetHeight, targetWidth)} float32,
     * rows upright. near/far/zZeroToOne: the linear encoding's planes (finite, 0 < near < far;
     * IllegalArgumentException otherwise), checked here; publishDepthImpl always gives a frame's
     * own, so from Java these are never a frame's; ignored for raw. Returns the template descriptor: 256 bytes (version 3) when eyes is 2 or
     * there is a depth plane, else exactly {@link #initRgbImpl}'s. Such a ring takes each frame
     * in parts, in this order: for each eye, publishDepthImpl (with depth), then publishEyeImpl;
     * publishImpl / publishCursorImpl are refused (IllegalArgumentException).
     */
    public native ByteString initRgbdImpl(int width, int height, int targetWidth,
            int targetHeight, int slots, int mode, long waitNanos, int eyes, int depthEncoding,
            float near, float far, boolean zZeroToOne);

    /**
     * The depth part of {@code eye}: the game's depth texture (a GL_TEXTURE_2D of a depth format:
     * GL_DEPTH_COMPONENT32F, 24, 16, the unsized GL_DEPTH_COMPONENT, or a depth-stencil one read
     * as depth; exactly the ring's width x height) into that eye's depth plane, by one GL compute
     * dispatch (the game's GL state saved and restored). Call it where the depth buffer holds the
     * eye's scene: in Minecraft right after renderLevel (before the hand and GUI are drawn).
     * near/far/zZeroToOne: this frame's planes (linear rings; every eye of a frame gives the same:
     * IllegalArgumentException otherwise). Returns the frame's descriptor when this part completed
     * it, an empty ByteString when the frame needs more parts, null when the frame is skipped
     * (every slot held, or the part came out of order: the frame being assembled is then given up,
     * never published). IllegalArgumentException: eye outside 0..eyes-1, a ring without depth, a
     * texture that is not a depth one of the ring's size, bad near/far.
     */
    public native ByteString publishDepthImpl(int depthTexture, int eye, float near, float far,
            boolean zZeroToOne);

    /**
     * The colour part of {@code eye}: as {@link #publishCursorImpl}, into that eye's RGB plane,
     * after the eye's frame is drawn. The last eye's call completes the frame (the GL fence or
     * semaphore signal, as publishImpl) and returns its descriptor; earlier parts an empty
     * ByteString; null when the frame is skipped. Exceptions as publishDepthImpl's.
     */
    public native ByteString publishEyeImpl(int texture, int eye, boolean drawCursor,
            int cursorX, int cursorY);

    /**
     * The producer's counters, for diagnosing a slow run: [0] frames published, [1] frames
     * skipped because every slot was held (the frame calls that returned null) or, on a ring of
     * parts, given up part-way (a part out of order), [2] nanoseconds spent polling for a free
     * slot (at most waitNanos a frame), [3] learners accepted, [4]
     * leases reclaimed because their learner left. The same values are in the control block
     * (docs/zero-copy-v2/protocol.md, "Counters"), where the learner reads them. IllegalStateException
     * without a ring.
     */
    public native long[] countersImpl();

    /**
     * Destroy the ring; init may be called again (a window resize is destroy + init). Call it on
     * the render thread, with the GL context the ring was made in current: from any other thread
     * (or with no or another context current) it throws IllegalStateException and keeps the ring,
     * which stays usable, since its GL objects can only be deleted in their context. The game's
     * GL context stays current and usable afterwards. No-op without a ring.
     */
    public native void destroyImpl();
}
