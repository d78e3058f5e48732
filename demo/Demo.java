package cgdemo;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
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
 * timings (median, p10, p90): first the calls the mod makes, then a
 * breakdown of the same work into parts.
 *
 * Usage: Demo [--frames N] [--width W] [--height H] [--out DIR]
 * (scripts/demo.sh checks the same ranges before it installs or builds; a
 * bad argument here is one line on stderr and exit status 2, and a scene
 * that cannot be set up says why, exit status 1, before DIR is created).
 *
 * Files (in DIR): frame_NNN.png (the RAW observation decoded: bottom-up RGB
 * rows flipped to top-down for viewing), wire_NNN.png (the PNG observation
 * exactly as sent: bottom-up rows, so it looks upside down, the Python side
 * flips it), depth_NNN.png (linearised depth, near = dark, far = white,
 * top-down); for the first SAMPLE_MESSAGES frames also obs_raw_NNN.bin and
 * obs_png_NNN.bin, the ObservationSpaceMessages the mod would send (RAW or
 * PNG image, and the depth).
 */
public final class Demo {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;

    /** A bad argument: one line on stderr, exit status 2 (as scripts/demo.sh does). */
    static void usageError(String msg) {
        System.err.println("demo: " + msg + " (usage: Demo [--frames N] [--width W] [--height H] [--out DIR])");
        System.exit(2);
    }

    static int intArg(String opt, String v, int lo, int hi) {
        if (v.matches("[0-9]{1,6}")) {
            int n = Integer.parseInt(v);
            if (n >= lo && n <= hi) return n;
        }
        usageError(opt + " must be a whole number from " + lo + " to " + hi + ", got '" + v + "'");
        return 0;
    }

