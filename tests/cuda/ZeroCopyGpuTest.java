package cgtest;

import com.google.protobuf.ByteString;
import com.kyhsgeekcode.minecraftenv.VulkanCudaZerocopy;

/**
 * The Vulkan zero-copy path through the JNI natives, as the mod drives it,
 * on a real GPU: a test-only native helper (libzc_helper) plays the mod's
 * Vulkan side and exports the image memory; Java imports it with
 * importVulkanMemoryAndInitCudaIpcImpl, copies each frame with
 * copyImportedArrayToCudaSharedMemoryImpl, and a second process
 * (tests/python/consumer.py) opens the 68-byte handle and checks every frame.
 * Then: double import, destroy, destroy again, re-import at another size,
 * and a non-matching UUID. Exits 77 without Vulkan or a CUDA device.
 *
 * Usage: ZeroCopyGpuTest <consumer.py>   (CG_PYTHON names the interpreter)
 */
public final class ZeroCopyGpuTest {
    static native long[] vkSetup(int w, int h, byte[] uuidOut);
    static native long vkExportFd();
    static native boolean vkFrame(int f);
    static native void vkTeardown();

    private static int failures;

    private static void check(boolean ok, String what) {
        if (ok) {
            System.out.println("ok   " + what);
        } else {
            failures++;
            System.out.println("FAIL " + what);
        }
    }

    private static void skip(String why) {
        System.out.println("SKIP: " + why);
        System.exit(77);
    }

    /** Import at w x h and run `frames` frames past a consumer process. */
    private static void run(String consumer, int w, int h, int frames, boolean first) throws Exception {
        VulkanCudaZerocopy vk = VulkanCudaZerocopy.INSTANCE;
        byte[] uuid = new byte[16];
        long[] fdSize = vkSetup(w, h, uuid);
        if (fdSize == null) skip("no Vulkan device with exportable memory");
        ByteString handle;
        try {
            handle = vk.importVulkanMemoryAndInitCudaIpcImpl(fdSize[0], fdSize[1], uuid, w, h, false);
        } catch (UnsupportedOperationException e) {
            skip("library built without CUDA: " + e.getMessage());
            return;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            String m = e.getMessage() == null ? "" : e.getMessage();
            if (first && (m.contains("cudaErrorNoDevice") || m.contains("cudaErrorInsufficientDriver")))
                skip("no CUDA device: " + e.getMessage());
            throw e;
        }
        check(handle.size() == 68, w + "x" + h + ": handle has 68 bytes (" + handle.size() + ")");
        try {
            vk.importVulkanMemoryAndInitCudaIpcImpl(vkExportFd(), fdSize[1], uuid, w, h, false);
            check(false, "second import refused");
        } catch (IllegalStateException e) {
            check(true, "second import: " + e.getMessage());
        }

        Consumer c = new Consumer(consumer, handle, w, h, false);
        if (c.greeting != null && c.greeting.startsWith("SKIP")) skip("consumer: " + c.greeting);
        check("READY".equals(c.greeting), "consumer opened the handle (" + c.greeting + ")");
        int ok = 0;
        for (int f = 0; f < frames; f++) {
            if (!vkFrame(f)) {
                check(false, "helper frame " + f);
                break;
            }
            vk.copyImportedArrayToCudaSharedMemoryImpl();
            String line = c.frame(f);
            if (line == null || !line.startsWith("OK")) {
                check(false, w + "x" + h + " frame " + f + ": consumer said " + line);
                break;
            }
            ok++;
        }
        int rc = c.finish();
        check(ok == frames && rc == 0, w + "x" + h + ": consumer process checked " + ok + "/" + frames
                + " frames byte-exact (exit " + rc + ")");
        vk.destroyCudaImportImpl();
        vk.destroyCudaImportImpl(); // twice: harmless
        try {
            vk.copyImportedArrayToCudaSharedMemoryImpl();
            check(false, "copy after destroy refused");
        } catch (IllegalStateException e) {
            check(true, "copy after destroy: IllegalStateException");
        }
    }

    public static void main(String[] args) throws Exception {
        System.loadLibrary("zc_helper");
        String consumer = args[0];
        run(consumer, 640, 360, 40, true);
        run(consumer, 1280, 720, 20, false); // re-initialised at another size
        run(consumer, 33, 17, 10, false);

        // A UUID that matches no CUDA device: IllegalArgumentException, library still usable.
        byte[] uuid = new byte[16];
        long[] fdSize = vkSetup(64, 64, uuid);
        uuid[3] ^= (byte) 0x5a;
        try {
            VulkanCudaZerocopy.INSTANCE.importVulkanMemoryAndInitCudaIpcImpl(fdSize[0], fdSize[1], uuid, 64, 64, false);
            check(false, "non-matching UUID refused");
        } catch (IllegalArgumentException e) {
            check(e.getMessage().contains("UUID"), "non-matching UUID: " + e.getMessage());
        }
        run(consumer, 64, 64, 5, false); // and the library still works
        vkTeardown();
        if (failures != 0) {
            System.out.println(failures + " failure(s)");
            System.exit(1);
        }
        System.out.println("all JVM zero-copy GPU checks passed");
    }
}
