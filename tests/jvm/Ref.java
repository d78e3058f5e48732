package cgtest;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import javax.imageio.ImageIO;

/**
 * Independent Java oracle for the wire formats of docs/wire-format.md, written
 * from the spec (not from the C code), plus small test helpers.
 */
public final class Ref {
    private Ref() {}

    /** The 16x16 arrow of the spec, rows top-down: B black, W white, . transparent. */
    static final String[] CURSOR = {
        "B...............",
        "BB..............",
        "BWB.............",
        "BWWB............",
        "BWWWB...........",
        "BWWWWB..........",
        "BWWWWWB.........",
        "BWWWWWWB........",
        "BWWWWWWWB.......",
        "BWWWWWWWWB......",
        "BWWWWWBBBB......",
        "BWWWWWB.........",
        "BWBBWWB.........",
        "BB.BWWWB........",
        "B...BWWB........",
        ".....BBB........",
    };

    /** A deterministic RGBA8 image (alpha varies too, and must be ignored). */
    public static byte[] pattern(int w, int h, int seed) {
        byte[] px = new byte[w * h * 4];
        long s = 0x9E3779B97F4A7C15L ^ seed;
        for (int i = 0; i < px.length; i++) {
            s ^= s << 13;
            s ^= s >>> 7;
            s ^= s << 17;
            px[i] = (byte) s;
        }
        return px;
    }

    public static ByteBuffer direct(byte[] rgba) {
        ByteBuffer b = ByteBuffer.allocateDirect(rgba.length);
        b.put(rgba);
        b.clear();
        return b;
    }

    /**
     * RGB8 bottom-up output per the spec: rows reversed when flip, nearest
     * neighbour srcX = x*srcW/tW, srcY = y*srcH/tH on the bottom-up image,
     * then the cursor with its hot spot at (cx, cy) from the top-left:
     * nothing when the hot spot is outside the target, else clipped.
     */
    public static byte[] convert(byte[] rgba, int srcW, int srcH, int tW, int tH,
                                 boolean flip, boolean cursor, int cx, int cy) {
        byte[] out = new byte[tW * tH * 3];
        for (int y = 0; y < tH; y++) {
            int by = (int) ((long) y * srcH / tH);
            int memRow = flip ? srcH - 1 - by : by;
            for (int x = 0; x < tW; x++) {
                int sx = (int) ((long) x * srcW / tW);
                int s = (memRow * srcW + sx) * 4;
                int d = (y * tW + x) * 3;
                out[d] = rgba[s];
                out[d + 1] = rgba[s + 1];
                out[d + 2] = rgba[s + 2];
            }
        }
        if (cursor && cx >= 0 && cy >= 0 && cx < tW && cy < tH) {
            for (int r = 0; r < 16; r++) {
                long topDown = (long) cy + r;
                if (topDown < 0 || topDown >= tH) continue;
                int y = tH - 1 - (int) topDown; // bottom-up memory row
                for (int c = 0; c < 16; c++) {
                    long x = (long) cx + c;
                    char k = CURSOR[r].charAt(c);
                    if (x < 0 || x >= tW || k == '.') continue;
                    byte v = (byte) (k == 'B' ? 0 : 255);
                    int d = (y * tW + (int) x) * 3;
                    out[d] = v;
                    out[d + 1] = v;
                    out[d + 2] = v;
                }
            }
        }
        return out;
    }

    /** Decodes a PNG with javax.imageio into RGB8 rows in file order. */
    public static byte[] decodePng(byte[] png, int w, int h) throws IOException {
        if (png.length < 33 || (png[0] & 0xff) != 0x89 || png[1] != 'P' || png[2] != 'N' || png[3] != 'G')
            throw new AssertionError("not a PNG signature");
        // IHDR: width, height, bit depth 8, colour type 2 (RGB).
        int pw = ByteBuffer.wrap(png, 16, 4).getInt();
        int ph = ByteBuffer.wrap(png, 20, 4).getInt();
        if (pw != w || ph != h) throw new AssertionError("PNG is " + pw + "x" + ph + ", expected " + w + "x" + h);
        if (png[24] != 8 || png[25] != 2)
            throw new AssertionError("PNG bit depth " + png[24] + " colour type " + png[25] + ", expected 8 and 2 (RGB)");
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
        if (img == null) throw new AssertionError("ImageIO could not decode the PNG");
        byte[] out = new byte[w * h * 3];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int argb = img.getRGB(x, y);
                int d = (y * w + x) * 3;
                out[d] = (byte) (argb >> 16);
                out[d + 1] = (byte) (argb >> 8);
                out[d + 2] = (byte) argb;
            }
        }
        return out;
    }

    /** First differing byte, or -1. */
    public static int firstDiff(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) if (a[i] != b[i]) return i;
        return a.length == b.length ? -1 : n;
    }

    private static int failures;
    private static int checks;

    public static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            failures++;
            System.out.println("FAIL: " + what);
        }
    }

    public static void checkBytes(byte[] got, byte[] want, String what) {
        int d = firstDiff(got, want);
        check(d < 0, what + (d < 0 ? "" : ": length " + got.length + " vs " + want.length
                + ", first difference at byte " + d));
    }

    /** Prints the summary and exits 1 on any failure. */
    public static void finish(String name) {
        System.out.println(name + ": " + checks + " checks, " + failures + " failures");
        if (failures != 0 || checks == 0) System.exit(1);
    }
}
