package cgtest;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Builds an ObservationSpaceMessage the way the mod does (image from
 * convertCapturedFrameImpl RAW, image_2 PNG, depth, a 68-byte ipc_handle)
 * and writes it to <dir>/observation.bin, with the Java reference image in
 * <dir>/expected_image.bin, for the C decoder test (proto_check check).
 */
public final class ProtoWrite {
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        Files.createDirectories(dir);
        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        byte[] rgba = Ref.pattern(30, 20, 42);
        ByteBuffer src = Ref.direct(rgba);
        ByteString raw = fc.convertCapturedFrameImpl(src, 30, 20, 16, 12, 0, true, true, 5, 4);
        ByteString png = fc.convertCapturedFrameImpl(src, 30, 20, 16, 12, 1, true, true, 5, 4);
        byte[] want = Ref.convert(rgba, 30, 20, 16, 12, true, true, 5, 4);
        Ref.checkBytes(raw.toByteArray(), want, "RAW image in Java");
        byte[] handle = new byte[68];
        for (int i = 0; i < handle.length; i++) handle[i] = (byte) (i * 3 + 1);
        ObservationSpaceMessage.Builder b = ObservationSpaceMessage.newBuilder()
                .setImage(raw).setImage2(png).setIpcHandle(ByteString.copyFrom(handle));
        for (int i = 0; i < 10; i++) b.addDepth(i * 0.25f - 1.0f);
        Files.write(dir.resolve("observation.bin"), b.build().toByteArray());
        Files.write(dir.resolve("expected_image.bin"), want);
        Ref.finish("ProtoWrite");
    }
}
