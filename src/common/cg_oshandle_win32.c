/* cg_oshandle_win32.c - Windows: OS handles are Win32 HANDLEs. An exported
 * one is never taken over by CUDA: the library closes it after the import,
 * success or failure. Compiled on Windows only. */
#include "cg_oshandle.h"

#include <windows.h>

int cg_oshandle_valid(cg_oshandle h)
{
    return h != NULL && h != INVALID_HANDLE_VALUE;
}

void cg_oshandle_close(cg_oshandle h)
{
    if (cg_oshandle_valid(h)) (void)CloseHandle(h);
}

cg_oshandle cg_oshandle_dup(cg_oshandle h)
{
    HANDLE out = NULL;
    HANDLE self = GetCurrentProcess();
    if (!cg_oshandle_valid(h) ||
        !DuplicateHandle(self, h, self, &out, 0, FALSE, DUPLICATE_SAME_ACCESS))
        return CG_OSHANDLE_INVALID;
    return out;
}

int cg_os_handles_are_win32(void)
{
    return 1;
}

void cg_os_handle_close(int win32, int64_t handle)
{
    if (!win32) return;
    cg_oshandle_close((cg_oshandle)(intptr_t)handle);
}
