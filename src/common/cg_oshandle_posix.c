/* cg_oshandle_posix.c - POSIX: OS handles are file descriptors. */
#include "cg_oshandle.h"

#include <unistd.h>

int cg_oshandle_valid(cg_oshandle h)
{
    return h >= 0;
}

void cg_oshandle_close(cg_oshandle h)
{
    if (h >= 0) (void)close(h);
}

cg_oshandle cg_oshandle_dup(cg_oshandle h)
{
    return h >= 0 ? dup(h) : CG_OSHANDLE_INVALID;
}

int cg_os_handles_are_win32(void)
{
    return 0;
}

void cg_os_handle_close(int win32, int64_t handle)
{
    if (win32 || handle < 0 || handle > INT32_MAX) return;
    cg_oshandle_close((cg_oshandle)handle);
}
