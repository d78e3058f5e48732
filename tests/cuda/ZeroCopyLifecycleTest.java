package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.FramebufferCapturer;
import com.kyhsgeekcode.minecraftenv.VulkanCudaZerocopy;

/**
 * Zero-copy natives: every bad input and lifecycle case of docs/architecture.md
 * on any machine. The argument checks come before any CUDA call, so their
 * exceptions are the same with or without a GPU; a well-formed import on a
 * machine without a matching CUDA device must fail with an exception whose
 * message names CUDA, never crash, and leave the library usable.
 */
public final class ZeroCopyLifecycleTest {
    private static int failures;

    interface Body {
        void run() throws Throwable;
    }

    private static void expect(String name, Class<? extends Throwable> want, String mustContain, Body b) {
        try {
            b.run();
            fail(name + ": no exception, wanted " + want.getSimpleName());
        } catch (Throwable t) {
            if (t.getClass() != want) {
                fail(name + ": got " + t + ", wanted " + want.getSimpleName());
            } else if (mustContain != null
                    && (t.getMessage() == null || !t.getMessage().toLowerCase().contains(mustContain.toLowerCase()))) {
                fail(name + ": message \"" + t.getMessage() + "\" lacks \"" + mustContain + "\"");
            } else {
                System.out.println("ok   " + name + ": " + t.getClass().getSimpleName() + ": " + t.getMessage());
            }
        }
    }

    private static void fail(String msg) {
        failures++;
        System.out.println("FAIL " + msg);
    }

