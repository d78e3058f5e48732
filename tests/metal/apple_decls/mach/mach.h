/*
 * Subset of <mach/mach.h> and what it includes (mach/machine/vm_types.h,
 * mach/port.h, mach/kern_return.h, mach/message.h, mach/mach_types.h,
 * mach/mach_init.h, MIG-generated mach/mach_port.h) used by src/metal, for
 * the Linux syntax check only. User-space (not KERNEL) definitions, LP64.
 */
#ifndef CG_APPLE_DECLS_MACH_H
#define CG_APPLE_DECLS_MACH_H

#ifdef __cplusplus
extern "C" {
#endif

/* i386/arm _types.h: __darwin_natural_t is unsigned int. */
typedef unsigned int natural_t;
/* mach/port.h (user space): mach_port_t is __darwin_mach_port_t. */
typedef natural_t mach_port_name_t;
typedef unsigned int mach_port_t;
#define MACH_PORT_NULL 0
/* mach/machine/kern_return.h */
typedef int kern_return_t;
/* mach/kern_return.h */
#define KERN_SUCCESS 0
/* mach/message.h */
typedef unsigned int mach_msg_type_name_t;
#define MACH_MSG_TYPE_COPY_SEND 19
/* mach/mach_types.h (user space) */
typedef mach_port_t ipc_space_t;
typedef mach_port_t task_t;
/* mach/mach_init.h */
extern mach_port_t mach_task_self_;
#define mach_task_self() mach_task_self_
/* mach/mach_port.h (MIG) */
kern_return_t mach_port_deallocate(ipc_space_t task, mach_port_name_t name);
kern_return_t mach_port_insert_right(ipc_space_t task, mach_port_name_t name, mach_port_t poly,
                                     mach_msg_type_name_t polyPoly);

#ifdef __cplusplus
}
#endif

#endif
