package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;

/**
 * The natives of the mod's Kotlin {@code object FramebufferCapturer}, declared
 * the way Kotlin compiles them: instance methods on a singleton whose class
 * initialiser loads libnative-lib.so. Used by the JVM tests and the demo.
 */
public final class FramebufferCapturer {
    public static final FramebufferCapturer INSTANCE = new FramebufferCapturer();

    public static final int RAW = 0;
    public static final int PNG = 1;
    public static final int ZEROCOPY_TORCH = 2;
    public static final int ZEROCOPY_JAX = 3;

    static {
        NativeLoader.load();
    }

    private FramebufferCapturer() {}

    /** Tightly packed RGBA8 in a direct buffer -> RAW (bottom-up RGB8) or PNG. */
    public native ByteString convertCapturedFrameImpl(
            ByteBuffer src, int srcW, int srcH, int targetW, int targetH,
            int encodingMode, boolean flipVertically, boolean drawCursor, int xPos, int yPos);

    /** Reads a GL color texture of the current context -> RAW/PNG. */
    public native ByteString captureFramebufferImpl(
            int textureId, int texW, int texH, int targetW, int targetH, int encodingMode,
            boolean isExtensionAvailable, boolean drawCursor, int xPos, int yPos);

    /** Reads a GL depth texture of the current context; optionally linearised. */
    public native float[] captureDepthImpl(
            int depthTextureId, int texW, int texH, boolean requiresDepthConversion,
            float near, float far, boolean zZeroToOne);

    /** True when a GL context is current and usable (kept for compatibility). */
    public native boolean initializeGLEW();

    /** GL zero-copy setup; returns the 68-byte IPC handle. */
    public native ByteString initializeZerocopyImpl(int width, int height, int pythonPid);

    /** Per-frame GL zero-copy; returns null on success. */
    public native ByteString captureFramebufferZerocopyImpl(
            int sourceTextureId, int targetW, int targetH, boolean drawCursor, int mouseX, int mouseY);

    /**
     * Shared-memory channel: the initial-environment bytes the Python side wrote into
     * {@code /craftground_<port>_p2j}. (Re)opens the channel of that port.
     */
    public native byte[] readInitialEnvironmentImpl(String p2jMemoryName, int port);

    /**
     * Shared-memory channel: waits for the next action and returns its bytes, in
     * {@code actionData} itself when its length equals the action's.
     */
    public native byte[] readActionImpl(String p2jMemoryName, byte[] actionData);

    /** Shared-memory channel: publishes one message (an observation, or the handshake ack). */
    public native void writeObservationImpl(
            String p2jMemoryName, String j2pMemoryName, byte[] observationData);
}
