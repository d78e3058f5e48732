/*
 * cg_shm_channel.h - the shared-memory observation channel to the Python RL
 * process (Linux and macOS: POSIX shared memory + named semaphores).
 *
 * The Python side creates everything for a port N:
 *   /craftground_N_p2j  Python -> Java: a 136-byte header, the action bytes,
 *                       the initial-environment bytes;
 *   /craftground_N_j2p  Java -> Python: a 24-byte header, then one message;
 *   /cg_sem_actN        posted by Python: "an action is in p2j";
 *   /cg_sem_obsN        posted by us:     "a message is in j2p".
 * Every header field is a 64-bit little-endian size. p2j header:
 *   0 layout_size (unused), 8 action_offset, 16 action_size,
 *   24 initial_environment_offset, 32 initial_environment_size,
 *   56 char[30] "/cg_sem_obsN", 104 char[30] "/cg_sem_actN" (NUL-terminated).
 * j2p header: 0 layout_size (unused), 8 data_offset (we write 24),
 *   16 data_size.
 *
 * Trust: nothing read from shared memory is used before it is checked. Every
 * offset/size pair must lie inside the object's current size (fstat, taken
 * again on every call, so an object shrunk under us is seen) and past the
 * header; both semaphore names must be exactly the port's. A failed check is
 * CG_E_CHANNEL_CORRUPT and touches no byte outside the object.
 *
 * A channel keeps its descriptors, mappings and semaphores from open to close
 * (no shm_open/mmap per call; a mapping is replaced only when the object's
 * size changed). Calls on one channel are serialised by its own mutex, so
 * any thread may call; a reader blocked in cg_shm_channel_read_action holds
 * it until an action arrives or the peer is found gone. Nothing here prints,
 * aborts or allocates after open.
 */
#ifndef CG_SHM_CHANNEL_H
#define CG_SHM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_err.h"
#include "cg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed sizes of the wire format. */
enum {
    CG_SHM_P2J_HEADER = 136, /* bytes before the first action byte */
    CG_SHM_J2P_HEADER = 24,  /* bytes before the message in j2p */
    CG_SHM_SEM_NAME_LEN = 30 /* char[] holding each semaphore name in p2j */
};

/* Longest object or semaphore name this API builds, NUL included. */
#define CG_SHM_NAME_MAX 48

typedef enum cg_shm_dir {
    CG_SHM_P2J = 0, /* "/craftground_<port>_p2j" */
    CG_SHM_J2P = 1  /* "/craftground_<port>_j2p" */
} cg_shm_dir;

/* Parses an object name of the exact shape "/craftground_<port>_p2j" or
 * "..._j2p": <port> is decimal, 0..2147483647, without sign or leading zero.
 * Anything else (NULL, empty, other prefix or suffix, trailing bytes) is
 * CG_E_INVALID_ARG. Outputs are written only on success; either may be NULL. */
cg_status cg_shm_parse_name(const char *name, int *port, cg_shm_dir *dir);

/* Writes the object name of `port` (>= 0) and `dir` into buf[len]; len must
 * be at least CG_SHM_NAME_MAX. */
cg_status cg_shm_make_name(char *buf, size_t len, int port, cg_shm_dir dir);

typedef struct cg_shm_channel cg_shm_channel;

/* Opens the channel of `port`: both objects, both semaphores (never created
 * here: the Python side owns them), and checks the p2j header and names.
 * On success *out owns everything until cg_shm_channel_close. On failure
 * *out is NULL and, when why != NULL, why gets a sentence naming
 * the object and the bad value. Statuses: CG_E_INVALID_ARG (port < 0),
 * CG_E_CHANNEL_ABSENT (an object or semaphore does not exist),
 * CG_E_CHANNEL_CORRUPT (header or names fail the checks above),
 * CG_E_NO_MEMORY, CG_E_PLATFORM (another OS call failed). */
cg_status cg_shm_channel_open(cg_shm_channel **out, int port, cg_err *why);

/* Releases descriptors, mappings and semaphores; unlinks nothing (the
 * objects are the Python side's). NULL is a no-op. No call may be running on
 * the channel. */
void cg_shm_channel_close(cg_shm_channel *ch);

int cg_shm_channel_port(const cg_shm_channel *ch);

/* The sentence describing the last failure of a call on `ch` ("" if none).
 * Valid until the next call on the channel; read it on the calling thread
 * right after the failing call. */
const char *cg_shm_channel_last_error(const cg_shm_channel *ch);

/* Receives bytes that live in shared memory: data[0..len) is valid only
 * during the call (the channel is locked meanwhile). Returning anything but
 * CG_OK makes the calling function return that status. */
typedef cg_status (*cg_shm_sink)(void *user, const uint8_t *data, size_t len);

/* Fills dst[0..len) with the message to publish (dst is shared memory). */
typedef cg_status (*cg_shm_source)(void *user, uint8_t *dst, size_t len);

/* Hands the initial-environment bytes (initial_environment_offset/size of
 * p2j, checked) to `sink`. Does not wait. */
cg_status cg_shm_channel_read_initial_environment(cg_shm_channel *ch, cg_shm_sink sink,
                                                  void *user);

/* Waits for one post of /cg_sem_act<port> (one post = one action), then
 * hands the action bytes (action_offset/size, checked after the post) to
 * `sink`. While waiting it checks about every 100 ms that the Python side
 * is still there: both object names still exist (on Linux: and still lead
 * to the objects opened, not a new session's), and, on Linux, some process
 * found mapping the objects or semaphores at open is still alive (when one
 * was found: SIGKILL leaves the objects behind). When not,
 * it returns CG_E_CHANNEL_CLOSED, and so does every later call on this
 * channel. If the sink fails, the post is given back, so the next call
 * delivers the same action. */
cg_status cg_shm_channel_read_action(cg_shm_channel *ch, cg_shm_sink sink, void *user);

/* Publishes one message of `len` bytes: grows j2p (ftruncate, never
 * shrinking) to at least 24 + len, lets `fill` write the bytes at offset 24,
 * sets data_offset = 24 and data_size = len, then posts /cg_sem_obs<port>.
 * CG_E_OVERFLOW when 24 + len does not fit an object size; CG_E_PLATFORM
 * when the object cannot grow (macOS sets a shared-memory object's size only
 * once, so there j2p must be created large enough). */
cg_status cg_shm_channel_write(cg_shm_channel *ch, size_t len, cg_shm_source fill, void *user);

/* cg_shm_channel_write of a buffer the caller has (memcpy source). */
cg_status cg_shm_channel_write_bytes(cg_shm_channel *ch, const uint8_t *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CG_SHM_CHANNEL_H */