    public static void main(String[] args) {
        VulkanCudaZerocopy vk = VulkanCudaZerocopy.INSTANCE;
        byte[] uuid = new byte[16];

        expect("copy before import", IllegalStateException.class, "import", vk::copyImportedArrayToCudaSharedMemoryImpl);
        vk.destroyCudaImportImpl();
        vk.destroyCudaImportImpl(); // twice: harmless
        expect("copy after destroy", IllegalStateException.class, null, vk::copyImportedArrayToCudaSharedMemoryImpl);

        expect("null UUID", NullPointerException.class, "uuid",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, null, 8, 8, false));
        expect("UUID 15 bytes", IllegalArgumentException.class, "15",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, new byte[15], 8, 8, false));
        expect("UUID 17 bytes", IllegalArgumentException.class, "17",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, new byte[17], 8, 8, false));
        expect("handle -1", IllegalArgumentException.class, "-1",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(-1, 4096, uuid, 8, 8, false));
        expect("handle 0", IllegalArgumentException.class, "osHandle 0",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(0, 4096, uuid, 8, 8, false));
        expect("win32 handle -1", IllegalArgumentException.class, "Win32",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(-1, 4096, uuid, 8, 8, true));
        expect("fd beyond int", IllegalArgumentException.class, "range",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1L << 40, 4096, uuid, 8, 8, false));
        expect("width 0", IllegalArgumentException.class, "0x8",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, uuid, 0, 8, false));
        expect("height -3", IllegalArgumentException.class, "8x-3",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, uuid, 8, -3, false));
        expect("width 16385", IllegalArgumentException.class, "16385",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 1L << 40, uuid, 16385, 8, false));
        expect("allocation too small", IllegalArgumentException.class, "255",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 255, uuid, 8, 8, false));
        expect("allocation 0", IllegalArgumentException.class, "allocationSize 0",
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 0, uuid, 8, 8, false));

        // Well-formed, but no CUDA device has an all-zero UUID (and on a
        // machine without a GPU there is no CUDA device at all). fd 1000000
        // is not open, so the library closing it on failure is harmless.
        try {
            vk.importVulkanMemoryAndInitCudaIpcImpl(1000000, 4096, uuid, 8, 8, false);
            fail("import with a zero UUID succeeded");
        } catch (IllegalStateException e) {
            fail("import with a zero UUID: " + e);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            check("zero UUID", e, "cuda");
        } catch (RuntimeException e) {
            check("zero UUID (no CUDA device)", e, "cudaError");
        }
        // A Win32 handle on Linux: not importable here, whatever the build.
        expect("Win32 handle on Linux", UnsupportedOperationException.class, null,
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(77, 4096, uuid, 8, 8, true));
        expect("copy after failed import", IllegalStateException.class, null,
                vk::copyImportedArrayToCudaSharedMemoryImpl);

        fdOwnership(vk, uuid);

        FramebufferCapturer fc = FramebufferCapturer.INSTANCE;
        expect("GL capture before init", IllegalStateException.class, "initializeZerocopyImpl",
                () -> fc.captureFramebufferZerocopyImpl(1, 64, 64, false, 0, 0));
        expect("GL capture texture 0", IllegalArgumentException.class, "texture id 0",
                () -> fc.captureFramebufferZerocopyImpl(0, 64, 64, false, 0, 0));
        expect("GL capture target 0", IllegalArgumentException.class, "0x64",
                () -> fc.captureFramebufferZerocopyImpl(1, 0, 64, false, 0, 0));
        expect("GL init width 0", IllegalArgumentException.class, "0x10",
                () -> fc.initializeZerocopyImpl(0, 10, 0));
        expect("GL init 16385", IllegalArgumentException.class, "16385",
                () -> fc.initializeZerocopyImpl(16385, 10, 0));
        // No GL context is current on this thread.
        try {
            ByteString h = fc.initializeZerocopyImpl(64, 64, 0);
            fail("GL init without a context returned " + h);
        } catch (IllegalStateException e) {
            check("GL init without a context", e, "context");
        } catch (UnsupportedOperationException e) {
            check("GL init in a build without CUDA", e, "CUDA");
        } catch (RuntimeException e) {
            fail("GL init without a context: " + e);
        }
        expect("GL capture after failed init", IllegalStateException.class, null,
                () -> fc.captureFramebufferZerocopyImpl(1, 64, 64, false, 0, 0));

        if (failures != 0) {
            System.out.println(failures + " failure(s)");
            System.exit(1);
        }
        System.out.println("all zero-copy lifecycle checks passed");
    }

    /** Files kept reachable so no cleaner ever closes an fd number the library closed. */
    private static final java.util.List<java.io.RandomAccessFile> KEEP = new java.util.ArrayList<>();

    private static java.util.Set<String> fdSet() {
        String[] names = new java.io.File("/proc/self/fd").list();
        return new java.util.HashSet<>(java.util.Arrays.asList(names == null ? new String[0] : names));
    }

    private static boolean isDevNull(String fd) {
        try {
            return java.nio.file.Files.readSymbolicLink(java.nio.file.Paths.get("/proc/self/fd/" + fd))
                    .toString().equals("/dev/null");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static boolean fdOpen(int fd) {
        return java.nio.file.Files.exists(java.nio.file.Paths.get("/proc/self/fd/" + fd),
                java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** A real fd of this process, as a number: the new entry of /proc/self/fd. */
    private static int openFd() {
        try {
            java.util.Set<String> before = fdSet();
            before.removeIf(f -> !isDevNull(f));
            KEEP.add(new java.io.RandomAccessFile("/dev/null", "r"));
            java.util.Set<String> after = fdSet();
            after.removeAll(before);
            // The listing holds a directory fd of its own: keep /dev/null only.
            after.removeIf(f -> !isDevNull(f));
            if (after.size() != 1) throw new IllegalStateException("new fds: " + after);
            return Integer.parseInt(after.iterator().next());
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Every valid fd handed to the import is the library's whatever the
     * outcome: Java cannot close it. Each refused or failed import must
     * leave its fd closed, and nothing else; a control fd stays open.
     */
    private static void fdOwnership(VulkanCudaZerocopy vk, byte[] uuid) {
        if (!new java.io.File("/proc/self/fd").isDirectory()) {
            System.out.println("skip fd ownership: no /proc/self/fd");
            return;
        }
        int control = openFd();
        java.util.Set<String> start = fdSet();
        start.removeIf(f -> !isDevNull(f));
        String[] names = {"UUID 15 bytes", "null UUID", "width 0", "short allocation",
                          "negative allocation", "width 16385", "zero UUID (no device)",
                          "UUID 17 bytes", "height 0", "allocation 0"};
        for (int i = 0; i < names.length; i++) {
            int fd = openFd();
            try {
                switch (i) {
                    case 0: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, new byte[15], 8, 8, false); break;
                    case 1: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, null, 8, 8, false); break;
                    case 2: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 0, 8, false); break;
                    case 3: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 255, uuid, 8, 8, false); break;
                    case 4: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, -5, uuid, 8, 8, false); break;
                    case 5: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 1L << 40, uuid, 16385, 8, false); break;
                    case 6: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 8, 8, false); break;
                    case 7: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, new byte[17], 8, 8, false); break;
                    case 8: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 8, 0, false); break;
                    default: vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 0, uuid, 8, 8, false); break;
                }
                fail("fd ownership, " + names[i] + ": import returned");
            } catch (RuntimeException e) {
                // Any exception will do here; the messages are checked above.
            }
            if (fdOpen(fd)) fail("fd ownership, " + names[i] + ": refused fd " + fd + " left open");
            else System.out.println("ok   fd ownership, " + names[i] + ": fd " + fd + " closed");
        }
        vk.destroyCudaImportImpl();
        if (!fdOpen(control)) fail("fd ownership: the control fd " + control + " was closed");
        java.util.Set<String> extra = fdSet();
        extra.removeAll(start);
        extra.removeIf(f -> !isDevNull(f));
        StringBuilder what = new StringBuilder();
        for (String f : extra) {
            try {
                what.append(' ').append(f).append("->")
                    .append(java.nio.file.Files.readSymbolicLink(java.nio.file.Paths.get("/proc/self/fd/" + f)));
            } catch (java.io.IOException e) {
                what.append(' ').append(f);
            }
        }
        if (!extra.isEmpty())
            fail("fd ownership: fds opened during the refused imports:" + what);
        else System.out.println("ok   fd ownership: " + names.length + " refused imports, no fd left behind");
    }

    private static void check(String name, Throwable t, String mustContain) {
        String m = t.getMessage();
        if (m == null || !m.toLowerCase().contains(mustContain.toLowerCase()))
            fail(name + ": message \"" + m + "\" lacks \"" + mustContain + "\"");
        else
            System.out.println("ok   " + name + ": " + t.getClass().getSimpleName() + ": " + m);
    }
}
