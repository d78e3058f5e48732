package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;

/** The natives of the mod's Kotlin {@code object VulkanMetalZerocopy} (macOS; instance methods). */
public final class VulkanMetalZerocopy {
    public static final VulkanMetalZerocopy INSTANCE = new VulkanMetalZerocopy();

    static {
        NativeLoader.load();
    }

    private VulkanMetalZerocopy() {}

    public native long createSharedIOSurfaceImpl(int width, int height);

    public native ByteString createMachPortForIOSurfaceImpl(long ioSurfacePtr, int pythonPid);

    public native void destroyIOSurfaceImpl(long ioSurfacePtr);
}
