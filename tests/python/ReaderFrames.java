package cgtest;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Producer half of the Python reader's checks (test_reader.py): the library's
 * own output for known frames, written to files.
 *
 *   frames DIR: convertCapturedFrameImpl RAW and PNG of ConsumerFrames' known
 *       image (<base>.raw, <base>.png), and messages encoded by protobuf-java
 *       (message.pb with the four fields, message_unknown.pb with unknown
 *       fields of every wire type around them).
 *   depth DIR: captureDepthImpl of GlHelper's known depth quads on a real
 *       GL context, linearised and raw, for both clip ranges
 *       (depth_<z01>_{lin,raw}.f32, little-endian float32) and in a message
 *       (depth_<z01>.pb). Exits 77 without an EGL context.
 */
public final class ReaderFrames {
    static final FramebufferCapturer FC = FramebufferCapturer.INSTANCE;
    // The depth scene: quads x0, y0, x1, y1 (pixels, bottom-left origin), eye distance.
    static final int DW = 37, DH = 19;
    static final double NEAR = 0.1, FAR = 100.0;
    static final double[] QUADS = {
        0, 0, 7, 19, 0.1, 7, 0, 14, 19, 1.0, 14, 0, 21, 19, 2.5,
        21, 0, 28, 10, 10.0, 28, 0, 33, 19, 50.0, 21, 10, 28, 19, 99.0,
    };

    static byte[] handleBytes() {
        byte[] h = new byte[68];
        for (int i = 0; i < 64; i++) h[i] = (byte) (i * 37 + 11);
        h[64] = 3; // device ordinal 3, little-endian int32
        return h;
    }

    static void frames(Path dir) throws Exception {
        // srcW, srcH, targetW, targetH, flipVertically
        int[][] cases = {{64, 48, 64, 48, 1}, {64, 48, 32, 24, 1}, {33, 17, 33, 17, 0},
                         {854, 480, 128, 128, 1}};
        byte[] raw0 = null, png0 = null;
        for (int[] c : cases) {
            ByteBuffer src = ByteBuffer.allocateDirect(c[0] * c[1] * 4);
            src.put(ConsumerFrames.topDown(c[0], c[1])).clear();
            boolean flip = c[4] != 0;
            String base = c[0] + "x" + c[1] + "_to_" + c[2] + "x" + c[3] + (flip ? "_flip" : "_noflip");
            byte[] raw = FC.convertCapturedFrameImpl(src, c[0], c[1], c[2], c[3], FramebufferCapturer.RAW,
                                                     flip, false, 0, 0).toByteArray();
            byte[] png = FC.convertCapturedFrameImpl(src, c[0], c[1], c[2], c[3], FramebufferCapturer.PNG,
                                                     flip, false, 0, 0).toByteArray();
            Files.write(dir.resolve(base + ".raw"), raw);
            Files.write(dir.resolve(base + ".png"), png);
            if (raw0 == null) {
                raw0 = raw;
                png0 = png;
            }
            System.out.println("wrote " + base + ".raw/.png");
        }
        ObservationSpaceMessage.Builder b = ObservationSpaceMessage.newBuilder()
                .setImage(ByteString.copyFrom(raw0)).setImage2(ByteString.copyFrom(png0))
                .setIpcHandle(ByteString.copyFrom(handleBytes()));
        for (int i = 0; i < 1000; i++) b.addDepth(i * 0.37f - 5f);
        Files.write(dir.resolve("message.pb"), b.build().toByteArray());
        // The mod's full schema has many more fields: they must be skipped.
        UnknownFieldSet unknown = UnknownFieldSet.newBuilder()
                .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(300).addVarint(-1L).build())
                .addField(3, UnknownFieldSet.Field.newBuilder().addFixed64(0x1122334455667788L).build())
                .addField(4, UnknownFieldSet.Field.newBuilder()
                        .addLengthDelimited(ByteString.copyFromUtf8("not an image")).build())
                .addField(5, UnknownFieldSet.Field.newBuilder().addFixed32(0xCAFEBABE).build())
                .addField(6, UnknownFieldSet.Field.newBuilder().addGroup(UnknownFieldSet.newBuilder()
                        .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                        .build()).build())
                .addField(1000, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                .build();
        Files.write(dir.resolve("message_unknown.pb"), b.setUnknownFields(unknown).build().toByteArray());
        System.out.println("wrote message.pb, message_unknown.pb");
    }

    static void write(Path p, float[] v) throws Exception {
        ByteBuffer bb = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bb.asFloatBuffer().put(v);
        Files.write(p, bb.array());
    }

    static int depth(Path dir) throws Exception {
        String why = GlHelper.open();
        if (why == null) {
            System.out.println("SKIP: no EGL context");
            return 77;
        }
        int[] scene = GlHelper.createScene(DW, DH);
        if (scene == null) throw new IllegalStateException("createScene failed");
        for (boolean z01 : new boolean[] {false, true}) {
            int rc = GlHelper.drawDepth(scene[0], QUADS, NEAR, FAR, z01);
            if (rc == 2) {
                System.out.println("glClipControl unavailable: z01=true not written");
                continue;
            }
            if (rc != 0) throw new IllegalStateException("drawDepth z01=" + z01 + ": " + rc);
            float[] lin = FC.captureDepthImpl(scene[2], DW, DH, true, (float) NEAR, (float) FAR, z01);
            float[] raw = FC.captureDepthImpl(scene[2], DW, DH, false, 0f, 0f, z01);
            write(dir.resolve("depth_" + z01 + "_lin.f32"), lin);
            write(dir.resolve("depth_" + z01 + "_raw.f32"), raw);
            ObservationSpaceMessage.Builder b = ObservationSpaceMessage.newBuilder();
            for (float f : lin) b.addDepth(f);
            Files.write(dir.resolve("depth_" + z01 + ".pb"), b.build().toByteArray());
            System.out.println("wrote depth z01=" + z01);
        }
        return 0;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[1]);
        Files.createDirectories(dir);
        int rc = 0;
        if (args[0].equals("frames")) frames(dir);
        else if (args[0].equals("depth")) rc = depth(dir);
        else throw new IllegalArgumentException("mode: frames or depth, not " + args[0]);
        System.exit(rc);
    }
}
