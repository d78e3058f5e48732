/* Subset of <mach/mach_error.h> (and mach/error.h) for the Linux syntax check. */
#ifndef CG_APPLE_DECLS_MACH_ERROR_H
#define CG_APPLE_DECLS_MACH_ERROR_H

#include <mach/mach.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mach/error.h */
typedef kern_return_t mach_error_t;
/* mach/mach_error.h */
char *mach_error_string(mach_error_t error_value);

#ifdef __cplusplus
}
#endif

#endif