    public static void main(String[] args) throws Exception {
        int frames = 60, w = 640, h = 360;
        String out = "out/demo";
        for (int i = 0; i < args.length; i += 2) {
            String opt = args[i];
            if (!opt.equals("--frames") && !opt.equals("--width") && !opt.equals("--height")
                    && !opt.equals("--out")) usageError("unknown option '" + opt + "'");
            if (i + 1 >= args.length) usageError(opt + " needs a value");
            String v = args[i + 1];
            switch (opt) {
                case "--frames": frames = intArg(opt, v, 1, 100000); break;
                case "--width": w = intArg(opt, v, 1, 16384); break;
                case "--height": h = intArg(opt, v, 1, 16384); break;
                default: out = v; break;
            }
        }
        // The scene first: a machine that cannot render gets no empty folder.
        String desc;
        try {
            desc = VoxelScene.open(w, h);
        } catch (IllegalStateException e) {
            System.err.println("demo: cannot set up the scene at " + w + "x" + h + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        File dir = new File(out);
        if (!dir.isDirectory() && !dir.mkdirs()) throw new IOException("cannot create " + dir);

        System.out.println("demo: " + frames + " frames " + w + "x" + h + " on " + desc);
        System.out.println("demo: initializeGLEW() = " + FC.initializeGLEW());
        int[] tex = VoxelScene.textures();
        boolean z01 = VoxelScene.zeroToOne();
        float near = VoxelScene.nearPlane(), far = VoxelScene.farPlane();
        ByteBuffer rgba = ByteBuffer.allocateDirect(w * h * 4).order(ByteOrder.nativeOrder());

        // Stages 0-2 are what the mod calls each step; 3-6 break the same work
        // into parts (the game's own render, a plain readback, the conversion
        // and the PNG encoding alone) to show where the time goes.
        String[] stage = {"captureFramebufferImpl RAW", "captureFramebufferImpl PNG",
                          "captureDepthImpl (linearised)", "render (the game's frame)",
                          "readback (glReadPixels RGBA)", "convert (RGBA->RAW RGB)",
                          "encode (PNG call minus convert)"};
        final int modCalls = 3;
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
            // The cursor at the centre, as an agent's view shows it.
            ByteString raw = FC.captureFramebufferImpl(tex[0], w, h, w, h, FramebufferCapturer.RAW,
                    true, true, w / 2, h / 2);
            long t5 = System.nanoTime();
            ByteString png = FC.captureFramebufferImpl(tex[0], w, h, w, h, FramebufferCapturer.PNG,
                    true, true, w / 2, h / 2);
            long t6 = System.nanoTime();
            float[] depth = FC.captureDepthImpl(tex[1], w, h, true, near, far, z01);
            long t7 = System.nanoTime();
            ns[0][f] = t5 - t4;
            ns[1][f] = t6 - t5;
            ns[2][f] = t7 - t6;
            ns[3][f] = t1 - t0;
            ns[4][f] = t2 - t1;
            ns[5][f] = t3 - t2;
            ns[6][f] = Math.max(0, (t4 - t3) - (t3 - t2)); // PNG call minus its conversion

            writeRawAsPng(raw.toByteArray(), w, h, new File(dir, String.format("frame_%03d.png", f)));
            try (OutputStream o = Files.newOutputStream(new File(dir, String.format("wire_%03d.png", f)).toPath())) {
                png.writeTo(o);
            }
            writeDepth(depth, w, h, new File(dir, String.format("depth_%03d.png", f)));
            if (f < SAMPLE_MESSAGES) writeMessages(raw, png, depth, dir, f);
            progress(f + 1, frames, (System.nanoTime() - started) / 1e9, raw.size(), png.size());
        }
        if (TTY) System.err.println();
        VoxelScene.close();

        System.out.printf("demo: time per frame over %d frames (%dx%d), in ms:%n", frames, w, h);
        System.out.printf("  %-40s %9s %9s %9s%n", "", "median", "p10", "p90");
        for (int s = 0; s < stage.length; s++) {
            if (s == 0) System.out.println("  what the mod calls each step:");
            if (s == modCalls) System.out.println("  breakdown (the same work in parts; not calls the mod makes):");
            System.out.printf("    %-38s %9.3f %9.3f %9.3f%n", stage[s], percentile(ns[s], 50) / 1e6,
                    percentile(ns[s], 10) / 1e6, percentile(ns[s], 90) / 1e6);
        }
        System.out.println("demo: wrote " + (frames * 3 + 2 * Math.min(frames, SAMPLE_MESSAGES)) + " files to "
                + dir.getAbsolutePath());
    }

    /** Frames whose observations are also written as protobuf messages. */
    static final int SAMPLE_MESSAGES = 3;

    /**
     * The observation messages the mod would send for this frame, as the
     * Python side receives them: obs_raw_NNN.bin (image: the RAW capture)
     * and obs_png_NNN.bin (image: the PNG capture), both with the
     * linearised depth, serialised ObservationSpaceMessages.
     */
    static void writeMessages(ByteString raw, ByteString png, float[] depth, File dir, int f)
            throws IOException {
        ByteString[] images = {raw, png};
        String[] kinds = {"raw", "png"};
        for (int i = 0; i < 2; i++) {
            ObservationSpaceMessage.Builder b = ObservationSpaceMessage.newBuilder().setImage(images[i]);
            for (float d : depth) b.addDepth(d);
            Files.write(new File(dir, String.format("obs_%s_%03d.bin", kinds[i], f)).toPath(),
                    b.build().toByteArray());
        }
    }

    /** Whether stderr is a terminal: progress then rewrites one line in place. */
    static final boolean TTY = VoxelScene.stderrIsTerminal();

    /**
     * Progress on stderr: on a terminal one line rewritten in place ("\r") every
     * frame; into a log or a pipe a plain line every tenth of the run (and the
     * last frame), so that a log gets at most 11 short lines and no "\r".
     */
    static void progress(int done, int frames, double seconds, int rawBytes, int pngBytes) {
        String line = String.format("demo: frame %d/%d  %.1f s  RAW %d bytes  PNG %d bytes", done, frames,
                seconds, rawBytes, pngBytes);
        if (TTY) {
            System.err.print("\r" + line + "   ");
        } else if (done == frames || done % ((frames + 9) / 10) == 0) {
            System.err.println(line);
        }
    }

    /** The p-th percentile, linear between the closest ranks (p = 50: the median). */
    static double percentile(long[] v, double p) {
        long[] c = v.clone();
        Arrays.sort(c);
        double r = (c.length - 1) * p / 100.0;
        int lo = (int) Math.floor(r), hi = Math.min(lo + 1, c.length - 1);
        return c[lo] + (c[hi] - c[lo]) * (r - lo);
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
