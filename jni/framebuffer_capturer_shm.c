/*
 * framebuffer_capturer_shm.c - com.kyhsgeekcode.minecraftenv.FramebufferCapturer,
 * the shared-memory channel to the Python side: readInitialEnvironmentImpl,
 * readActionImpl, writeObservationImpl (src/shm_channel does the work).
 *
 * Open channels live in a process-wide registry keyed by port, so each
 * channel's objects, mappings and semaphores are opened once:
 * readInitialEnvironmentImpl (the first call of a session) opens the port's
 * channel afresh, replacing any earlier one; the other two use the listed
 * channel, opening it if there is none. A channel whose peer has gone stays
 * listed and refuses every call (IllegalStateException at once, also when
 * the dead peer left its objects behind) until readInitialEnvironmentImpl
 * starts a new session on that port. Each entry is reference-counted: a
 * channel is closed only when it is off the list and no call is using it.
 *
 * Bytes move between Java arrays and shared memory in one copy, by the
 * channel's pread/pwrite straight into or out of the array, pinned with
 * Get/ReleasePrimitiveArrayCritical for just that copy (no JNI call and no
 * wait in between: the channel's write lock is only ever held by a thread in
 * such a copy, never by one that allocates).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cg_jni.h"
#include "cg_shm_channel.h"
#include "com_kyhsgeekcode_minecraftenv_FramebufferCapturer.h" /* javac -h */

typedef struct cg_shm_entry {
    struct cg_shm_entry *next;
    int port;
    int refs; /* one for being listed, one per call using it */
    cg_shm_channel *ch;
} cg_shm_entry;

static pthread_mutex_t cg_shm_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static cg_shm_entry *cg_shm_reg;

/* Removes listed entry e from the list. Call with the lock held. */
static void cg_shm_reg_unlist_locked(cg_shm_entry *e)
{
    for (cg_shm_entry **pp = &cg_shm_reg; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            e->next = NULL;
            e->refs--;
            return;
        }
    }
}

static void cg_shm_entry_free(cg_shm_entry *e)
{
    cg_shm_channel_close(e->ch);
    free(e);
}

static cg_shm_entry *cg_shm_reg_find_locked(int port)
{
    cg_shm_entry *e = cg_shm_reg;
    while (e != NULL && e->port != port) e = e->next;
    return e;
}

/* The channel of `port` for one call (release with cg_shm_reg_release).
 * fresh: open new objects even if a channel is listed (a failed fresh open
 * still unlists the old one). NULL with an exception pending on failure. */
static cg_shm_entry *cg_shm_reg_acquire(JNIEnv *env, const char *what, int port, int fresh)
{
    cg_shm_entry *e;
    if (!fresh) {
        pthread_mutex_lock(&cg_shm_reg_lock);
        if ((e = cg_shm_reg_find_locked(port)) != NULL) e->refs++;
        pthread_mutex_unlock(&cg_shm_reg_lock);
        if (e != NULL) return e;
    }
    /* Opened outside the lock: it reads /proc (milliseconds), and calls on
     * other ports must not wait for that. */
    cg_shm_entry *ne = calloc(1, sizeof *ne);
    cg_shm_channel *ch = NULL;
    cg_err why = {""};
    cg_status st = ne == NULL ? CG_E_NO_MEMORY : cg_shm_channel_open(&ch, port, &why);
    cg_shm_entry *stale = NULL, *use = NULL;
    pthread_mutex_lock(&cg_shm_reg_lock);
    e = cg_shm_reg_find_locked(port);
    if (e != NULL && !fresh) {
        e->refs++; /* another thread opened it meanwhile: use that one */
        use = e;
    } else {
        if (e != NULL) {
            cg_shm_reg_unlist_locked(e);
            if (e->refs == 0) stale = e;
        }
        if (st == CG_OK) {
            ne->port = port;
            ne->ch = ch;
            ne->refs = 2; /* listed + this call */
            ne->next = cg_shm_reg;
            cg_shm_reg = ne;
            use = ne;
        }
    }
    pthread_mutex_unlock(&cg_shm_reg_lock);
    if (stale != NULL) cg_shm_entry_free(stale);
    if (use != ne) {
        cg_shm_channel_close(ch);
        free(ne);
    }
    if (use != NULL) return use;
    if (st == CG_E_NO_MEMORY && why.text[0] == '\0')
        cg_throw(env, CG_JEXC_OOM, "%s: cannot allocate the channel of port %d", what, port);
    else
        cg_throw_status(env, st, what, why.text);
    return NULL;
}

