package cgtest;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The shared-memory natives in a real JVM against the Python side (shm_peer.py,
 * a separate process written from the wire format, driven line by line).
 *
 * Usage: ShmTest PYTHON PEER_SCRIPT roundtrip|craftground|errors|registry|peer_gone_SIGTERM|
 *        peer_gone_SIGKILL|shrink_race|write_while_waiting|left_behind
 *
 * With CG_SHM_PEER_LIB set, the peer behaves as CraftGround's own Python side
 * (predecessor_peer.c: semaphores created by the peer, objects mapped only
 * during its calls); craftground, peer_gone_* and left_behind run with it.
 *
 * The bytes each side checks are computed independently on both sides from the
 * step number (the functions below mirror shm_peer.py's; neither side reads the
 * other's expectation off the wire).
 */
public final class ShmTest {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;
    static final int ACTION_SIZE = 16, ENV_SIZE = 300, LIMIT = ACTION_SIZE + ENV_SIZE;
    static final int OBS_LEN = 640 * 360 * 3; // a RAW 640x360 observation
    static final int STEPS = 1000;
    static int failures = 0;

    // ---- the deterministic bytes (see shm_peer.py) ----

    static byte[] initEnv(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 13 + 5);
        return b;
    }

    static byte[] ack() {
        byte[] b = "craftground-ack".getBytes(StandardCharsets.US_ASCII);
        b = Arrays.copyOf(b, b.length + 3);
        b[b.length - 2] = 1;
        b[b.length - 1] = (byte) 0xff;
        return b;
    }

    static int actionLen(int step) {
        return step % 3 != 0 ? 16 : (step * 37) % (LIMIT + 1);
    }

    static byte[] actionBytes(int step, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (step * 31 + i * 7 + 1);
        return b;
    }

    /** The frame of `step` as a Vulkan readback holds it: RGBA8, rows top-down
     *  (shm_peer.py's frame_rgba_channels is the same formula). */
    static void frameRgba(ByteBuffer b, int step, int w, int h) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int at = (y * w + x) * 4;
                b.put(at, (byte) (x * 3 + step));
                b.put(at + 1, (byte) (y * 5 + step * 7));
                b.put(at + 2, (byte) ((x ^ y) + step * 13));
                b.put(at + 3, (byte) 255);
            }
    }

    static void fillObs(byte[] b, int step) {
        int o = (step * 7919) % 65521;
        for (int i = 0; i < b.length; i++) b[i] = (byte) (((i + o) * 0x9E3779B1) >>> 16);
    }

    // ---- the peer process ----

    static final class Peer implements AutoCloseable {
        final Process proc;
        final BufferedWriter in;
        final BufferedReader out;

        Peer(String python, String script) throws IOException {
            proc = new ProcessBuilder(python, script)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new BufferedWriter(new OutputStreamWriter(proc.getOutputStream(), StandardCharsets.US_ASCII));
            out = new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.US_ASCII));
        }

        /** Sends one command; the reply must start with "ok". */
        String ok(String cmd) throws IOException {
            in.write(cmd);
            in.write('\n');
            in.flush();
            String r = out.readLine();
            if (r == null || !r.startsWith("ok"))
                throw new AssertionError("peer: '" + cmd + "' -> " + r);
            return r;
        }

        @Override
        public void close() {
            try {
                if (proc.isAlive()) ok("quit");
            } catch (IOException | AssertionError e) {
                // it may have died on purpose
            }
            try {
                if (!proc.waitFor(10, TimeUnit.SECONDS)) proc.destroyForcibly();
            } catch (InterruptedException e) {
                proc.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    static String p2j(int port) { return "/craftground_" + port + "_p2j"; }
    static String j2p(int port) { return "/craftground_" + port + "_j2p"; }

    static void fail(String msg) {
        System.out.println("FAIL: " + msg);
        failures++;
    }

    interface Call { void run() throws Exception; }

    /** The call must throw exactly `type`; returns its message. */
    static String expect(Class<? extends Throwable> type, String what, Call c) {
        try {
            c.run();
            fail(what + ": no exception, expected " + type.getSimpleName());
        } catch (Throwable t) {
            if (t.getClass() != type) {
                fail(what + ": " + t + ", expected " + type.getSimpleName());
            } else {
                return t.getMessage();
            }
        }
        return "";
    }

    static int basePort() {
        // Distinct per process, so parallel tests and other users never meet.
        return 200000 + (int) (ProcessHandle.current().pid() % 100000) * 32;
    }

    // ---- scenarios ----

    static void roundtrip(String py, String script) throws Exception {
        int port = basePort();
        String p = p2j(port), j = j2p(port);
        try (Peer peer = new Peer(py, script)) {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            byte[] env = FC.readInitialEnvironmentImpl(p, port);
            if (!Arrays.equals(env, initEnv(ENV_SIZE))) fail("initial environment differs");
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            byte[] prev = null, big = new byte[OBS_LEN];
            int reused = 0, grown = 0;
            long j2pSize = 0;
            for (int s = 0; s < STEPS; s++) {
                // Every tenth action arrives while readActionImpl is already waiting.
                peer.ok(s % 10 == 0 ? "action_later " + s + " 5" : "action " + s);
                byte[] a = FC.readActionImpl(p, prev);
                if (!Arrays.equals(a, actionBytes(s, actionLen(s))))
                    fail("step " + s + ": action differs (" + a.length + " bytes, expected "
                            + actionLen(s) + ")");
                if (prev != null && prev.length == a.length) {
                    if (a != prev) fail("step " + s + ": an array of the right length was not reused");
                    reused++;
                } else if (a == prev) {
                    fail("step " + s + ": an array of the wrong length was returned");
                }
                prev = a;
                // Mostly RAW 640x360; now and then a short message (j2p must not shrink).
                int n = s % 97 == 50 ? 1000 + s : OBS_LEN;
                byte[] obs = n == OBS_LEN ? big : new byte[n];
                fillObs(obs, s);
                FC.writeObservationImpl(p, j, obs);
                String r = peer.ok("read obs:" + s + ":" + n);
                long size = Long.parseLong(r.split(" ")[2]);
                if (size > j2pSize) grown++;
                j2pSize = size;
            }
            System.out.println("roundtrip: " + STEPS + " steps byte-exact both ways, " + reused
                    + " action arrays reused, j2p grew " + grown + "x to " + j2pSize + " bytes");
            if (reused == 0) fail("no action array was ever reused");
            if (j2pSize < 24 + OBS_LEN) fail("j2p is " + j2pSize + " bytes");
        }
    }

    /**
     * CraftGround's sequence as its mod runs it: the initial environment, the
     * handshake, then per step an action in and a RAW 640x360 observation out,
     * converted from a top-down RGBA readback by convertCapturedFrameImpl and
     * sent as an ObservationSpaceMessage. The peer decodes the message and
     * compares the image with the frame it computes itself.
     */
    static void craftground(String py, String script) throws Exception {
        final int w = 640, h = 360, steps = 200;
        int port = basePort() + 4;
        String p = p2j(port), j = j2p(port);
        try (Peer peer = new Peer(py, script)) {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            if (!Arrays.equals(FC.readInitialEnvironmentImpl(p, port), initEnv(ENV_SIZE)))
                fail("initial environment differs");
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            ByteBuffer frame = ByteBuffer.allocateDirect(w * h * 4);
            long t0 = System.nanoTime();
            for (int s = 0; s < steps; s++) {
                peer.ok("action " + s);
                byte[] a = FC.readActionImpl(p, null);
                if (!Arrays.equals(a, actionBytes(s, actionLen(s))))
                    fail("step " + s + ": action differs");
                frameRgba(frame, s, w, h);
                ByteString image = FC.convertCapturedFrameImpl(frame, w, h, w, h, 0, true, false, 0, 0);
                byte[] msg = ObservationSpaceMessage.newBuilder().setImage(image).build().toByteArray();
                FC.writeObservationImpl(p, j, msg);
                peer.ok("read frame:" + s + ":" + w + ":" + h);
            }
            System.out.printf("craftground: %d steps of RAW %dx%d observations byte-exact (%s peer), %.1f ms a step%n",
                    steps, w, h, System.getenv("CG_SHM_PEER_LIB") != null ? "the predecessor's" : "our",
                    (System.nanoTime() - t0) / 1e6 / steps);
        } finally {
            removeLeftovers(port);
        }
    }

    static void badNames() {
        byte[] d = new byte[4];
        String iae = "IllegalArgumentException";
        String[] badP2j = {"", "craftground_5_p2j", "/craftground_5_p2jx", "/craftground_05_p2j",
            "/craftground_-5_p2j", "/craftground__p2j", "/craftground_5_j2p", "/craftground_5_",
            "/craftground_99999999999_p2j", "/craftground_5_p2j\0", "/craftground_5_p2\u00e9",
            "/craftground_" + "1".repeat(60) + "_p2j", "Global\\craftground_5_p2j"};
        for (String n : badP2j) {
            expect(IllegalArgumentException.class, "readInitialEnvironmentImpl(" + n + ")",
                    () -> FC.readInitialEnvironmentImpl(n, 5));
            expect(IllegalArgumentException.class, "readActionImpl(" + n + ")",
                    () -> FC.readActionImpl(n, null));
            expect(IllegalArgumentException.class, "writeObservationImpl(" + n + ")",
                    () -> FC.writeObservationImpl(n, j2p(5), d));
        }
        expect(IllegalArgumentException.class, "null p2j", () -> FC.readInitialEnvironmentImpl(null, 5));
        expect(IllegalArgumentException.class, "null p2j", () -> FC.readActionImpl(null, d));
        expect(IllegalArgumentException.class, "null p2j", () -> FC.writeObservationImpl(null, j2p(5), d));
        expect(IllegalArgumentException.class, "null j2p", () -> FC.writeObservationImpl(p2j(5), null, d));
        expect(IllegalArgumentException.class, "null data", () -> FC.writeObservationImpl(p2j(5), j2p(5), null));
        expect(IllegalArgumentException.class, "swapped names",
                () -> FC.writeObservationImpl(j2p(5), p2j(5), d));
        String m = expect(IllegalArgumentException.class, "ports differ",
                () -> FC.writeObservationImpl(p2j(5), j2p(6), d));
        if (!m.contains("different ports")) fail("ports-differ message: " + m);
        m = expect(IllegalArgumentException.class, "port argument differs",
                () -> FC.readInitialEnvironmentImpl(p2j(5), 6));
        if (!m.contains("port 6")) fail("port-mismatch message: " + m);
        expect(IllegalArgumentException.class, "negative port",
                () -> FC.readInitialEnvironmentImpl(p2j(5), -5));
        System.out.println("bad names: " + (badP2j.length * 3 + 9) + " calls, each IllegalArgumentException");
    }

    static void errors(String py, String script) throws Exception {
        badNames();
        int base = basePort();
        // Nothing there at all.
        int none = base;
        byte[] d = new byte[8];
        String m = expect(IllegalStateException.class, "missing objects",
                () -> FC.readInitialEnvironmentImpl(p2j(none), none));
        if (!m.contains(p2j(none))) fail("missing-object message does not name it: " + m);
        expect(IllegalStateException.class, "missing objects", () -> FC.readActionImpl(p2j(none), null));
        expect(IllegalStateException.class, "missing objects", () -> FC.writeObservationImpl(p2j(none), j2p(none), d));

        // Each variant breaks one rule of the header, or leaves an object out.
        String[] variants = {"p2j_tiny", "env_past_end", "env_off_past_end", "env_size_huge",
            "env_in_header", "act_past_end", "act_off_huge", "sem_name_other_port",
            "sem_name_unterminated", "sem_name_prefix", "no_j2p", "no_sems"};
        try (Peer peer = new Peer(py, script)) {
            int k = 1;
            for (String v : variants) {
                int port = base + k++;
                peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE + " " + v);
                m = expect(IllegalStateException.class, "variant " + v,
                        () -> FC.readInitialEnvironmentImpl(p2j(port), port));
                System.out.println("  " + v + ": " + m);
                peer.ok("unlink");
            }

            // A good channel that goes bad after opening.
            int port = base + k;
            String p = p2j(port), j = j2p(port);
            int objSize = 136 + LIMIT;
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            if (!Arrays.equals(FC.readInitialEnvironmentImpl(p, port), initEnv(ENV_SIZE)))
                fail("initial environment differs");
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            String[][] bad = {
                {"action_raw 136 " + (objSize - 136 + 1), "action one byte past the end"},
                {"action_raw " + objSize + " 1", "action starting at the end"},
                {"action_raw 0 8", "action inside the header"},
                {"action_raw 18446744073709551608 16", "action offset near 2^64"},
                {"action_raw 136 18446744073709551615", "action size 2^64-1"},
            };
            int step = 1;
            for (String[] b : bad) {
                peer.ok(b[0]);
                m = expect(IllegalStateException.class, b[1], () -> FC.readActionImpl(p, null));
                System.out.println("  " + b[1] + ": " + m);
                // The channel stays usable.
                final int s = step++;
                peer.ok("action " + s);
                if (!Arrays.equals(FC.readActionImpl(p, null), actionBytes(s, actionLen(s))))
                    fail("action after '" + b[1] + "' differs");
            }
            // p2j shrunk under us: below its header, then below the action.
            peer.ok("truncate p2j 100");
            peer.ok("post_act");
            m = expect(IllegalStateException.class, "p2j shrunk below the header", () -> FC.readActionImpl(p, null));
            System.out.println("  p2j shrunk to 100: " + m);
            peer.ok("truncate p2j 140");
            peer.ok("action_raw 136 16");
            m = expect(IllegalStateException.class, "p2j shrunk below the action", () -> FC.readActionImpl(p, null));
            System.out.println("  p2j shrunk to 140: " + m);
            peer.ok("truncate p2j " + objSize);
            final int s2 = step++;
            peer.ok("action " + s2);
            if (!Arrays.equals(FC.readActionImpl(p, null), actionBytes(s2, actionLen(s2))))
                fail("action after restoring p2j differs");
            // j2p shrunk under us: the next message grows it again.
            peer.ok("truncate j2p 0");
            byte[] obs = new byte[5000];
            fillObs(obs, 7);
            FC.writeObservationImpl(p, j, obs);
            peer.ok("read obs:7:5000");
            // Empty message.
            FC.writeObservationImpl(p, j, new byte[0]);
            peer.ok("read obs:8:0");
            peer.ok("unlink");
        }
    }

    static void peerGone(String py, String script, String signal) throws Exception {
        int port = basePort() + 20;
        String p = p2j(port), j = j2p(port);
        Peer peer = new Peer(py, script);
        try {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            FC.readInitialEnvironmentImpl(p, port);
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            byte[] obs = new byte[OBS_LEN];
            for (int s = 0; s < 3; s++) {
                peer.ok("action " + s);
                FC.readActionImpl(p, null);
                fillObs(obs, s);
                FC.writeObservationImpl(p, j, obs);
                peer.ok("read obs:" + s + ":" + OBS_LEN);
            }
            // Mid-step: the game waits for an action that never comes.
            peer.ok("die_later " + signal + " 200");
            long t0 = System.nanoTime();
            String m = expect(IllegalStateException.class, "readActionImpl with the peer gone",
                    () -> FC.readActionImpl(p, null));
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("peer killed by %s 0.2 s into the wait: IllegalStateException after %.3f s: %s%n",
                    signal, secs, m);
            // A hang detector, not a performance limit: the check runs every 0.1 s.
            if (secs > 10) fail("readActionImpl took " + secs + " s to notice the peer had gone");
            if (!peer.proc.waitFor(10, TimeUnit.SECONDS)) fail("peer still running");
            // Later calls on the dead channel refuse at once, objects left behind or not.
            t0 = System.nanoTime();
            expect(IllegalStateException.class, "readActionImpl again", () -> FC.readActionImpl(p, null));
            expect(IllegalStateException.class, "writeObservationImpl after", () -> FC.writeObservationImpl(p, j, obs));
            double again = (System.nanoTime() - t0) / 1e9;
            if (again > 5) fail("calls on the closed channel took " + again + " s");

            // A new Python session on the same port: readInitialEnvironmentImpl
            // opens the new objects and the channel works again. (What a
            // SIGKILL left is removed first: CraftGround's own peer refuses
            // to create over existing objects.)
            peer.close();
            removeLeftovers(port);
            peer = new Peer(py, script);
            peer.ok("create " + port + " " + ACTION_SIZE + " " + (ENV_SIZE - 1));
            if (!Arrays.equals(FC.readInitialEnvironmentImpl(p, port), initEnv(ENV_SIZE - 1)))
                fail("initial environment of the new session differs");
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            step(peer, p, j, obs, 5, "of the new session");
            System.out.println("a new session on the same port works after readInitialEnvironmentImpl");
        } finally {
            peer.close();
            removeLeftovers(port); // SIGKILL runs no cleanup
        }
    }

    /**
     * Threads sharing one port: one keeps reopening the channel
     * (readInitialEnvironmentImpl replaces the registry's entry) while others
     * write through whichever channel is listed. Every call must succeed, and
     * the peer must then read a whole message.
     */
    static void registry(String py, String script) throws Exception {
        int port = basePort() + 24;
        String p = p2j(port), j = j2p(port);
        try (Peer peer = new Peer(py, script)) {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            final int threads = 4, calls = 400;
            Thread[] t = new Thread[threads];
            final Throwable[] err = new Throwable[threads];
            for (int k = 0; k < threads; k++) {
                final int id = k;
                t[k] = new Thread(() -> {
                    try {
                        byte[] msg = new byte[4096 * (id + 1)];
                        fillObs(msg, 9);
                        for (int i = 0; i < calls; i++) {
                            if (id == 0) {
                                if (FC.readInitialEnvironmentImpl(p, port).length != ENV_SIZE)
                                    throw new AssertionError("initial environment length");
                            } else {
                                FC.writeObservationImpl(p, j, msg);
                            }
                        }
                    } catch (Throwable e) {
                        err[id] = e;
                    }
                });
                t[k].start();
            }
            for (int k = 0; k < threads; k++) {
                t[k].join();
                if (err[k] != null) fail("thread " + k + ": " + err[k]);
            }
            // One more message, alone: the peer reads it whole (after taking
            // the posts of the concurrent ones, whose bytes it cannot check).
            peer.ok("drain_obs");
            byte[] last = new byte[3000];
            fillObs(last, 11);
            FC.writeObservationImpl(p, j, last);
            peer.ok("read obs:11:3000");
            System.out.println("registry: " + threads + " threads x " + calls
                    + " calls on one port while it was reopened, all succeeded");
        }
    }

    /** One whole step, action `s` in and observation `s` out, checked both ways. */
    static void step(Peer peer, String p, String j, byte[] obs, int s, String when) throws Exception {
        peer.ok("action " + s);
        if (!Arrays.equals(FC.readActionImpl(p, null), actionBytes(s, actionLen(s))))
            fail("action " + when + " differs");
        fillObs(obs, s);
        FC.writeObservationImpl(p, j, obs);
        peer.ok("read obs:" + s + ":" + obs.length);
    }

    /** Removes what a SIGKILLed peer left in /dev/shm (glibc's paths). */
    static void removeLeftovers(int port) throws IOException {
        for (String f : new String[] {"craftground_" + port + "_p2j", "craftground_" + port + "_j2p",
                "sem.cg_sem_obs" + port, "sem.cg_sem_act" + port})
            Files.deleteIfExists(Paths.get("/dev/shm", f));
    }

    /** Runs c on its own thread; false when it has not returned within `seconds`. */
    static boolean returnsWithin(double seconds, String what, Call c) throws InterruptedException {
        final Throwable[] err = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                c.run();
            } catch (Throwable e) {
                err[0] = e;
            }
        }, what);
        t.setDaemon(true);
        t.start();
        t.join((long) (seconds * 1000));
        if (t.isAlive()) {
            fail(what + " did not return within " + seconds + " s");
            return false;
        }
        if (err[0] != null) fail(what + ": " + err[0]);
        return true;
    }

    /**
     * A hostile peer shrinks both objects to small sizes in a tight loop while
     * the game writes RAW 640x360 observations, reads actions and re-reads the
     * initial environment. Each call must return or throw IllegalStateException;
     * before the fix the JVM died of SIGBUS in writeObservationImpl.
     */
    static void shrinkRace(String py, String script) throws Exception {
        int port = basePort() + 26;
        String p = p2j(port), j = j2p(port);
        final int rounds = 2000;
        try (Peer peer = new Peer(py, script)) {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            FC.readInitialEnvironmentImpl(p, port);
            FC.writeObservationImpl(p, j, ack());
            peer.ok("read ack");
            peer.ok("post_act " + rounds);
            byte[] obs = new byte[OBS_LEN];
            fillObs(obs, 1);
            int[] ok = new int[3], refused = new int[3];
            peer.ok("hostile_start");
            Call[] calls = {
                () -> FC.writeObservationImpl(p, j, obs),
                () -> FC.readActionImpl(p, null),
                () -> FC.readInitialEnvironmentImpl(p, port),
            };
            // Then the last 50 rounds also reopen the channel: a failed reopen
            // leaves no channel listed, and later calls open again.
            for (int i = 0; i < rounds; i++) {
                for (int k = 0; k < (i < rounds - 50 ? 2 : 3); k++) {
                    try {
                        calls[k].run();
                        ok[k]++;
                    } catch (IllegalStateException e) {
                        refused[k]++;
                    } catch (Throwable t) {
                        fail("round " + i + ", call " + k + ": " + t);
                    }
                }
            }
            peer.ok("hostile_stop");
            System.out.printf("shrink race: %d rounds; writeObservationImpl %d ok / %d refused, "
                    + "readActionImpl %d / %d, readInitialEnvironmentImpl %d / %d%n", rounds,
                    ok[0], refused[0], ok[1], refused[1], ok[2], refused[2]);
            // Whole again: a new session's first calls work.
            peer.ok("drain_act");
            peer.ok("drain_obs");
            if (!Arrays.equals(FC.readInitialEnvironmentImpl(p, port), initEnv(ENV_SIZE)))
                fail("initial environment after the race differs");
            step(peer, p, j, obs, 4, "after the race");
        }
    }

    /**
     * One thread waits in readActionImpl (no action posted), another writes
     * the observation the peer waits for: the write must return (before the
     * fix it waited for the reader's mutex, a deadlock in the protocol's
     * lockstep). 10 s tells "returned" from "hung"; it is no speed limit.
     */
    static void writeWhileWaiting(String py, String script) throws Exception {
        int port = basePort() + 28;
        String p = p2j(port), j = j2p(port);
        try (Peer peer = new Peer(py, script)) {
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            FC.readInitialEnvironmentImpl(p, port);
            final byte[][] got = new byte[1][];
            final Throwable[] err = new Throwable[1];
            Thread reader = new Thread(() -> {
                try {
                    got[0] = FC.readActionImpl(p, null);
                } catch (Throwable e) {
                    err[0] = e;
                }
            }, "reader");
            reader.setDaemon(true);
            reader.start();
            Thread.sleep(300); // into the wait (sooner only makes the test pass vacuously)
            byte[] obs = new byte[OBS_LEN];
            fillObs(obs, 3);
            boolean returned = returnsWithin(10, "writeObservationImpl while readActionImpl waits",
                    () -> FC.writeObservationImpl(p, j, obs));
            if (returned) peer.ok("read obs:3:" + OBS_LEN);
            peer.ok("action 2");
            reader.join(10000);
            if (reader.isAlive()) fail("readActionImpl did not return after the action");
            else if (err[0] != null) fail("readActionImpl: " + err[0]);
            else if (!Arrays.equals(got[0], actionBytes(2, actionLen(2)))) fail("action differs");
            System.out.println("writeObservationImpl returned while readActionImpl waited: " + returned);
        }
    }

    /**
     * The peer is SIGKILLed right after creating everything, before the game
     * opens the channel: the objects are all there, mapped by nobody. Every
     * call must throw IllegalStateException at once (before the fix the stale
     * initial environment came back and readActionImpl blocked forever).
     */
    static void leftBehind(String py, String script) throws Exception {
        int port = basePort() + 30;
        String p = p2j(port), j = j2p(port);
        try {
            Peer peer = new Peer(py, script);
            peer.ok("create " + port + " " + ACTION_SIZE + " " + ENV_SIZE);
            peer.ok("die_later SIGKILL 0");
            if (!peer.proc.waitFor(10, TimeUnit.SECONDS)) fail("peer still running");
            if (!Files.exists(Paths.get("/dev/shm", "craftground_" + port + "_p2j")))
                fail("the killed peer left no objects (the test needs them)");
            String m = expect(IllegalStateException.class, "readInitialEnvironmentImpl, left behind",
                    () -> FC.readInitialEnvironmentImpl(p, port));
            System.out.println("  readInitialEnvironmentImpl: " + m);
            if (!m.contains("no other process")) fail("message does not say why: " + m);
            returnsWithin(10, "readActionImpl on a left-behind channel", () -> expect(
                    IllegalStateException.class, "readActionImpl, left behind", () -> FC.readActionImpl(p, null)));
            returnsWithin(10, "writeObservationImpl on a left-behind channel", () -> expect(
                    IllegalStateException.class, "writeObservationImpl, left behind",
                    () -> FC.writeObservationImpl(p, j, ack())));
            peer.close();
        } finally {
            removeLeftovers(port);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.out.println("usage: ShmTest PYTHON PEER_SCRIPT SCENARIO");
            System.exit(2);
        }
        String py = args[0], script = args[1], scenario = args[2];
        switch (scenario) {
            case "roundtrip": roundtrip(py, script); break;
            case "craftground": craftground(py, script); break;
            case "errors": errors(py, script); break;
            case "registry": registry(py, script); break;
            case "peer_gone_SIGTERM": peerGone(py, script, "SIGTERM"); break;
            case "peer_gone_SIGKILL": peerGone(py, script, "SIGKILL"); break;
            case "shrink_race": shrinkRace(py, script); break;
            case "write_while_waiting": writeWhileWaiting(py, script); break;
            case "left_behind": leftBehind(py, script); break;
            default: throw new IllegalArgumentException(scenario);
        }
        if (failures != 0) {
            System.out.println(failures + " failure(s)");
            System.exit(1); // also past a native call that never returned
        }
        System.out.println("PASS " + scenario);
        System.exit(0);
    }
}
