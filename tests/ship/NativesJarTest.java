package cgship;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import com.kyhsgeekcode.minecraftenv.NativeLoader;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Run with a java.library.path that does not hold libnative-lib:
 *   jar <cache dir>     the natives jar is on the classpath: the library comes
 *                       out of it (over a corrupt file planted where the cache
 *                       keeps it) and a native converts a hand-written frame;
 *   absent <cache dir>  no natives jar: UnsatisfiedLinkError naming the
 *                       missing resource.
 */
public final class NativesJarTest {
    private static int failures;

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAIL " + what);
            failures++;
        }
    }

    private static void deleteTree(Path p) throws java.io.IOException {
        if (!Files.exists(p)) return;
        try (java.util.stream.Stream<Path> all = Files.walk(p)) {
            for (Path q : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(q);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path cache = Paths.get(args[1]);
        deleteTree(cache); // every run starts with an empty cache
        System.setProperty("minecraft_capture.natives.dir", cache.toString());
        String res = NativeLoader.resourceName();
        System.out.println("platform " + NativeLoader.platform() + ", resource " + res);
        if (mode.equals("absent")) {
            try {
                NativeLoader.load();
                check(false, "load() without the natives jar succeeded from " + NativeLoader.loadedFrom());
            } catch (UnsatisfiedLinkError e) {
                System.out.println("expected: " + e.getMessage());
                check(e.getMessage().contains("no resource " + res), "message names the resource: " + e.getMessage());
            }
        } else {
            byte[] lib;
            try (InputStream in = NativesJarTest.class.getClassLoader().getResourceAsStream(res)) {
                check(in != null, res + " is on the classpath");
                lib = in.readAllBytes();
            }
            // Plant a corrupt file where the cache keeps this build's library.
            byte[] h = MessageDigest.getInstance("SHA-256").digest(lib);
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < 8; i++) hex.append(String.format("%02x", h[i] & 0xff));
            Path planted = cache.resolve(hex.toString()).resolve(System.mapLibraryName("native-lib"));
            Files.createDirectories(planted.getParent());
            Files.write(planted, new byte[] {0x7f, 'E', 'L', 'F', 0});

            // The stub's class initialiser goes through NativeLoader.load().
            ByteBuffer src = ByteBuffer.allocateDirect(16);
            src.put(new byte[] {1, 2, 3, (byte) 255, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0}).flip();
            ByteString out = FramebufferCapturer.INSTANCE.convertCapturedFrameImpl(
                    src, 2, 2, 2, 2, FramebufferCapturer.RAW, true, false, 0, 0);
            byte[] want = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
            check(Arrays.equals(out.toByteArray(), want), "RAW bytes " + Arrays.toString(out.toByteArray()));
            String from = NativeLoader.loadedFrom();
            System.out.println("loaded from " + from);
            check(planted.toString().equals(from), "loaded from the cache file " + planted + ", not " + from);
            check(Arrays.equals(Files.readAllBytes(planted), lib), "the corrupt cached file was replaced");
            NativeLoader.load();
            check(from.equals(NativeLoader.loadedFrom()), "a second load() changes nothing");
        }
        if (failures > 0) {
            System.err.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("NativesJarTest " + mode + ": OK");
    }
}
