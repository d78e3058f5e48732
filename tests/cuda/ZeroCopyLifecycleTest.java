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

    /** Streams whose fd the library was handed: never closed here, since the library closed
     *  the fd and a later close could hit a reused number. */
    private static final java.util.List<Object> HANDED_OVER = new java.util.ArrayList<>();

    /** The fds of /proc/self/fd that are /dev/null now (the listing's own fd is gone by then). */
    private static java.util.Set<Integer> devNullFds() throws java.io.IOException {
        java.util.Set<Integer> fds = new java.util.HashSet<>();
        for (String n : new java.io.File("/proc/self/fd").list()) {
            try {
                if (java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd", n))
                        .toString().equals("/dev/null"))
                    fds.add(Integer.parseInt(n));
            } catch (java.nio.file.NoSuchFileException gone) {
                // the listing's own directory fd
            }
        }
        return fds;
    }

    /** A real open fd (of /dev/null) and its number. */
    private static int openFd() throws java.io.IOException {
        java.util.Set<Integer> before = devNullFds();
        HANDED_OVER.add(new java.io.FileInputStream("/dev/null"));
        java.util.Set<Integer> after = devNullFds();
        after.removeAll(before);
        if (after.size() != 1) throw new IllegalStateException("new /dev/null fds: " + after);
        return after.iterator().next();
    }

    /** fd still the /dev/null this test opened: a number the library closed may already be
     *  reused by another JVM thread (seen: a cgroup memory.stat read), which is not a leak. */
    private static boolean fdOpen(int fd) {
        try {
            return java.nio.file.Files.readSymbolicLink(
                    java.nio.file.Path.of("/proc/self/fd", Integer.toString(fd))).toString()
                    .equals("/dev/null");
        } catch (java.io.IOException closed) {
            return false;
        }
    }

    interface Import {
        void run(long fd) throws Throwable;
    }

    /** A handle given to the native is consumed whatever the outcome: closed after `call`. */
    private static void consumed(String name, Import call) throws java.io.IOException {
        int fd = openFd();
        try {
            call.run(fd);
        } catch (Throwable t) {
            // the outcome is checked elsewhere; here only the fd
        }
        if (fdOpen(fd)) {
            String to = "?";
            try {
                to = java.nio.file.Files.readSymbolicLink(
                        java.nio.file.Path.of("/proc/self/fd", Integer.toString(fd))).toString();
            } catch (java.io.IOException gone) {
                // closed meanwhile
            }
            fail(name + ": fd " + fd + " still open after the call (-> " + to + ")");
        }
        else System.out.println("ok   " + name + ": fd " + fd + " closed by the library");
    }

    private static void fail(String msg) {
        failures++;
        System.out.println("FAIL " + msg);
    }

    public static void main(String[] args) throws java.io.IOException {
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
        // A real fd is the library's whatever the outcome (docs/mod-integration.md, "How a mod consumes it").
        // A control fd never handed over must stay open, and the count of open
        // /dev/null fds must come back to where it was.
        int control = openFd();
        java.util.Set<Integer> start = devNullFds();
        consumed("fd with a null UUID", fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, null, 8, 8, false));
        consumed("fd with a 15-byte UUID",
                fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, new byte[15], 8, 8, false));
        consumed("fd with width 0", fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 0, 8, false));
        consumed("fd with a short allocation",
                fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 255, uuid, 8, 8, false));
        consumed("fd with a zero UUID", fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 8, 8, false));
        consumed("fd with a 17-byte UUID",
                fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, new byte[17], 8, 8, false));
        consumed("fd with height 0", fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 4096, uuid, 8, 0, false));
        consumed("fd with width 16385",
                fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 1L << 40, uuid, 16385, 8, false));
        consumed("fd with a negative allocation",
                fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, -5, uuid, 8, 8, false));
        consumed("fd with allocation 0", fd -> vk.importVulkanMemoryAndInitCudaIpcImpl(fd, 0, uuid, 8, 8, false));
        vk.destroyCudaImportImpl();
        if (!fdOpen(control)) fail("fd ownership: the control fd " + control + " was closed");
        java.util.Set<Integer> left = devNullFds();
        left.removeAll(start);
        if (!left.isEmpty()) fail("fd ownership: fds left open by refused imports: " + left);
        else System.out.println("ok   fd ownership: 10 refused imports, no fd left open, control open");

        // A Win32 handle on Linux: not importable here, whatever the build.
        expect("Win32 handle on Linux", UnsupportedOperationException.class, null,
                () -> vk.importVulkanMemoryAndInitCudaIpcImpl(77, 4096, uuid, 8, 8, true));
        expect("copy after failed import", IllegalStateException.class, null,
                vk::copyImportedArrayToCudaSharedMemoryImpl);

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

    private static void check(String name, Throwable t, String mustContain) {
        String m = t.getMessage();
        if (m == null || !m.toLowerCase().contains(mustContain.toLowerCase()))
            fail(name + ": message \"" + m + "\" lacks \"" + mustContain + "\"");
        else
            System.out.println("ok   " + name + ": " + t.getClass().getSimpleName() + ": " + m);
    }
}
