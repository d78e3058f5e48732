package cgship;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A mod's build without Gradle: resolves the API and natives jars from the
 * local Maven repository the build writes (build/maven), the way Maven and
 * Gradle do (the path from groupId/artifactId/version, the POM, the checksum
 * files), then loads the library from the natives jar in a class loader of
 * its own: nothing on java.library.path, a decoy jar with the generic
 * natives/<platform>/ layout first on the class path.
 *
 * Args: repo groupId version platform LICENSE THIRD_PARTY_NOTICES.md
 *       protobuf.jar CHANGELOG.md cacheDir
 */
public final class MavenRepoTest {
    private static int failures;

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAIL " + what);
            failures++;
        }
    }

    private static String hex(String algo, byte[] b) throws Exception {
        StringBuilder s = new StringBuilder();
        for (byte x : MessageDigest.getInstance(algo).digest(b)) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }

    private static String text(Element e, String tag) {
        NodeList l = e.getElementsByTagName(tag);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().trim();
    }

    private static Document xml(Path p) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(p.toFile());
    }

    /** Maven's layout: group dots become folders; checks the POM and every checksum. */
    private static Path resolve(Path repo, String group, String artifact, String version) throws Exception {
        Path dir = repo.resolve(group.replace('.', '/')).resolve(artifact).resolve(version);
        Path jar = dir.resolve(artifact + "-" + version + ".jar");
        Path pom = dir.resolve(artifact + "-" + version + ".pom");
        check(Files.isRegularFile(jar), "jar at " + jar);
        check(Files.isRegularFile(pom), "POM at " + pom);
        if (!Files.isRegularFile(jar) || !Files.isRegularFile(pom)) return jar;
        for (Path f : new Path[] {jar, pom}) {
            byte[] bytes = Files.readAllBytes(f);
            String[][] sums = {{"md5", "MD5"}, {"sha1", "SHA-1"}, {"sha256", "SHA-256"}};
            for (String[] s : sums) {
                Path sum = Paths.get(f + "." + s[0]);
                check(Files.isRegularFile(sum), "checksum file " + sum);
                if (Files.isRegularFile(sum)) {
                    String want = new String(Files.readAllBytes(sum), StandardCharsets.US_ASCII).trim().split("\\s")[0];
                    check(want.equals(hex(s[1], bytes)), s[0] + " of " + f.getFileName() + ": file says " + want);
                }
            }
        }
        Element p = xml(pom).getDocumentElement();
        check("project".equals(p.getTagName()), "POM root element project: " + p.getTagName());
        check("4.0.0".equals(text(p, "modelVersion")), "POM modelVersion 4.0.0");
        // The project's own coordinates: direct children, not a dependency's.
        String[][] want = {{"groupId", group}, {"artifactId", artifact}, {"version", version}, {"packaging", "jar"}};
        for (String[] w : want) {
            String got = null;
            for (org.w3c.dom.Node n = p.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element && ((Element) n).getTagName().equals(w[0])) got = n.getTextContent().trim();
            }
            check(w[1].equals(got), "POM " + w[0] + " " + w[1] + ", got " + got);
        }
        Path meta = dir.getParent().resolve("maven-metadata.xml");
        check(Files.isRegularFile(meta), "maven-metadata.xml at " + meta);
        if (Files.isRegularFile(meta)) {
            Element m = xml(meta).getDocumentElement();
            check(version.equals(text(m, "release")) && version.equals(text(m, "version")),
                  "maven-metadata.xml lists " + version);
        }
        return jar;
    }

    private static byte[] entry(JarFile jar, String name) throws Exception {
        JarEntry e = jar.getJarEntry(name);
        if (e == null) return null;
        return jar.getInputStream(e).readAllBytes();
    }

    public static void main(String[] args) throws Exception {
        Path repo = Paths.get(args[0]);
        String group = args[1], version = args[2], platform = args[3];
        byte[] license = Files.readAllBytes(Paths.get(args[4]));
        byte[] notices = Files.readAllBytes(Paths.get(args[5]));
        Path protobuf = Paths.get(args[6]);
        List<String> changelog = Files.readAllLines(Paths.get(args[7]));
        Path cache = Paths.get(args[8]);

        String first = changelog.stream().filter(l -> l.startsWith("## ")).findFirst().orElse("");
        check(first.matches("## \\[?" + version.replace(".", "\\.") + "\\]?( .*)?"),
              "CHANGELOG.md's newest entry is " + version + ": '" + first + "'");

        String lib = System.mapLibraryName("native-lib");
        Path api = resolve(repo, group, "minecraft-capture-api", version);
        Element apiPom = xml(Paths.get(api.toString().replaceAll("\\.jar$", ".pom"))).getDocumentElement();
        boolean protobufDep = false;
        NodeList deps = apiPom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            protobufDep |= "com.google.protobuf".equals(text(d, "groupId")) && "protobuf-java".equals(text(d, "artifactId"));
        }
        check(protobufDep, "the API's POM depends on com.google.protobuf:protobuf-java");
        String nativesArtifact = "minecraft-capture-natives-" + platform;
        Path natives = resolve(repo, group, nativesArtifact, version);
        check(natives.getFileName().toString().equals(nativesArtifact + "-" + version + ".jar"),
              "versioned name " + natives.getFileName());
        String res = "com/kyhsgeekcode/minecraftenv/natives/" + platform + "/" + lib;
        for (Path j : new Path[] {api, natives}) {
            try (JarFile jar = new JarFile(j.toFile())) {
                Attributes a = jar.getManifest().getMainAttributes();
                check(version.equals(a.getValue("Implementation-Version")), j.getFileName() + ": Implementation-Version "
                      + a.getValue("Implementation-Version"));
                check(Arrays.equals(license, entry(jar, "META-INF/minecraft-capture/LICENSE")), j.getFileName() + ": LICENSE");
                check(Arrays.equals(notices, entry(jar, "META-INF/minecraft-capture/THIRD_PARTY_NOTICES.md")),
                      j.getFileName() + ": THIRD_PARTY_NOTICES.md");
                if (j == natives) {
                    check(platform.equals(a.getValue("Minecraft-Capture-Platform")),
                          "Minecraft-Capture-Platform " + a.getValue("Minecraft-Capture-Platform"));
                    check(res.equals(a.getValue("Minecraft-Capture-Library")),
                          "Minecraft-Capture-Library " + a.getValue("Minecraft-Capture-Library"));
                    check(entry(jar, res) != null, res + " in the natives jar");
                    for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                        String n = e.nextElement().getName();
                        check(!n.startsWith("natives/"), "nothing under the generic natives/: " + n);
                    }
                } else {
                    check(entry(jar, "com/kyhsgeekcode/minecraftenv/NativeLoader.class") != null, "NativeLoader in the API jar");
                    check(entry(jar, "com/kyhsgeekcode/minecraftenv/FramebufferCapturer.class") != null,
                          "FramebufferCapturer in the API jar");
                }
            }
        }
        if (failures > 0) {
            System.err.println(failures + " check(s) failed");
            System.exit(1);
        }

        // Another library's jar with the generic layout and a library of the
        // same name (not loadable): first on the class path.
        Path decoy = cache.resolveSibling(cache.getFileName() + "-decoy.jar");
        Files.createDirectories(decoy.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(decoy), new Manifest())) {
            out.putNextEntry(new JarEntry("natives/" + platform + "/" + lib));
            out.write("not a library".getBytes(StandardCharsets.US_ASCII));
            out.closeEntry();
        }
        try (java.util.stream.Stream<Path> all = Files.exists(cache) ? Files.walk(cache) : java.util.stream.Stream.empty()) {
            for (Path q : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) Files.delete(q);
        }
        System.setProperty("minecraft_capture.natives.dir", cache.toString());
        URL[] cp = {decoy.toUri().toURL(), api.toUri().toURL(), natives.toUri().toURL(), protobuf.toUri().toURL()};
        try (URLClassLoader mod = new URLClassLoader(cp, ClassLoader.getPlatformClassLoader())) {
            Class<?> fc = Class.forName("com.kyhsgeekcode.minecraftenv.FramebufferCapturer", true, mod);
            check(fc.getClassLoader() == mod, "FramebufferCapturer from the API jar");
            Object instance = fc.getField("INSTANCE").get(null);
            Method convert = fc.getMethod("convertCapturedFrameImpl", ByteBuffer.class, int.class, int.class,
                    int.class, int.class, int.class, boolean.class, boolean.class, int.class, int.class);
            ByteBuffer src = ByteBuffer.allocateDirect(16);
            src.put(new byte[] {1, 2, 3, (byte) 255, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0}).flip();
            Object bs = convert.invoke(instance, src, 2, 2, 2, 2, 0, true, false, 0, 0);
            byte[] got = (byte[]) bs.getClass().getMethod("toByteArray").invoke(bs);
            byte[] want = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
            check(Arrays.equals(got, want), "RAW bytes " + Arrays.toString(got));
            String from = (String) Class.forName("com.kyhsgeekcode.minecraftenv.NativeLoader", false, mod)
                    .getMethod("loadedFrom").invoke(null);
            System.out.println("loaded from " + from);
            check(from != null && from.startsWith(cache.toString() + File.separator) && from.endsWith(lib),
                  "the library came from the natives jar (extracted under " + cache + "), not " + from);
        }
        if (failures > 0) {
            System.err.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("MavenRepoTest: " + group + ":" + nativesArtifact + ":" + version + " resolved and loaded");
    }
}
