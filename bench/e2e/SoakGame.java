package cgbench;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.VulkanZerocopyRing;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.locks.LockSupport;

/**
 * One game of the soak (bench/e2e/soak.py; docs/benchmarks.md, "Soak"): it runs FREELY, never
 * waiting for a learner. Each frame it renders the soak's scene (E2eGame's render with
 * vkSoakScene: a picture the learner predicts from the game index, its generation and the frame
 * number), publishes it into its v2 ring (the RGB slot format) and leaves the descriptor in its
 * mailbox, a shared file the learner reads when it wants (libe2e_game's mailboxPut).
 *
 * <p>Usage: SoakGame MAILBOX LOG GAME GEN RENDER_W RENDER_H OBS_W OBS_H SYNC HZ ITERS WAIT_US.
 * SYNC fence or semaphore; HZ the frames a second it paces itself to (0: as fast as it goes);
 * ITERS the render's extra ALU rounds; WAIT_US the ring's waitNanos in microseconds. stdin takes
 * lines from the supervisor: "resize W H" (the ring destroyed, the image made at W x H, a ring
 * made anew: the observation size unchanged) and "quit". LOG gets one record a frame, 4 big-endian
 * longs: the step's start (System.nanoTime: CLOCK_MONOTONIC), its wall time in ns (render,
 * publish, mailbox; a resize's work included), the frame, flags (1 published, 2 skipped, 4 the
 * step resized, 8 the first frame of a ring). Exit 77: no Vulkan device, or semaphore mode asked
 * where the device has none.
 */
public final class SoakGame {
    static native void vkSoakScene(int game, int gen);
    static native long vkResize(int w, int h);
    static native boolean mailboxOpen(String path);
    static native void mailboxPut(byte[] descriptor);

    static final int COLOR_ATTACHMENT_OPTIMAL = 2;

    long[] v;
    long image;
    int tw, th, slots = 3;
    boolean semaphore;
    long waitNanos;

    ByteString init(int w, int h) {
        int mode = semaphore ? VulkanZerocopyRing.MODE_SEMAPHORE : VulkanZerocopyRing.MODE_FENCE;
        return VulkanZerocopyRing.INSTANCE.initRgbImpl(v[0], v[1], v[2], (int) v[3], v[4], v[5],
                w, h, 0, tw, th, true, slots, mode, waitNanos, v[7] != 0);
    }

    /** A line of stdin when one is there (never blocks: the supervisor writes whole lines). */
    static String command(InputStream in) throws IOException {
        if (in.available() <= 0) return null;
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) >= 0 && c != '\n';) b.append((char) c);
        return b.toString().trim();
    }

    public static void main(String[] a) throws Exception {
        System.loadLibrary("e2e_game");
        if (!mailboxOpen(a[0])) {
            System.err.println("soak game: cannot open the mailbox " + a[0]);
            System.exit(1);
        }
        SoakGame g = new SoakGame();
        int game = Integer.parseInt(a[2]), gen = Integer.parseInt(a[3]);
        int w = Integer.parseInt(a[4]), h = Integer.parseInt(a[5]);
        g.tw = Integer.parseInt(a[6]);
        g.th = Integer.parseInt(a[7]);
        g.semaphore = a[8].equals("semaphore");
        double hz = Double.parseDouble(a[9]);
        int iters = Integer.parseInt(a[10]);
        g.waitNanos = Long.parseLong(a[11]) * 1000L;
        g.v = E2eGame.vkSetup(w, h);
        if (g.v == null) {
            System.err.println("soak game: no Vulkan device with external memory here");
            System.exit(77);
        }
        if (g.semaphore && g.v[8] == 0) {
            System.err.println("soak game: semaphore mode asked, no exportable timeline here");
            System.exit(77);
        }
        g.image = g.v[6];
        vkSoakScene(game, gen);
        VulkanZerocopyRing r = VulkanZerocopyRing.INSTANCE;
        mailboxPut(g.init(w, h).toByteArray());
        System.err.println("soak game " + game + " gen " + gen + ": " + w + "x" + h + " -> "
                + g.tw + "x" + g.th + (g.semaphore ? " semaphore" : " fence") + " mode");
        DataOutputStream log = new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(a[1], true), 1 << 16));
        long period = hz > 0 ? (long) (1e9 / hz) : 0, next = System.nanoTime(), flushed = next;
        int frame = 0;
        boolean fresh = true;
        while (true) {
            long t0 = System.nanoTime(), flags = 0;
            String c = command(System.in);
            if (c != null && c.startsWith("quit")) break;
            if (c != null && c.startsWith("resize")) {
                String[] p = c.split("\\s+");
                w = Integer.parseInt(p[1]);
                h = Integer.parseInt(p[2]);
                r.destroyImpl();
                g.image = vkResize(w, h);
                if (g.image == 0) throw new IllegalStateException("resize to " + w + "x" + h);
                mailboxPut(g.init(w, h).toByteArray());
                flags |= 4;
                fresh = true;
            }
            frame++;
            long cmd = E2eGame.vkRender(frame, 0, iters);
            if (cmd == 0) throw new IllegalStateException("vkRender failed");
            ByteString d;
            if (g.semaphore) {
                if (!E2eGame.vkSubmit(false)) throw new IllegalStateException("submit");
                d = r.publishImpl(g.image, COLOR_ATTACHMENT_OPTIMAL);
            } else {
                d = r.recordImpl(cmd, g.image, COLOR_ATTACHMENT_OPTIMAL);
                if (!E2eGame.vkSubmit(true)) throw new IllegalStateException("submit");
            }
            if (d != null) {
                mailboxPut(d.toByteArray());
                flags |= 1 | (fresh ? 8 : 0);
                fresh = false;
            } else {
                flags |= 2;
            }
            long t1 = System.nanoTime();
            log.writeLong(t0);
            log.writeLong(t1 - t0);
            log.writeLong(frame);
            log.writeLong(flags);
            if (t1 - flushed > 250_000_000L) {
                log.flush();
                flushed = t1;
            }
            if (period > 0) {
                next += period;
                long left = next - System.nanoTime();
                if (left > 0) LockSupport.parkNanos(left);
                else if (left < -10 * period) next = System.nanoTime(); // fell behind: no burst
            }
        }
        log.close();
        E2eGame.vkIdle();
        r.destroyImpl();
        r.freeDeferredImpl(g.v[2]);
        E2eGame.vkTeardown();
    }
}
