package cgbench;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing;

/**
 * The soak's Vulkan game (SoakLoop runs it; bench/e2e/soak.py starts it): E2eGame's Vulkan side
 * (libe2e_game) renders the soak's scene into its image, a VulkanZerocopyRing in the RGB slot
 * format publishes it (semaphore mode: after the game's submit, no wait; fence mode: recorded
 * into the frame's command buffer, the game's own fence waited for). A resize keeps the device,
 * as a game's window resize does: the ring destroyed, the image made anew, a new ring. With
 * DEPTH 1 the ring also carries a raw depth plane of the game's depth target (initRgbdImpl).
 *
 * <p>Usage: SoakGame (SoakLoop's arguments).
 */
public final class SoakGame implements SoakLoop.Backend {
    static native void vkSoakScene(int game, int gen);
    static native long vkResize(int w, int h);
    static native long vkDepthImage();
    static native void vkClearDepth(float depth);

    static final int GENERAL = 1, COLOR_ATTACHMENT_OPTIMAL = 2;
    final VulkanZerocopyRing r = VulkanZerocopyRing.INSTANCE;
    long[] v;
    long image, depth;
    SoakLoop.Args a;

    ByteString init(int w, int h) {
        int mode = a.semaphore ? VulkanZerocopyRing.MODE_SEMAPHORE : VulkanZerocopyRing.MODE_FENCE;
        if (!a.depth)
            return r.initRgbImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 0, a.tw, a.th,
                    true, 3, mode, a.waitNanos, v[7] != 0);
        depth = vkDepthImage();
        if (depth == 0) throw new IllegalStateException("no depth image");
        return r.initRgbdImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5], w, h, 0, a.tw, a.th, true,
                3, mode, a.waitNanos, v[7] != 0, 1, VulkanZerocopyRing.DEPTH_RAW, 0f, 0f, false);
    }

    @Override
    public ByteString open(SoakLoop.Args args) {
        a = args;
        v = E2eGame.vkSetup(a.w, a.h);
        if (v == null) {
            System.err.println("soak game: no Vulkan device with external memory here");
            return null;
        }
        if (a.semaphore && v[8] == 0) {
            System.err.println("soak game: semaphore mode asked, no exportable timeline here");
            return null;
        }
        image = v[6];
        vkSoakScene(a.game, a.gen);
        return init(a.w, a.h);
    }

    @Override
    public ByteString resize(int w, int h) {
        // Fence mode keeps a destroyed ring's slots until a later ring's frame calls fenced the
        // queue: by the next resize every earlier one must be gone (soak.py reports the most).
        System.err.println("soak game: deferred rings before resize: " + r.deferredCountImpl());
        r.destroyImpl();
        image = vkResize(w, h);
        if (image == 0) throw new IllegalStateException("resize to " + w + "x" + h);
        return init(w, h);
    }

    @Override
    public ByteString frame(int frame) {
        long cmd = E2eGame.vkRender(frame, 0, a.iters);
        if (cmd == 0) throw new IllegalStateException("vkRender failed");
        ByteString d;
        if (a.depth) { // the depth part first (both modes record it), then the colour part
            vkClearDepth(SoakLoop.depthOf(a.game, frame));
            r.recordDepthImpl(cmd, depth, GENERAL, 0, 0f, 0f, false);
        }
        if (a.semaphore) {
            if (!E2eGame.vkSubmit(false)) throw new IllegalStateException("submit");
            d = a.depth ? r.publishEyeImpl(image, COLOR_ATTACHMENT_OPTIMAL, 0, false, 0, 0)
                        : r.publishImpl(image, COLOR_ATTACHMENT_OPTIMAL);
        } else {
            d = a.depth ? r.recordEyeImpl(cmd, image, COLOR_ATTACHMENT_OPTIMAL, 0, false, 0, 0)
                        : r.recordImpl(cmd, image, COLOR_ATTACHMENT_OPTIMAL);
            if (!E2eGame.vkSubmit(true)) throw new IllegalStateException("submit");
        }
        return d;
    }

    @Override
    public void close() {
        E2eGame.vkIdle();
        r.destroyImpl();
        r.freeDeferredImpl(v[2]);
        E2eGame.vkTeardown();
    }

    public static void main(String[] a) throws Exception {
        System.exit(SoakLoop.run(a, new SoakGame()));
    }
}
