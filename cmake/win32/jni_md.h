/*
 * jni_md.h for Windows x64 builds with MinGW-w64 on a Linux machine, whose
 * JDK only has include/linux/jni_md.h. That one is wrong for Windows: its
 * JNIEXPORT is a visibility attribute (a DLL exports with dllexport) and its
 * jlong is `long`, which is 32 bits on Windows. The JNI specification fixes
 * the sizes: jint 32 bits, jlong 64 bits, jbyte signed 8 bits.
 */
#ifndef _JAVASOFT_JNI_MD_H_
#define _JAVASOFT_JNI_MD_H_

#define JNIEXPORT __declspec(dllexport)
#define JNIIMPORT __declspec(dllimport)
#define JNICALL __stdcall /* ignored on x64: one calling convention */

typedef int jint;
typedef long long jlong;
typedef signed char jbyte;

#endif /* !_JAVASOFT_JNI_MD_H_ */
