package cgtest;

/** The test-only native helper (libgltest.so) that plays the game's part. */
final class GlHelper {
    static {
        System.loadLibrary("gltest");
    }

    private GlHelper() {}

    /** Creates a headless EGL GL 3.3 core context, current on this thread; null if impossible. */
    static native String open();

    static native boolean makeCurrent(boolean on);

    /** {scene id, color texture, depth texture} of a new w x h target, or null. */
    static native int[] createScene(int w, int h);

    static native boolean resizeScene(int id, int w, int h);

    /** quads: x0,y0,x1,y1,r,g,b each (pixels, bottom-left origin, half-open). */
    static native boolean drawColor(int id, int[] clearRgb, int[] quads);

    /** quads: x0,y0,x1,y1,eyeZ each; 0 ok, 1 GL error, 2 no clip control. */
    static native int drawDepth(int id, double[] quads, double near, double far, boolean zeroToOne);

    /** A texture name with no storage. */
    static native int emptyTexture();

    /** Frame f of the zero-copy test pattern (tests/vulkan/zc_test.h) into texture's w x h. */
    static native boolean uploadPattern(int texture, int w, int h, int frame);
}
