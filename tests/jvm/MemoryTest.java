package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * 100,000 calls (RAW and PNG, and bad inputs that throw) leave the resident
 * set flat: run with a fixed, pre-touched heap (-Xms = -Xmx,
 * -XX:+AlwaysPreTouch) so the Java heap cannot account for growth; a leak of
 * one output per call (>= 4 KiB of RGB or PNG scratch) would add >= 400 MB.
 */
public final class MemoryTest {
    static long rssKb() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        throw new AssertionError("no VmRSS in /proc/self/status");
    }

    /** What the calls returned: every one is checked, so none can be a no-op. */
    static long rawBytes, rawCalls, pngCalls, pngBadSignature, refused, expectedRefusals;

    static final com.google.protobuf.ByteString PNG_SIGNATURE = com.google.protobuf.ByteString.copyFrom(
        new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});

    static void calls(FramebufferCapturer fc, ByteBuffer src, int n) {
        for (int i = 0; i < n; i++) {
            int mode = (i & 3) == 0 ? FramebufferCapturer.PNG : FramebufferCapturer.RAW;
            com.google.protobuf.ByteString out =
                fc.convertCapturedFrameImpl(src, 64, 48, 48, 32, mode, true, true, i % 60 - 10, 5);
            if (mode == FramebufferCapturer.RAW) {
                rawCalls++;
                rawBytes += out.size();
            } else {
                pngCalls++;
                if (!out.startsWith(PNG_SIGNATURE)) pngBadSignature++;
            }
            if (i % 64 == 0) {
                expectedRefusals += 2;
                try {
                    fc.convertCapturedFrameImpl(src, 64, 48, 48, 32, 2, true, false, 0, 0);
                } catch (IllegalArgumentException expected) {
                    refused++;
                }
                try {
                    fc.convertCapturedFrameImpl(src, 640, 480, 48, 32, 0, true, false, 0, 0);
                } catch (IllegalArgumentException expected) {
                    refused++;
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int total = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        ByteBuffer src = Ref.direct(Ref.pattern(64, 48, 3));
        int warm = total / 10;
        calls(fc, src, warm);
        System.gc();
        long before = rssKb();
        calls(fc, src, total - warm);
        System.gc();
        long after = rssKb();
        long growth = after - before;
        System.out.println("VmRSS after " + warm + " warm-up calls: " + before + " kB; after "
                + total + " calls: " + after + " kB; growth " + growth + " kB");
        // Per-call leak of the smallest output (48*32*3 = 4608 B) over 90,000 calls ~ 405 MB.
        Ref.check(growth < 48 * 1024, "RSS grew by " + growth + " kB over " + (total - warm) + " calls (bound 48 MB)");
        Ref.check(rawCalls + pngCalls == total, (rawCalls + pngCalls) + " of " + total + " calls returned");
        Ref.check(rawBytes == rawCalls * 48 * 32 * 3, "every RAW output is 48x32x3 bytes (" + rawBytes + " in all)");
        Ref.check(pngBadSignature == 0, pngBadSignature + " PNG outputs lack the PNG signature");
        Ref.check(refused == expectedRefusals, refused + " of " + expectedRefusals + " bad calls refused");
        Ref.finish("MemoryTest");
    }
}
