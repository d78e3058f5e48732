/* cg_oshandle_win32.c - Windows: exported handles are Win32 HANDLEs, which
 * CUDA never takes over: the library closes them after the import, success
 * or failure. Compiled on Windows only. */
#include "cg_oshandle.h"

#include <windows.h>

int cg_os_handles_are_win32(void)
{
    return 1;
}

void cg_os_handle_close(int win32, int64_t handle)
{
    if (!win32 || handle == 0 || handle == -1) return;
    (void)CloseHandle((HANDLE)(intptr_t)handle);
}
