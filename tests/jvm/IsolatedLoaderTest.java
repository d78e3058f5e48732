package cgtest;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the stubs and libnative-lib.so in a class loader whose parent is the
 * platform loader, so the real protobuf jar is invisible:
 *   missing  <stubs.jar> <test.jar>            protobuf absent: a clear
 *            IllegalStateException, the pending ClassNotFound cleared, the
 *            library still usable for argument checks;
 *   fallback <stubs.jar> <test.jar> <fake.jar> a protobuf with ByteString but
 *            no UnsafeByteOperations: ByteString.copyFrom is used, bytes right.
 */
public final class IsolatedLoaderTest {
    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (int i = 1; i < args.length; i++) urls.add(new File(args[i]).toURI().toURL());
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            Class<?> probe = loader.loadClass("cgtest.IsolatedProbe");
            Ref.check(probe.getClassLoader() == loader, "probe loaded by the isolated loader");
            String err = (String) probe.getMethod("run", String.class).invoke(null, args[0]);
            Ref.check(err.isEmpty(), args[0] + ": " + err);
        }
        Ref.finish("IsolatedLoaderTest " + args[0]);
    }
}
