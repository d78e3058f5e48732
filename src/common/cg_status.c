#include "cg_status.h"

const char *cg_strerror(cg_status st)
{
    switch (st) {
#define CG_STATUS_MSG_(name, num, msg) case name: return msg;
        CG_STATUS_LIST(CG_STATUS_MSG_)
#undef CG_STATUS_MSG_
    }
    return "unknown status";
}

const char *cg_status_name(cg_status st)
{
    switch (st) {
#define CG_STATUS_NAME_(name, num, msg) case name: return #name;
        CG_STATUS_LIST(CG_STATUS_NAME_)
#undef CG_STATUS_NAME_
    }
    return "CG_E_UNKNOWN";
}
