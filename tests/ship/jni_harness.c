/*
 * A cross-built libnative-lib under its emulator, without a JVM (there is
 * no JVM of the target here): native-lib.dll under Wine, the aarch64
 * libnative-lib.so under qemu-user. A fake JNIEnv with only the functions
 * the library calls (tests/common/fake_jni.h) loads the library, runs JNI_OnLoad and calls the natives. Checks: RAW
 * conversion of a hand-written frame, a zero width as
 * IllegalArgumentException, PNG as a PNG signature or as
 * UnsupportedOperationException (a build without PNG), GL capture and depth
 * as the given exception (no context: IllegalStateException; not built:
 * UnsupportedOperationException), initializeGLEW false, CUDA and macOS
 * natives as UnsupportedOperationException, and the zero-copy v2 rings:
 * VulkanZerocopyRing.initImpl with zero handles as the given exception (the
 * ring's check: IllegalArgumentException; not built: its module's stub,
 * UnsupportedOperationException saying what it needs), GlZerocopyRing's
 * init as the given exception (no context where the ring is built; its
 * stub's UnsupportedOperationException elsewhere, Windows included), and
 * then a frame call as IllegalStateException (no ring) and destroy as
 * nothing. GL capture on a real context: tests/wgl (Windows) and tests/gl.
 * Usage: jni_harness <library> <png|unsupported> <java/lang/... class GL throws>
 *                    <java/lang/... class VulkanZerocopyRing.initImpl throws>
 *                    <java/lang/... class GlZerocopyRing.initImpl throws> [OUT_DIR]
 * With OUT_DIR (PNG builds), frames go through RAW and PNG and are written
 * there as tests/core/png_raw_check.py reads them (the RGBA frame, the RAW
 * bytes, the PNG, manifest.txt), for the host's PIL to decode the PNG and
 * compare it with the RAW bytes of the same frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h"
#include "com_kyhsgeekcode_minecraftenv_GlZerocopyRing.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy.h"
#include "com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing.h"
#include "fake_jni.h"
#include "test_files.h"

typedef __typeof__(&Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_convertCapturedFrameImpl)
    convert_fn;

/* One w x h RGBA frame through RAW and PNG (flipped, as a glReadPixels
 * buffer), both written to dir for the host's decoder. */
