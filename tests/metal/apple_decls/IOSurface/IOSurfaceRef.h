/*
 * Subset of <IOSurface/IOSurfaceRef.h> (IOSurface.framework, "Copyright
 * 2006-2017 Apple Inc.") used by src/metal, for the Linux syntax check
 * only. IOSFC_AVAILABLE_*, CF_BRIDGED_* and nullability macros dropped.
 * The IOSurfaceRef typedef is Apple's `struct __IOSurface *`, the same type
 * Vulkan-Headers' vulkan_metal.h declares.
 */
#ifndef CG_APPLE_DECLS_IOSURFACEREF_H
#define CG_APPLE_DECLS_IOSURFACEREF_H

#include <stddef.h>
#include <CoreFoundation/CoreFoundation.h>
#include <mach/mach.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __IOSurface *IOSurfaceRef;

extern const CFStringRef kIOSurfaceAllocSize;
extern const CFStringRef kIOSurfaceWidth;
extern const CFStringRef kIOSurfaceHeight;
extern const CFStringRef kIOSurfaceBytesPerRow;
extern const CFStringRef kIOSurfaceBytesPerElement;
extern const CFStringRef kIOSurfacePixelFormat;

IOSurfaceRef IOSurfaceCreate(CFDictionaryRef properties);
size_t IOSurfaceGetAllocSize(IOSurfaceRef buffer);
size_t IOSurfaceGetWidth(IOSurfaceRef buffer);
size_t IOSurfaceGetHeight(IOSurfaceRef buffer);
size_t IOSurfaceGetBytesPerRow(IOSurfaceRef buffer);
void *IOSurfaceGetBaseAddress(IOSurfaceRef buffer);
mach_port_t IOSurfaceCreateMachPort(IOSurfaceRef buffer);
IOSurfaceRef IOSurfaceLookupFromMachPort(mach_port_t port);
size_t IOSurfaceAlignProperty(CFStringRef property, size_t value);

#ifdef __cplusplus
}
#endif

#endif
