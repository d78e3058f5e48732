package cgtest;

import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;

/**
 * A library built without libpng (CG_WITH_PNG=OFF): a PNG request throws
 * UnsupportedOperationException naming libpng (docs/architecture.md: a part not
 * built in names the missing dependency), and RAW still works afterwards.
 */
public final class PngUnsupportedTest {
    public static void main(String[] args) {
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        byte[] px = Ref.pattern(9, 7, 11);
        ByteBuffer b = Ref.direct(px);
        for (int i = 0; i < 2; i++) {
            try {
                fc.convertCapturedFrameImpl(b, 9, 7, 5, 4, FramebufferCapturer.PNG, true, false, 0, 0);
                Ref.check(false, "PNG without libpng returned");
            } catch (UnsupportedOperationException e) {
                String msg = String.valueOf(e.getMessage());
                System.out.println("ok   PNG -> UnsupportedOperationException: " + msg);
                Ref.check(msg.contains("libpng"), "message \"" + msg + "\" does not name libpng");
            } catch (Throwable t) {
                Ref.check(false, "PNG without libpng threw " + t + ", expected UnsupportedOperationException");
            }
            Ref.checkBytes(fc.convertCapturedFrameImpl(b, 9, 7, 5, 4, FramebufferCapturer.RAW, true, true, 1, 1)
                    .toByteArray(), Ref.convert(px, 9, 7, 5, 4, true, true, 1, 1), "RAW after the PNG refusal");
        }
        Ref.finish("PngUnsupportedTest");
    }
}
