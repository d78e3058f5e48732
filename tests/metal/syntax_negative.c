/*
 * syntax_negative.c - must NOT compile. The syntax check of the Apple
 * sources is only worth something if the declaration headers reject a
 * wrong call; this file makes the mistakes a port to the real SDK would
 * catch (a dictionary passed as a string, an IOSurfaceRef where a
 * CFDictionaryRef is wanted), and ctest expects the compiler to fail.
 */
#include <CoreFoundation/CoreFoundation.h>
#include <IOSurface/IOSurfaceRef.h>

size_t cg_negative(IOSurfaceRef s, CFDictionaryRef d);

size_t cg_negative(IOSurfaceRef s, CFDictionaryRef d)
{
    IOSurfaceRef other = IOSurfaceCreate(s);
    return IOSurfaceAlignProperty(d, 4) + IOSurfaceGetBytesPerRow(other);
}
