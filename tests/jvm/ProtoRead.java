package cgtest;

import cgcapture.wire.ObservationProto.ObservationSpaceMessage;
import java.nio.file.Files;
import java.nio.file.Paths;

/** Parses the message written by C through protobuf-c (proto_check write). */
public final class ProtoRead {
    public static void main(String[] args) throws Exception {
        ObservationSpaceMessage m = ObservationSpaceMessage.parseFrom(Files.readAllBytes(Paths.get(args[0])));
        byte[] img = m.getImage().toByteArray();
        Ref.check(img.length == 7 * 5 * 3, "image length " + img.length);
        boolean ok = true;
        for (int i = 0; i < img.length; i++) ok &= img[i] == (byte) (i * 7 + 3);
        Ref.check(ok, "image bytes");
        byte[] img2 = m.getImage2().toByteArray();
        Ref.check(img2.length == 3 && img2[0] == 'a' && img2[2] == 'c', "image_2 bytes");
        byte[] h = m.getIpcHandle().toByteArray();
        ok = h.length == 68;
        for (int i = 0; ok && i < 68; i++) ok = h[i] == (byte) (255 - i);
        Ref.check(ok, "ipc_handle bytes");
        Ref.check(m.getDepthCount() == 5, "depth count " + m.getDepthCount());
        for (int i = 0; i < m.getDepthCount(); i++)
            Ref.check(m.getDepth(i) == 0.5f * i + 0.125f, "depth[" + i + "] = " + m.getDepth(i));
        Ref.finish("ProtoRead");
    }
}