/* Ends a call. */
static void cg_shm_reg_release(cg_shm_entry *e)
{
    pthread_mutex_lock(&cg_shm_reg_lock);
    int last = --e->refs == 0;
    pthread_mutex_unlock(&cg_shm_reg_lock);
    if (last) cg_shm_entry_free(e);
}

/* Reads a channel object name into buf without allocating and parses it.
 * Bad names are IllegalArgumentException. 0 = ok. */
enum { CG_SHM_JNAME_BUF = 3 * CG_SHM_NAME_MAX + 1 };
static int cg_shm_jname(JNIEnv *env, const char *what, const char *arg, jstring s,
                        cg_shm_dir want, char buf[CG_SHM_JNAME_BUF], int *port)
{
    static const char *const shape[2] = {"/craftground_<port>_p2j", "/craftground_<port>_j2p"};
    if (s == NULL)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: %s is null (expected %s)", what, arg,
                        shape[want]);
    jsize n = (*env)->GetStringLength(env, s);
    if (n == 0)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: %s is empty (expected %s)", what, arg,
                        shape[want]);
    if (n >= CG_SHM_NAME_MAX)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: %s is %d characters long, too long for %s", what, arg, (int)n,
                        shape[want]);
    /* Modified UTF-8 takes at most 3 bytes per UTF-16 unit. */
    jsize utf = (*env)->GetStringUTFLength(env, s);
    (*env)->GetStringUTFRegion(env, s, 0, n, buf);
    if ((*env)->ExceptionCheck(env)) return 1;
    buf[utf < CG_SHM_JNAME_BUF ? utf : CG_SHM_JNAME_BUF - 1] = '\0';
    cg_shm_dir dir;
    if (cg_shm_parse_name(buf, port, &dir) != CG_OK || dir != want)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: %s \"%s\" is not of the form %s (port: decimal, 0..2147483647, no "
                        "leading zero)",
                        what, arg, buf, shape[want]);
    return 0;
}

/* Throws for a failed channel call and ends it. */
static void cg_shm_fail_call(JNIEnv *env, const char *what, cg_shm_entry *e, cg_status st,
                             const cg_err *why)
{
    if (!(*env)->ExceptionCheck(env)) cg_throw_status(env, st, what, why->text);
    cg_shm_reg_release(e);
}

/* ---- the sink that reads shared bytes into a Java array ---------------- */

typedef struct cg_shm_jarray {
    JNIEnv *env;
    jbyteArray reuse; /* may be NULL */
    jbyteArray out;
    void *pinned;
} cg_shm_jarray;

/* The bytes go into `reuse` when its length is exactly len, else into a new
 * byte[] (the only allocation of a call); the array is pinned while the
 * channel copies into it. */
static cg_status cg_shm_array_reserve(void *user, size_t len, uint8_t **dst)
{
    cg_shm_jarray *a = user;
    JNIEnv *env = a->env;
    jbyteArray arr = NULL;
    if (a->reuse != NULL && (size_t)(*env)->GetArrayLength(env, a->reuse) == len)
        arr = a->reuse;
    else if ((arr = cg_jni_new_bytes(env, len)) == NULL)
        return CG_E_NO_MEMORY; /* exception pending */
    a->out = arr;
    a->pinned = NULL;
    if (len == 0) return CG_OK;
    a->pinned = (*env)->GetPrimitiveArrayCritical(env, arr, NULL);
    if (a->pinned == NULL) return CG_E_NO_MEMORY;
    *dst = a->pinned;
    return CG_OK;
}

static void cg_shm_array_finish(void *user, int ok)
{
    cg_shm_jarray *a = user;
    if (a->pinned != NULL)
        (*a->env)->ReleasePrimitiveArrayCritical(a->env, a->out, a->pinned, ok ? 0 : JNI_ABORT);
    a->pinned = NULL;
}

/* ---- natives ----------------------------------------------------------- */

