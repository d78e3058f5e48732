package com.google.protobuf;

/**
 * A stand-in for an old protobuf-java that has ByteString.copyFrom but no
 * UnsafeByteOperations: used only by jvm_isolated_copyfrom_fallback, in a
 * class loader that cannot see the real protobuf jar.
 */
public final class ByteString {
    public static int copyFromCalls;
    private final byte[] bytes;

    private ByteString(byte[] b) {
        bytes = b;
    }

    public static ByteString copyFrom(byte[] b) {
        copyFromCalls++;
        return new ByteString(b.clone());
    }

    public byte[] toByteArray() {
        return bytes.clone();
    }

    public int size() {
        return bytes.length;
    }
}
