package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Producer half of the Python consumer check: renders the known top-down
 * image of consumer_check.py (same formula, computed here in Java), hands it
 * to convertCapturedFrameImpl with flipVertically = true the way the mod does
 * with a top-down frame, and writes the RAW and PNG bytes to
 * <dir>/<w>x<h>_to_<tw>x<th>.{raw,png}.
 */
public final class ConsumerFrames {
    static byte[] topDown(int w, int h) {
        byte[] px = new byte[w * h * 4];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int i = (y * w + x) * 4;
                px[i] = (byte) (x * 7 + y * 3);
                px[i + 1] = (byte) (x * 5 + y * 11 + 40);
                px[i + 2] = (byte) (x * y + 13);
                px[i + 3] = (byte) (x + y); // alpha must be dropped
            }
        }
        return px;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        Files.createDirectories(dir);
        int[][] cases = {{64, 48, 64, 48}, {64, 48, 32, 24}, {854, 480, 128, 128}, {33, 17, 33, 17}};
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        for (int[] c : cases) {
            ByteBuffer src = ByteBuffer.allocateDirect(c[0] * c[1] * 4);
            src.put(topDown(c[0], c[1])).clear();
            String base = c[0] + "x" + c[1] + "_to_" + c[2] + "x" + c[3];
            Files.write(dir.resolve(base + ".raw"), fc.convertCapturedFrameImpl(
                    src, c[0], c[1], c[2], c[3], FramebufferCapturer.RAW, true, false, 0, 0).toByteArray());
            Files.write(dir.resolve(base + ".png"), fc.convertCapturedFrameImpl(
                    src, c[0], c[1], c[2], c[3], FramebufferCapturer.PNG, true, false, 0, 0).toByteArray());
            System.out.println("wrote " + base + ".raw/.png");
        }
    }
}
