/*
 * cg_oshandle.h - internal: the OS handles the library owns, lends and hands
 * to another process: exported GPU memory and semaphores, shared memory, a
 * connection to a learner. One type on every platform, the way libuv's
 * uv_os_fd_t is (a file descriptor on POSIX, a Win32 HANDLE on Windows), so
 * that code passing handles along names no platform; only the files that
 * make or use one with an OS call do. One file per platform
 * (cg_oshandle_posix.c, cg_oshandle_win32.c).
 */
#ifndef CG_OSHANDLE_H
#define CG_OSHANDLE_H

#include <stdint.h>

/* The one platform choice of this header: the type itself. */
#ifdef _WIN32
typedef void *cg_oshandle; /* a HANDLE (void *; <windows.h> stays out of here) */
#define CG_OSHANDLE_INVALID ((cg_oshandle)0)
#else
typedef int cg_oshandle; /* a file descriptor */
#define CG_OSHANDLE_INVALID (-1)
#endif

/* Nonzero when h can name an open handle: an fd >= 0; a HANDLE other than
 * NULL and INVALID_HANDLE_VALUE. */
int cg_oshandle_valid(cg_oshandle h);

/* Close h (an invalid one: nothing). */
void cg_oshandle_close(cg_oshandle h);

/* A second handle to what h names (dup(2); DuplicateHandle in this
 * process), the caller's to close; CG_OSHANDLE_INVALID when h is invalid
 * or the OS refuses. */
cg_oshandle cg_oshandle_dup(cg_oshandle h);

/* Handles that arrive as a number with their kind (the JNI natives' jlong
 * and isWin32). Nonzero on Windows, where exported handles are Win32
 * HANDLEs. */
int cg_os_handles_are_win32(void);

/* Close such a handle, which the library owns (an fd, or a Win32 HANDLE
 * where win32 is nonzero on Windows). Invalid values (-1, 0 for HANDLE) and
 * a handle of the other platform's kind are ignored. */
void cg_os_handle_close(int win32, int64_t handle);

#endif /* CG_OSHANDLE_H */
