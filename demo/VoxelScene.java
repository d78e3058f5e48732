package cgdemo;

import java.nio.ByteBuffer;

/** The demo's stand-in for the game: a headless GL context rendering a voxel world (libcg_demo.so). */
final class VoxelScene {
    static {
        System.loadLibrary("demo_scene");
    }

    private VoxelScene() {}

    /** Creates the context (current on this thread) and the w x h targets; returns a description. */
    static native String open(int w, int h);

    /** {color texture, depth texture}: the names the mod would hand to FramebufferCapturer. */
    static native int[] textures();

    /** Whether depth uses the [0,1] clip range (glClipControl) rather than [-1,1]. */
    static native boolean zeroToOne();

    static native float nearPlane();

    static native float farPlane();

    /** Renders frame `frame` of `frames` (camera flight), finished on the GPU. */
    static native boolean render(int frame, int frames);

    /** A plain glReadPixels of the color target into dst (the readback stage alone). */
    static native boolean readback(ByteBuffer dst);

    static native void close();

    /** Whether the process's stderr (fd 2) is a terminal (isatty). */
    static native boolean stderrIsTerminal();
}
