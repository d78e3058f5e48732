package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;

/**
 * Zero-copy v2 for the GL backend (docs/zero-copy-v2.md, "The GL producer"): each frame's
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

    /**
     * Publish the current contents of {@code texture} (a GL_TEXTURE_2D at least the ring's
     * size) as the next frame. Returns the frame's 192-byte descriptor, or null when every slot
     * was held by the learner (frame skipped).
     */
    public native ByteString publishImpl(int texture);

    /** Destroy the ring (with its GL context current); init may be called again. No-op without one. */
    public native void destroyImpl();
}
