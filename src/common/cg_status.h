/*
 * cg_status.h - the one status enum of the capture library.
 *
 * Every layer below jni/ returns a cg_status; jni/ maps it to a Java
 * exception. The list is an X-macro so the enum, the symbolic name and the
 * message can never drift apart. Numbers are stable: never reuse or reorder,
 * only append.
 */
#ifndef CG_STATUS_H
#define CG_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, number, message) */
#define CG_STATUS_LIST(X)                                                        \
    X(CG_OK,                   0,  "success")                                   \
    X(CG_E_INVALID_ARG,        1,  "invalid argument")                          \
    X(CG_E_OVERFLOW,           2,  "size computation overflows")                \
    X(CG_E_TOO_LARGE,          3,  "dimension exceeds the sane maximum")        \
    X(CG_E_BUFFER_TOO_SMALL,   4,  "buffer too small")                          \
    X(CG_E_NO_MEMORY,          5,  "out of memory")                             \
    X(CG_E_UNSUPPORTED,        6,  "not supported by this build or platform")   \
    X(CG_E_BAD_STATE,          7,  "object is in a state that refuses this call") \
    X(CG_E_NO_CONTEXT,         8,  "no current GL context")                     \
    X(CG_E_GL,                 9,  "OpenGL call failed")                        \
    X(CG_E_VULKAN,             10, "Vulkan call failed")                        \
    X(CG_E_CUDA,               11, "CUDA call failed")                          \
    X(CG_E_PNG,                12, "PNG encoding failed")                       \
    X(CG_E_NO_DEVICE,          13, "no matching GPU device")                    \
    X(CG_E_BAD_TEXTURE,        14, "texture is not usable for this capture")    \
    X(CG_E_ALREADY_INITIALIZED, 15, "already initialised")                      \
    X(CG_E_NOT_INITIALIZED,    16, "not initialised, or already destroyed")     \
    X(CG_E_PLATFORM,           17, "platform API call failed")                  \
    X(CG_E_CHANNEL_ABSENT,     18, "shared-memory channel does not exist")      \
    X(CG_E_CHANNEL_CORRUPT,    19, "shared-memory channel header is invalid")   \
    X(CG_E_CHANNEL_CLOSED,     20, "the peer has closed the shared-memory channel") \
    X(CG_E_RING_FULL,          21, "every zero-copy ring slot is held by the learner") \
    X(CG_E_STALE,              22, "the zero-copy descriptor names a frame or ring that is gone") \
    X(CG_E_PROTOCOL,           23, "the zero-copy peer broke or refused the protocol")

typedef enum cg_status {
#define CG_STATUS_ENUM_(name, num, msg) name = num,
    CG_STATUS_LIST(CG_STATUS_ENUM_)
#undef CG_STATUS_ENUM_
} cg_status;

/* Human-readable message for a status; never NULL, static storage. */
const char *cg_strerror(cg_status st);

/* Symbolic name ("CG_E_OVERFLOW"); never NULL, static storage. */
const char *cg_status_name(cg_status st);

/* Propagate a failing status to the caller (zstd FORWARD_IF_ERROR). */
#define CG_TRY(expr)                                                            \
    do {                                                                        \
        cg_status cg_try_st_ = (expr);                                          \
        if (cg_try_st_ != CG_OK) return cg_try_st_;                             \
    } while (0)

/* Return `st` when `cond` holds (zstd RETURN_ERROR_IF). */
#define CG_RETURN_IF(cond, st)                                                  \
    do {                                                                        \
        if (cond) return (st);                                                  \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* CG_STATUS_H */
