/*
 * cg_shm_name.c - the channel's object names (cg_shm_channel.h): pure
 * string work, the same on every platform, so a build without the channel
 * (cg_shm_channel_none.c) refuses the same names.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cg_shm_channel.h"

/* ---- names ------------------------------------------------------------ */

static const char cg_shm_prefix[] = "/craftground_";

cg_status cg_shm_parse_name(const char *name, int *port, cg_shm_dir *dir)
{
    if (name == NULL) return CG_E_INVALID_ARG;
    size_t plen = sizeof cg_shm_prefix - 1;
    if (strncmp(name, cg_shm_prefix, plen) != 0) return CG_E_INVALID_ARG;
    const char *p = name + plen;
    if (*p < '0' || *p > '9') return CG_E_INVALID_ARG;
    if (*p == '0' && p[1] >= '0' && p[1] <= '9') return CG_E_INVALID_ARG; /* leading zero */
    long long v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > INT_MAX) return CG_E_INVALID_ARG;
        p++;
    }
    cg_shm_dir d;
    if (strcmp(p, "_p2j") == 0)
        d = CG_SHM_P2J;
    else if (strcmp(p, "_j2p") == 0)
        d = CG_SHM_J2P;
    else
        return CG_E_INVALID_ARG;
    if (port != NULL) *port = (int)v;
    if (dir != NULL) *dir = d;
    return CG_OK;
}

cg_status cg_shm_make_name(char *buf, size_t len, int port, cg_shm_dir dir)
{
    if (buf == NULL || len < CG_SHM_NAME_MAX || port < 0 ||
        (dir != CG_SHM_P2J && dir != CG_SHM_J2P))
        return CG_E_INVALID_ARG;
    snprintf(buf, len, "%s%d_%s", cg_shm_prefix, port, dir == CG_SHM_P2J ? "p2j" : "j2p");
    return CG_OK;
}
