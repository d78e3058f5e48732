/* cg_oshandle_posix.c - POSIX: exported handles are file descriptors. */
#include "cg_oshandle.h"

#include <unistd.h>

int cg_os_handles_are_win32(void)
{
    return 0;
}

void cg_os_handle_close(int win32, int64_t handle)
{
    if (win32 || handle < 0 || handle > INT32_MAX) return;
    (void)close((int)handle);
}
