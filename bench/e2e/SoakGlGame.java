package cgtest;

import cgbench.SoakLoop;
import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.GlZerocopyRing;

/**
 * The soak's GL game (cgbench.SoakLoop runs it; bench/e2e/soak.py starts it): a headless EGL
 * GL 3.3 core context and a framebuffer texture of tests/gl's helper (libgltest, whose GlHelper
 * is package-private: hence this package), the soak's scene drawn as 16 quads of exact colours
 * (8 bands from the top, two halves: bench/e2e/e2e_render.comp's scene 1, drawn by GL), and a
 * GlZerocopyRing in the RGB slot format publishing the texture each frame on the render thread.
 * A resize: the ring destroyed, the texture's storage made at the new size, a new ring.
 *
 * <p>Usage: SoakGlGame (SoakLoop's arguments; ITERS is ignored).
 */
public final class SoakGlGame implements SoakLoop.Backend {
    final GlZerocopyRing r = GlZerocopyRing.INSTANCE;
    SoakLoop.Args a;
    int scene, texture, w, h;

    ByteString init() {
        int mode = a.semaphore ? GlZerocopyRing.MODE_SEMAPHORE : GlZerocopyRing.MODE_FENCE;
        return r.initRgbImpl(w, h, a.tw, a.th, 3, mode, a.waitNanos);
    }

    @Override
    public ByteString open(SoakLoop.Args args) {
        a = args;
        w = a.w;
        h = a.h;
        String gl = GlHelper.open();
        int[] s = gl == null ? null : GlHelper.createScene(w, h);
        if (s == null) {
            System.err.println("soak GL game: no headless GL context here");
            return null;
        }
        System.err.println("soak GL game: " + gl);
        scene = s[0];
        texture = s[1];
        try {
            return init();
        } catch (UnsupportedOperationException e) {
            System.err.println("soak GL game: " + e.getMessage());
            return null;
        }
    }

    @Override
    public ByteString resize(int nw, int nh) {
        r.destroyImpl();
        if (!GlHelper.resizeScene(scene, nw, nh))
            throw new IllegalStateException("resize to " + nw + "x" + nh);
        w = nw;
        h = nh;
        return init();
    }

    @Override
    public ByteString frame(int frame) {
        int[] q = new int[16 * 7];
        for (int band = 0, k = 0; band < 8; band++) {
            int id = band * 16 + (a.game & 15);
            // rows y (from the top) with y * 8 / h == band; GL's rows count from the bottom
            int y0 = h - (((band + 1) * h + 7) / 8), y1 = h - ((band * h + 7) / 8);
            int[][] halves = {{0, w / 2, frame & 255, (frame >> 8) & 255, id},
                              {w / 2, w, (frame >> 16) & 255, a.gen & 255, 255 - id}};
            for (int[] c : halves) {
                q[k++] = c[0];
                q[k++] = y0;
                q[k++] = c[1];
                q[k++] = y1;
                q[k++] = c[2];
                q[k++] = c[3];
                q[k++] = c[4];
            }
        }
        if (!GlHelper.drawColor(scene, new int[] {0, 0, 0}, q))
            throw new IllegalStateException("draw");
        return r.publishImpl(texture);
    }

    @Override
    public void close() {
        r.destroyImpl();
    }

    public static void main(String[] a) throws Exception {
        System.exit(SoakLoop.run(a, new SoakGlGame()));
    }
}
