package cgdemo;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Arrays;
import javax.imageio.ImageIO;

/**
 * The main job: render a voxel world headlessly, capture every frame through
 * the JNI entry points the mod uses (captureFramebufferImpl RAW and PNG,
 * captureDepthImpl), write what a person can open, and print per-stage
 * median timings.
 *
 * Usage: Demo [--frames N] [--width W] [--height H] [--out DIR]
 *
 * Files (in DIR): frame_NNN.png (the RAW observation decoded: bottom-up RGB
 * rows flipped to top-down for viewing), wire_NNN.png (the PNG observation
 * exactly as sent: bottom-up rows, so it looks upside down, the Python side
 * flips it), depth_NNN.png (linearised depth, near = dark, far = white,
 * top-down).
 */
public final class Demo {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;

    public static void main(String[] args) throws Exception {
        int frames = 60, w = 640, h = 360;
        String out = "out/demo";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--frames": frames = Integer.parseInt(args[i + 1]); break;
                case "--width": w = Integer.parseInt(args[i + 1]); break;
                case "--height": h = Integer.parseInt(args[i + 1]); break;
                case "--out": out = args[i + 1]; break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        File dir = new File(out);
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);

        String desc = VoxelScene.open(w, h);
        System.out.println("demo: " + frames + " frames " + w + "x" + h + " on " + desc);
        System.out.println("demo: initializeGLEW() = " + FC.initializeGLEW());
        int[] tex = VoxelScene.textures();
        boolean z01 = VoxelScene.zeroToOne();
        float near = VoxelScene.nearPlane(), far = VoxelScene.farPlane();
        ByteBuffer rgba = ByteBuffer.allocateDirect(w * h * 4).order(ByteOrder.nativeOrder());

        String[] stage = {"render", "readback (glReadPixels)", "convert (RGBA->RAW RGB)",
                          "encode (RAW->PNG)", "captureFramebufferImpl RAW",
                          "captureFramebufferImpl PNG", "captureDepthImpl (linearised)"};
        long[][] ns = new long[stage.length][frames];
        long started = System.nanoTime();
        for (int f = 0; f < frames; f++) {
            long t0 = System.nanoTime();
            if (!VoxelScene.render(f, frames)) throw new IllegalStateException("render failed");
            long t1 = System.nanoTime();
            // The stages one by one: plain readback, conversion and encoding
            // through convertCapturedFrameImpl on the read-back frame.
            if (!VoxelScene.readback(rgba)) throw new IllegalStateException("readback failed");
            long t2 = System.nanoTime();
            FC.convertCapturedFrameImpl(rgba, w, h, w, h, FramebufferCapturer.RAW, false, false, 0, 0);
            long t3 = System.nanoTime();
            FC.convertCapturedFrameImpl(rgba, w, h, w, h, FramebufferCapturer.PNG, false, false, 0, 0);
            long t4 = System.nanoTime();
            // What the mod calls each step.
            ByteString raw = FC.captureFramebufferImpl(tex[0], w, h, w, h, FramebufferCapturer.RAW,
                    true, false, 0, 0);
            long t5 = System.nanoTime();
            ByteString png = FC.captureFramebufferImpl(tex[0], w, h, w, h, FramebufferCapturer.PNG,
                    true, false, 0, 0);
            long t6 = System.nanoTime();
            float[] depth = FC.captureDepthImpl(tex[1], w, h, true, near, far, z01);
            long t7 = System.nanoTime();
            long[] t = {t0, t1, t2, t3, t4, t5, t6, t7};
            for (int s = 0; s < stage.length; s++) ns[s][f] = t[s + 1] - t[s];
            ns[3][f] = Math.max(0, (t4 - t3) - (t3 - t2)); // PNG call minus its conversion

            writeRawAsPng(raw.toByteArray(), w, h, new File(dir, String.format("frame_%03d.png", f)));
            try (OutputStream o = Files.newOutputStream(new File(dir, String.format("wire_%03d.png", f)).toPath())) {
                png.writeTo(o);
            }
            writeDepth(depth, w, h, new File(dir, String.format("depth_%03d.png", f)));
            double el = (System.nanoTime() - started) / 1e9;
            System.err.printf("\rdemo: frame %d/%d  %.1f s  RAW %d bytes  PNG %d bytes   ", f + 1, frames,
                    el, raw.size(), png.size());
        }
        System.err.println();
        VoxelScene.close();

        System.out.printf("demo: per-frame medians over %d frames (%dx%d):%n", frames, w, h);
        for (int s = 0; s < stage.length; s++) {
            System.out.printf("  %-32s %9.3f ms%n", stage[s], median(ns[s]) / 1e6);
        }
        System.out.println("demo: wrote " + frames * 3 + " files to " + dir.getAbsolutePath());
    }

    static double median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        int n = c.length;
        return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
    }

    /** RAW is bottom-up RGB8 (the wire's order): flip rows for a viewable image. */
    static void writeRawAsPng(byte[] raw, int w, int h, File f) throws IOException {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            int row = h - 1 - y;
            for (int x = 0; x < w; x++) {
                int i = (row * w + x) * 3;
                img.setRGB(x, y, (raw[i] & 0xff) << 16 | (raw[i + 1] & 0xff) << 8 | (raw[i + 2] & 0xff));
            }
        }
        ImageIO.write(img, "png", f);
    }

    /** Linearised depth (eye distance / far, 0..1) as grey, flipped top-down. */
    static void writeDepth(float[] d, int w, int h, File f) throws IOException {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < h; y++) {
            int row = h - 1 - y;
            for (int x = 0; x < w; x++) {
                // sqrt spreads the near range, where most of the scene is.
                double v = Math.sqrt(Math.max(0.0, Math.min(1.0, d[row * w + x])));
                int g = (int) Math.round(v * 255);
                img.getRaster().setSample(x, y, 0, g);
            }
        }
        ImageIO.write(img, "png", f);
    }
}
