/* Placeholder until the shared JNI plumbing lands (see cg_jni.h). */
#include "cg_jni.h"

int cg_jni_init(JNIEnv *env)
{
    (void)env;
    return 0;
}

void cg_jni_fini(JNIEnv *env)
{
    (void)env;
}
