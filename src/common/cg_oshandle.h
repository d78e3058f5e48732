/*
 * cg_oshandle.h - internal: closing the OS handles an exporter gave us.
 * One file per platform (cg_oshandle_posix.c, cg_oshandle_win32.c).
 */
#ifndef CG_OSHANDLE_H
#define CG_OSHANDLE_H

#include <stdint.h>

/* Nonzero on Windows, where exported handles are Win32 HANDLEs. */
int cg_os_handles_are_win32(void);

/* Close a handle the library owns (an fd, or a Win32 HANDLE where
 * win32 is nonzero on Windows). Invalid values (-1, 0 for HANDLE) and a
 * handle of the other platform's kind are ignored. */
void cg_os_handle_close(int win32, int64_t handle);

#endif /* CG_OSHANDLE_H */
