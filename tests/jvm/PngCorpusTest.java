package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import javax.imageio.ImageIO;

/**
 * Every frame of bench/corpus (real game frames) through convertCapturedFrameImpl as the mod
 * hands it (RGBA, bottom-up, flipped upright): RAW equals the Java reference (Ref.convert) and
 * the PNG, decoded by ImageIO, equals it too. Frame sizes change from call to call on one
 * thread, small to large and back, so the per-thread PNG scratch grows and is reused.
 */
public final class PngCorpusTest {
    public static void main(String[] args) throws Exception {
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        String dir = System.getProperty("cg.corpus", "");
        File[] fs = dir.isEmpty() ? null : new File(dir).listFiles((d, n) -> n.endsWith(".png"));
        Ref.check(fs != null && fs.length >= 12, "corpus frames in '" + dir + "'");
        Arrays.sort(fs, Comparator.comparingLong(File::length));
        File[] order = Arrays.copyOf(fs, fs.length * 2);
        for (int i = 0; i < fs.length; i++) order[fs.length + i] = fs[fs.length - 1 - i];
        for (File f : order) {
            BufferedImage img = ImageIO.read(f);
            int w = img.getWidth(), h = img.getHeight();
            byte[] rgba = new byte[w * h * 4];
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int p = img.getRGB(x, h - 1 - y), o = (y * w + x) * 4; // bottom-up
                    rgba[o] = (byte) (p >> 16);
                    rgba[o + 1] = (byte) (p >> 8);
                    rgba[o + 2] = (byte) p;
                    rgba[o + 3] = (byte) 0xff;
                }
            ByteBuffer b = Ref.direct(rgba);
            byte[] want = Ref.convert(rgba, w, h, w, h, true, false, 0, 0);
            byte[] raw = fc.convertCapturedFrameImpl(b, w, h, w, h, FramebufferCapturer.RAW,
                    true, false, 0, 0).toByteArray();
            Ref.checkBytes(raw, want, f.getName() + " RAW");
            byte[] png = fc.convertCapturedFrameImpl(b, w, h, w, h, FramebufferCapturer.PNG,
                    true, false, 0, 0).toByteArray();
            Ref.checkBytes(Ref.decodePng(png, w, h), want, f.getName() + " PNG decoded by ImageIO");
        }
        Ref.finish("PngCorpusTest");
    }
}
