package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;

/** Runs inside IsolatedLoaderTest's loader; returns "" or what went wrong. */
public final class IsolatedProbe {
    private IsolatedProbe() {}

    static Object convert(ByteBuffer b, int mode) {
        return FramebufferCapturer.INSTANCE.convertCapturedFrameImpl(b, 6, 4, 6, 4, mode, true, false, 0, 0);
    }

    public static String run(String mode) throws Exception {
        byte[] px = Ref.pattern(6, 4, 5);
        ByteBuffer b = Ref.direct(px);
        StringBuilder err = new StringBuilder();
        if (mode.equals("missing")) {
            for (int i = 0; i < 2; i++) {
                try {
                    convert(b, 0);
                    err.append("call ").append(i).append(" returned without protobuf; ");
                } catch (IllegalStateException e) {
                    if (!String.valueOf(e.getMessage()).contains("com.google.protobuf.ByteString"))
                        err.append("message does not name ByteString: ").append(e.getMessage()).append("; ");
                } catch (Throwable t) {
                    err.append("call ").append(i).append(" threw ").append(t).append("; ");
                }
            }
            try {
                convert(b, 7);
                err.append("bad mode accepted; ");
            } catch (IllegalArgumentException expected) {
                // the library is still usable
            }
        } else if (mode.equals("fallback")) {
            byte[] want = Ref.convert(px, 6, 4, 6, 4, true, false, 0, 0);
            ByteString raw = (ByteString) convert(b, 0);
            if (Ref.firstDiff(raw.toByteArray(), want) >= 0) err.append("RAW bytes differ; ");
            ByteString png = (ByteString) convert(b, 1);
            if (Ref.firstDiff(Ref.decodePng(png.toByteArray(), 6, 4), want) >= 0) err.append("PNG pixels differ; ");
            int calls = ByteString.class.getField("copyFromCalls").getInt(null);
            if (calls != 2) err.append("copyFrom called ").append(calls).append(" times, expected 2; ");
        } else {
            err.append("unknown mode ").append(mode);
        }
        return err.toString();
    }
}
