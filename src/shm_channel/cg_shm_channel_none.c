/*
 * cg_shm_channel_none.c - the shared-memory channel (cg_shm_channel.h) on a
 * platform without POSIX shared memory and named semaphores (Windows, where
 * the Python side's objects are named Global\...): every open refuses with
 * CG_E_UNSUPPORTED saying what to use instead. The names (cg_shm_name.c)
 * are checked as everywhere.
 */
#include "cg_shm_channel.h"

static const char k_unsupported[] =
    "the shared-memory channel needs POSIX shared memory and named semaphores (Linux, macOS); "
    "this build has none: use the socket transport";

cg_status cg_shm_channel_open(cg_shm_channel **out, int port, cg_err *why)
{
    if (out) *out = NULL;
    (void)port;
    return cg_fail(why, CG_E_UNSUPPORTED, "%s", k_unsupported);
}

/* No channel is ever opened here, so none reaches the calls below. */
void cg_shm_channel_close(cg_shm_channel *ch)
{
    (void)ch;
}

int cg_shm_channel_port(const cg_shm_channel *ch)
{
    (void)ch;
    return -1;
}

cg_status cg_shm_channel_read_initial_environment(cg_shm_channel *ch, const cg_shm_sink *sink,
                                                  cg_err *why)
{
    (void)ch, (void)sink;
    return cg_fail(why, CG_E_UNSUPPORTED, "%s", k_unsupported);
}

cg_status cg_shm_channel_read_action(cg_shm_channel *ch, const cg_shm_sink *sink, cg_err *why)
{
    (void)ch, (void)sink;
    return cg_fail(why, CG_E_UNSUPPORTED, "%s", k_unsupported);
}

cg_status cg_shm_channel_write(cg_shm_channel *ch, const uint8_t *data, size_t len, cg_err *why)
{
    (void)ch, (void)data, (void)len;
    return cg_fail(why, CG_E_UNSUPPORTED, "%s", k_unsupported);
}
