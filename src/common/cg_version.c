/*
 * cg_version.c - the version the library was built as (cg_version.h).
 */
#include "cg_version.h"

unsigned cg_version(void)
{
    return CG_VERSION_NUMBER;
}

const char *cg_version_string(void)
{
    return CG_VERSION_STRING;
}
