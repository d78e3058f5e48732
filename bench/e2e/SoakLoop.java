package cgbench;

import com.google.protobuf.ByteString;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.locks.LockSupport;

/**
 * The free-running loop of a soak game (bench/e2e/soak.py; docs/benchmarks.md, "Soak"), the
 * same for the Vulkan game (SoakGame) and the GL one (cgtest.SoakGlGame): it never waits for a
 * learner. Each frame the backend renders the soak's scene (a picture the learner predicts from
 * the game index, its generation and the frame number) and publishes it into its v2 ring (the
 * RGB slot format); the loop leaves the descriptor in the game's mailbox, a shared file the
 * learner reads when it wants (libe2e_game's seqlock: {u64 sequence, odd while written; u32
 * length; the descriptor at 16}).
 *
 * <p>Arguments (after the backend's own): MAILBOX LOG GAME GEN RENDER_W RENDER_H OBS_W OBS_H
 * SYNC HZ ITERS WAIT_US [DEPTH]. SYNC fence or semaphore; HZ the frames a second it paces itself to (0:
 * as fast as it goes); ITERS the Vulkan render's extra ALU rounds; WAIT_US the ring's waitNanos
 * in microseconds; DEPTH 1: the ring has a raw depth plane (the Vulkan game: its depth target
 * cleared to depthOf(game, frame) each frame). stdin takes lines from the supervisor: "resize W H" (the ring destroyed, the
 * image made at W x H, a ring made anew: the observation size unchanged) and "quit". LOG gets
 * one record a frame, 4 big-endian longs: the step's start (System.nanoTime: CLOCK_MONOTONIC),
 * its wall time in ns (render, publish, mailbox; a resize's work included), the frame, flags (1
 * published, 2 skipped, 4 the step resized, 8 the first frame of a ring). Exit 77: no device
 * for the backend, or semaphore mode asked where it has none.
 */
public final class SoakLoop {
    public static final int PUBLISHED = 1, SKIPPED = 2, RESIZED = 4, FIRST = 8;

    /** A game's GPU side: its ring and its render of the scene. */
    public interface Backend {
        /** Make the device and the ring at w x h: the template; null (with a message on
         * stderr) where this machine cannot, which exits 77. */
        ByteString open(Args a) throws IOException;

        /** The ring destroyed, the image made at w x h, a new ring: its template. */
        ByteString resize(int w, int h);

        /** Render frame `frame` and publish it: the descriptor, or null (skipped). */
        ByteString frame(int frame);

        void close();
    }

    /** The parsed arguments. */
    public static final class Args {
        public final String mailbox, log;
        public final int game, gen, w, h, tw, th, iters;
        public final boolean semaphore, depth;
        public final double hz;
        public final long waitNanos;

        Args(String[] a) {
            mailbox = a[0];
            log = a[1];
            game = Integer.parseInt(a[2]);
            gen = Integer.parseInt(a[3]);
            w = Integer.parseInt(a[4]);
            h = Integer.parseInt(a[5]);
            tw = Integer.parseInt(a[6]);
            th = Integer.parseInt(a[7]);
            semaphore = a[8].equals("semaphore");
            hz = Double.parseDouble(a[9]);
            iters = Integer.parseInt(a[10]);
            waitNanos = Long.parseLong(a[11]) * 1000L;
            depth = a.length > 12 && a[12].equals("1");
        }
    }

    /** The depth of every pixel of the game's frame: (game * 65536 + frame mod 65536 + 1) /
     * 2^21, exact in float32 (bench/e2e/soak.py's oracle reads it back bit for bit). */
    public static float depthOf(int game, int frame) {
        return (float) ((game & 15) * 65536 + (frame & 0xffff) + 1) / (float) (1 << 21);
    }

    static native boolean mailboxOpen(String path);
    static native void mailboxPut(byte[] descriptor);

    /** A line of stdin when one is there (never blocks: the supervisor writes whole lines). */
    static String command(InputStream in) throws IOException {
        if (in.available() <= 0) return null;
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) >= 0 && c != '\n';) b.append((char) c);
        return b.toString().trim();
    }

    /** Runs the game to "quit"; returns the exit status. */
    public static int run(String[] argv, Backend g) throws IOException {
        System.loadLibrary("e2e_game");
        Args a = new Args(argv);
        if (!mailboxOpen(a.mailbox)) {
            System.err.println("soak game: cannot open the mailbox " + a.mailbox);
            return 1;
        }
        ByteString t = g.open(a);
        if (t == null) return 77;
        mailboxPut(t.toByteArray());
        System.err.println("soak game " + a.game + " gen " + a.gen + ": " + a.w + "x" + a.h
                + " -> " + a.tw + "x" + a.th + (a.semaphore ? " semaphore" : " fence") + " mode");
        DataOutputStream log = new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(a.log, true), 1 << 16));
        long period = a.hz > 0 ? (long) (1e9 / a.hz) : 0, next = System.nanoTime();
        long flushed = next;
        int frame = 0;
        boolean fresh = true;
        while (true) {
            long t0 = System.nanoTime(), flags = 0;
            String c = command(System.in);
            if (c != null && c.startsWith("quit")) break;
            if (c != null && c.startsWith("resize")) {
                String[] p = c.split("\\s+");
                mailboxPut(g.resize(Integer.parseInt(p[1]), Integer.parseInt(p[2]))
                        .toByteArray());
                flags |= RESIZED;
                fresh = true;
            }
            ByteString d = g.frame(++frame);
            if (d != null) {
                mailboxPut(d.toByteArray());
                flags |= PUBLISHED | (fresh ? FIRST : 0);
                fresh = false;
            } else {
                flags |= SKIPPED;
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
        g.close();
        return 0;
    }
}
