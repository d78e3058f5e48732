/* Subset of <mach/mach_traps.h> (user space) for the Linux syntax check. */
#ifndef CG_APPLE_DECLS_MACH_TRAPS_H
#define CG_APPLE_DECLS_MACH_TRAPS_H

#include <mach/mach.h>

#ifdef __cplusplus
extern "C" {
#endif

extern kern_return_t task_for_pid(mach_port_name_t target_tport, int pid, mach_port_name_t *t);

#ifdef __cplusplus
}
#endif

#endif
