package cgtest;

import com.kyhsgeekcode.minecraftenv.VulkanMetalZerocopy;

/**
 * The VulkanMetalZerocopy natives on a build that is not for Apple: bad
 * arguments are IllegalArgumentException (checked first, as on a Mac), valid
 * ones are UnsupportedOperationException saying the path is macOS-only, and
 * the JVM and the library stay usable after each. Expected exceptions come
 * from docs/architecture.md's "Bad input" table.
 */
public final class MetalZerocopyUnsupportedTest {
    private static int failures = 0;

    private interface Call {
        void run() throws Exception;
    }

    private static void expect(String name, Class<? extends Throwable> want, String mustContain,
                               Call call) {
        try {
            call.run();
            fail(name + ": returned normally, expected " + want.getSimpleName());
        } catch (Throwable t) {
            if (t.getClass() != want) {
                fail(name + ": got " + t + ", expected " + want.getSimpleName());
            } else if (mustContain != null
                    && (t.getMessage() == null || !t.getMessage().contains(mustContain))) {
                fail(name + ": message \"" + t.getMessage() + "\" lacks \"" + mustContain + "\"");
            } else {
                System.out.println("ok   " + name + ": " + t.getMessage());
            }
        }
    }

    private static void fail(String msg) {
        failures++;
        System.out.println("FAIL " + msg);
    }

    public static void main(String[] args) {
        final VulkanMetalZerocopy z = VulkanMetalZerocopy.INSTANCE;
        final Class<IllegalArgumentException> iae = IllegalArgumentException.class;
        final Class<UnsupportedOperationException> uoe = UnsupportedOperationException.class;

        for (int round = 0; round < 3; round++) {
            // Bad sizes: IllegalArgumentException naming the values.
            expect("create 0x360", iae, "0x360", () -> z.createSharedIOSurfaceImpl(0, 360));
            expect("create 640x-1", iae, "640x-1", () -> z.createSharedIOSurfaceImpl(640, -1));
            expect("create 16385x1", iae, "16385", () -> z.createSharedIOSurfaceImpl(16385, 1));
            expect("create MIN_VALUE", iae, null,
                   () -> z.createSharedIOSurfaceImpl(Integer.MIN_VALUE, Integer.MIN_VALUE));
            // Handles 0 and -1, and bad pids.
            expect("port handle 0", iae, "ioSurfacePtr 0",
                   () -> z.createMachPortForIOSurfaceImpl(0L, 1234));
            expect("port handle -1", iae, "ioSurfacePtr -1",
                   () -> z.createMachPortForIOSurfaceImpl(-1L, 1234));
            expect("port pid 0", iae, "pythonPid 0",
                   () -> z.createMachPortForIOSurfaceImpl(0x7f0000001000L, 0));
            expect("port pid -7", iae, "pythonPid -7",
                   () -> z.createMachPortForIOSurfaceImpl(0x7f0000001000L, -7));
            expect("destroy handle 0", iae, "ioSurfacePtr 0", () -> z.destroyIOSurfaceImpl(0L));
            expect("destroy handle -1", iae, "ioSurfacePtr -1", () -> z.destroyIOSurfaceImpl(-1L));

            // Valid arguments: the path is not built here.
            expect("create 640x360", uoe, "macOS-only", () -> z.createSharedIOSurfaceImpl(640, 360));
            expect("create 1x1", uoe, "macOS-only", () -> z.createSharedIOSurfaceImpl(1, 1));
            expect("port", uoe, "macOS-only",
                   () -> z.createMachPortForIOSurfaceImpl(0x7f0000001000L, 1234));
            expect("destroy", uoe, "macOS-only", () -> z.destroyIOSurfaceImpl(0x7f0000001000L));
        }

        if (failures != 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all VulkanMetalZerocopy checks passed");
    }
}