JNIEXPORT jbyteArray JNICALL
Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_readInitialEnvironmentImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jint port)
{
    (void)self;
    static const char what[] = "readInitialEnvironmentImpl";
    char name[CG_SHM_JNAME_BUF];
    int name_port;
    if (cg_shm_jname(env, what, "p2jMemoryName", p2jMemoryName, CG_SHM_P2J, name, &name_port))
        return NULL;
    if (port != name_port)
        return cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                        "%s: port %d does not match p2jMemoryName \"%s\" (port %d)", what,
                        (int)port, name, name_port),
               NULL;
    cg_shm_entry *e = cg_shm_reg_acquire(env, what, name_port, 1);
    if (e == NULL) return NULL;
    cg_shm_jarray a = {env, NULL, NULL, NULL};
    cg_shm_sink sink = {cg_shm_array_reserve, cg_shm_array_finish, &a};
    cg_err why;
    cg_status st = cg_shm_channel_read_initial_environment(e->ch, &sink, &why);
    if (st != CG_OK) return cg_shm_fail_call(env, what, e, st, &why), NULL;
    cg_shm_reg_release(e);
    return a.out;
}

JNIEXPORT jbyteArray JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_readActionImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jbyteArray actionData)
{
    (void)self;
    static const char what[] = "readActionImpl";
    char name[CG_SHM_JNAME_BUF];
    int port;
    if (cg_shm_jname(env, what, "p2jMemoryName", p2jMemoryName, CG_SHM_P2J, name, &port))
        return NULL;
    cg_shm_entry *e = cg_shm_reg_acquire(env, what, port, 0);
    if (e == NULL) return NULL;
    cg_shm_jarray a = {env, actionData, NULL, NULL};
    cg_shm_sink sink = {cg_shm_array_reserve, cg_shm_array_finish, &a};
    cg_err why;
    cg_status st = cg_shm_channel_read_action(e->ch, &sink, &why);
    if (st != CG_OK) return cg_shm_fail_call(env, what, e, st, &why), NULL;
    cg_shm_reg_release(e);
    return a.out;
}

JNIEXPORT void JNICALL Java_com_kyhsgeekcode_minecraftenv_FramebufferCapturer_writeObservationImpl(
    JNIEnv *env, jobject self, jstring p2jMemoryName, jstring j2pMemoryName,
    jbyteArray observationData)
{
    (void)self;
    static const char what[] = "writeObservationImpl";
    char p2j[CG_SHM_JNAME_BUF], j2p[CG_SHM_JNAME_BUF];
    int port, j2p_port;
    if (cg_shm_jname(env, what, "p2jMemoryName", p2jMemoryName, CG_SHM_P2J, p2j, &port) ||
        cg_shm_jname(env, what, "j2pMemoryName", j2pMemoryName, CG_SHM_J2P, j2p, &j2p_port))
        return;
    if (port != j2p_port) {
        cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT,
                 "%s: p2jMemoryName \"%s\" and j2pMemoryName \"%s\" name different ports", what,
                 p2j, j2p);
        return;
    }
    if (observationData == NULL) {
        cg_throw(env, CG_JEXC_ILLEGAL_ARGUMENT, "%s: observationData is null", what);
        return;
    }
    jsize len = (*env)->GetArrayLength(env, observationData);
    cg_shm_entry *e = cg_shm_reg_acquire(env, what, port, 0);
    if (e == NULL) return;
    /* Pinned for the copy alone: the channel calls nothing of the JVM. */
    void *data = len == 0 ? NULL : (*env)->GetPrimitiveArrayCritical(env, observationData, NULL);
    cg_err why;
    cg_status st = CG_E_NO_MEMORY;
    if (len == 0 || data != NULL) {
        st = cg_shm_channel_write(e->ch, data, (size_t)len, &why);
        if (data != NULL)
            (*env)->ReleasePrimitiveArrayCritical(env, observationData, data, JNI_ABORT);
    } else {
        cg_fail(&why, st, "%s: cannot pin the %d-byte observation array", what, (int)len);
    }
    if (st != CG_OK) {
        cg_shm_fail_call(env, what, e, st, &why);
        return;
    }
    cg_shm_reg_release(e);
}
