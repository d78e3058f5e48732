package com.kyhsgeekcode.minecraftenv;

import com.google.protobuf.ByteString;

/** The natives of the mod's Kotlin {@code object VulkanCudaZerocopy} (instance methods). */
public final class VulkanCudaZerocopy {
    public static final VulkanCudaZerocopy INSTANCE = new VulkanCudaZerocopy();

    static {
        NativeLoader.load();
    }

    private VulkanCudaZerocopy() {}

    /** Imports exported VkDeviceMemory into CUDA; returns the 68-byte IPC handle. */
    public native ByteString importVulkanMemoryAndInitCudaIpcImpl(
            long osHandle, long allocationSize, byte[] deviceUUID, int width, int height,
            boolean isWin32);

    /** Per frame: imported image -> shared CUDA buffer, complete on return. */
    public native void copyImportedArrayToCudaSharedMemoryImpl();

    /** Releases everything; a later import must work again. */
    public native void destroyCudaImportImpl();
}