static void dump_frame(convert_fn convert, jobject self, const char *dir, FILE *manifest,
                       const char *name, int w, int h)
{
    const size_t n = (size_t)w * (size_t)h * 4;
    jbyte *rgba = malloc(n);
    if (!rgba) exit(3);
    uint32_t s = 0x2545f491u ^ (uint32_t)(w * 131 + h);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        rgba[i] = (jbyte)(i % 8 < 4 ? s : i / 4 % 97); /* noise and a ramp, pixel by pixel */
    }
    jobject buf = fake_new_direct(rgba, (jlong)n);
    jobject raw = convert(fake_env, self, buf, w, h, w, h, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl RAW for the host's decoder");
    jobject png = convert(fake_env, self, buf, w, h, w, h, 1, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl PNG for the host's decoder");
    if (!raw || !png || !cg_test_write_file(dir, name, "rgba", rgba, n) ||
        !cg_test_write_file(dir, name, "raw", F(raw)->bytes, (size_t)F(raw)->len) ||
        !cg_test_write_file(dir, name, "jni.png", F(png)->bytes, (size_t)F(png)->len)) {
        fprintf(stderr, "FAIL %s: frame not written to %s\n", name, dir);
        fake_failures++;
    } else {
        fprintf(manifest, "%s %d %d jni\n", name, w, h);
        printf("ok   %s: RAW and %d bytes of PNG written for the host's decoder\n", name,
               (int)F(png)->len);
    }
    free(rgba);
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: jni_harness <library> <png|unsupported> <class GL capture throws> "
                        "<class VulkanZerocopyRing.initImpl throws> "
                        "<class GlZerocopyRing.initImpl throws> [OUT_DIR]\n");
        return 2;
    }
    int want_png = strcmp(argv[2], "png") == 0;
    const char *gl_throws = argv[3];
    const char *vk_ring_throws = argv[4];
    const char *gl_ring_throws = argv[5];
    void *lib = fake_jni_load(argv[1]);
    if (!lib) return 1;
    jobject self = fake_object();

    convert_fn convert =
        LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_convertCapturedFrameImpl);
    static jbyte rgba[16] = {1, 2, 3, -1, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0};
    static const jbyte want[12] = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
    jobject buf = fake_new_direct(rgba, 16);
    jobject out = convert(fake_env, self, buf, 2, 2, 2, 2, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_no_throw("convertCapturedFrameImpl RAW");
    if (!out || F(out)->len != 12 || memcmp(F(out)->bytes, want, 12) != 0) {
        fprintf(stderr, "FAIL RAW bytes\n");
        fake_failures++;
    } else {
        printf("ok   convertCapturedFrameImpl RAW: 12 bytes as written\n");
    }
    convert(fake_env, self, buf, 0, 2, 2, 2, 0, JNI_TRUE, JNI_FALSE, 0, 0);
    expect_throw("convertCapturedFrameImpl width 0", "java/lang/IllegalArgumentException");
    out = convert(fake_env, self, buf, 2, 2, 2, 2, 1, JNI_TRUE, JNI_FALSE, 0, 0);
    if (want_png) {
        static const jbyte sig[8] = {-119, 'P', 'N', 'G', '\r', '\n', 26, '\n'};
        expect_no_throw("convertCapturedFrameImpl PNG");
        int ok = out && F(out)->len > 8 && memcmp(F(out)->bytes, sig, 8) == 0;
        printf("%s convertCapturedFrameImpl PNG: %d bytes\n", ok ? "ok  " : "FAIL",
               out ? (int)F(out)->len : -1);
        fake_failures += !ok;
    } else {
        expect_throw("convertCapturedFrameImpl PNG", UNSUPPORTED);
    }
    if (want_png && argc == 7) {
        char path[1024];
        snprintf(path, sizeof path, "%s/manifest.txt", argv[6]);
        FILE *manifest = fopen(path, "w");
        if (!manifest) {
            fprintf(stderr, "FAIL cannot write %s\n", path);
            return 1;
        }
        dump_frame(convert, self, argv[6], manifest, "jni_1x1", 1, 1);
        dump_frame(convert, self, argv[6], manifest, "jni_odd_37x5", 37, 5);
        dump_frame(convert, self, argv[6], manifest, "jni_640x360", 640, 360);
        fake_failures += fclose(manifest) != 0;
    }

    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureFramebufferImpl)(
        fake_env, self, 1, 4, 4, 4, 4, 0, JNI_FALSE, JNI_FALSE, 0, 0);
    expect_throw("captureFramebufferImpl", gl_throws);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_captureDepthImpl)(
        fake_env, self, 1, 4, 4, JNI_TRUE, 0.1f, 100.0f, JNI_FALSE);
    expect_throw("captureDepthImpl", gl_throws);
    jboolean glew = LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeGLEW)(fake_env, self);
    expect_no_throw("initializeGLEW");
    if (glew != JNI_FALSE) {
        fprintf(stderr, "FAIL initializeGLEW returned true without GL\n");
        fake_failures++;
    }
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_initializeZerocopyImpl)(
        fake_env, self, 4, 4, 0);
    expect_throw("initializeZerocopyImpl", UNSUPPORTED);
    jbyteArray uuid = fake_new_byte_array(16);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanCudaZerocopy_importVulkanMemoryAndInitCudaIpcImpl)(
        fake_env, self, 4, 4096, uuid, 4, 4, JNI_TRUE);
    expect_throw("importVulkanMemoryAndInitCudaIpcImpl", UNSUPPORTED);
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanMetalZerocopy_createSharedIOSurfaceImpl)(
        fake_env, self, 4, 4);
    expect_throw("createSharedIOSurfaceImpl", UNSUPPORTED);

    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_initImpl)(
        fake_env, self, 0, 0, 0, 0, 0, 0, 4, 4, 0, 1, 0, JNI_FALSE);
    expect_throw_unsupported_says("VulkanZerocopyRing.initImpl", vk_ring_throws,
                                  "zero-copy v2 needs Linux");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_publishImpl)(fake_env, self, 1, 0);
    expect_throw("VulkanZerocopyRing.publishImpl without a ring", "java/lang/IllegalStateException");
    jint deferred =
        LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_deferredCountImpl)(fake_env, self);
    expect_no_throw("VulkanZerocopyRing.deferredCountImpl");
    if (deferred != 0) {
        fprintf(stderr, "FAIL VulkanZerocopyRing.deferredCountImpl: %d without a ring\n", (int)deferred);
        fake_failures++;
    }
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_VulkanZerocopyRing_destroyImpl)(fake_env, self);
    expect_no_throw("VulkanZerocopyRing.destroyImpl without a ring");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_initImpl)(fake_env, self, 4, 4, 0, 0, 0);
    expect_throw_unsupported_says("GlZerocopyRing.initImpl", gl_ring_throws,
                                  "zero-copy v2 for GL needs Linux");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_publishImpl)(fake_env, self, 1);
    expect_throw("GlZerocopyRing.publishImpl without a ring", "java/lang/IllegalStateException");
    LOOKUP(lib, Java_com_kyhsgeekcode_minecraftenv_GlZerocopyRing_destroyImpl)(fake_env, self);
    expect_no_throw("GlZerocopyRing.destroyImpl without a ring");

    if (fake_failures) {
        fprintf(stderr, "%d check(s) failed\n", fake_failures);
        return 1;
    }
    printf("%s: every native behaves as documented for this platform\n", argv[1]);
    return 0;
}
