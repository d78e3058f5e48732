package com.kyhsgeekcode.minecraftenv;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Loads libnative-lib the way the mod's objects need it: from
 * {@code java.library.path} when it is there, otherwise from the natives jar
 * on the classpath ({@code minecraft-capture-natives-<os>-<arch>-<version>.jar}, resource
 * {@code com/kyhsgeekcode/minecraftenv/natives/<os>-<arch>/<System.mapLibraryName("native-lib")>}).
 * The resource lies under this class's package, not under the generic
 * {@code natives/<os>-<arch>/} of other libraries' jars, so another jar on the
 * classpath with a library of the same name there cannot shadow it.
 *
 * <p>The resource is copied once into a per-user cache folder named after
 * the SHA-256 of its bytes ({@code <java.io.tmpdir>/minecraft-capture-natives-<user>/<hash>/},
 * or the folder in the system property {@code minecraft_capture.natives.dir}),
 * so a new build never reuses an old file and a second start copies nothing.
 * A cached file whose bytes differ from the resource is replaced. The copy is
 * written next to its final name and renamed, so two JVMs starting at once
 * never load a half-written file.
 *
 * <p>In the mod (Kotlin), the objects' {@code init { System.loadLibrary("native-lib") }}
 * becomes {@code init { NativeLoader.load() }}. Safe to call from any thread, any
 * number of times.
 */
public final class NativeLoader {
    public static final String LIBRARY = "native-lib";

    /** Where the natives jars keep the library: namespaced to this project. */
    public static final String RESOURCE_ROOT = "com/kyhsgeekcode/minecraftenv/natives/";

    private static String loadedFrom;

    private NativeLoader() {}

    /** Loads the library once; later calls return at once. */
    public static synchronized void load() {
        if (loadedFrom != null) return;
        try {
            System.loadLibrary(LIBRARY);
            loadedFrom = "java.library.path";
            return;
        } catch (UnsatisfiedLinkError notOnPath) {
            Path file;
            try {
                file = extract();
            } catch (IOException | RuntimeException e) {
                UnsatisfiedLinkError err = new UnsatisfiedLinkError(
                        "lib" + LIBRARY + " is not on java.library.path and could not be taken from"
                        + " the natives jar: " + e.getMessage());
                err.addSuppressed(notOnPath);
                err.addSuppressed(e);
                throw err;
            }
            System.load(file.toString());
            loadedFrom = file.toString();
        }
    }

    /** "java.library.path", the absolute path of the extracted file, or null before load(). */
    public static synchronized String loadedFrom() {
        return loadedFrom;
    }

    /** "linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-aarch64", ... */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) os = "linux";
        else if (os.startsWith("windows")) os = "windows";
        else if (os.startsWith("mac") || os.startsWith("darwin")) os = "macos";
        if (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x64")) arch = "x86_64";
        else if (arch.equals("aarch64") || arch.equals("arm64")) arch = "aarch64";
        return os + "-" + arch;
    }

    /** The resource name of the library for this OS and CPU. */
    public static String resourceName() {
        return RESOURCE_ROOT + platform() + "/" + System.mapLibraryName(LIBRARY);
    }

    private static Path extract() throws IOException {
        String res = resourceName();
        byte[] bytes;
        try (InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(res)) {
            if (in == null) {
                throw new IOException("no resource " + res + " on the classpath (os.name="
                        + System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch")
                        + "): add minecraft-capture-natives-" + platform() + "-<version>.jar");
            }
            ByteArrayOutputStream buf = new ByteArrayOutputStream(1 << 20);
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) buf.write(chunk, 0, n);
            bytes = buf.toByteArray();
        }
        byte[] hash = sha256(bytes);
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < 8; i++) hex.append(String.format("%02x", hash[i] & 0xff));

        String base = System.getProperty("minecraft_capture.natives.dir");
        Path root = base != null ? Paths.get(base)
                : Paths.get(System.getProperty("java.io.tmpdir"),
                            "minecraft-capture-natives-" + System.getProperty("user.name", "user"));
        Path dir = root.resolve(hex.toString());
        createPrivateDirectories(dir);
        Path file = dir.resolve(System.mapLibraryName(LIBRARY));
        if (Files.isRegularFile(file) && Arrays.equals(sha256(Files.readAllBytes(file)), hash)) {
            return file;
        }
        Path tmp = Files.createTempFile(dir, "part-", ".tmp");
        try {
            Files.write(tmp, bytes);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE,
                           StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return file;
    }

    private static void createPrivateDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) return;
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            // Other users of a shared temp folder must not swap the library.
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from this JVM", e);
        }
    }
}
