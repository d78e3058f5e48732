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
 * again on every read, so an object shrunk under us is seen) and past the
 * header; both semaphore names must be exactly the port's. A failed check is
 * CG_E_CHANNEL_CORRUPT and touches no byte outside the object.
 *
 * Shrinking: the other process may truncate either object at any moment,
 * also between our size check and the copy. On Linux every byte moves with
 * pread/pwrite on the descriptor (cg_shm_io_fd.c), which return a short count
 * where an access through a mapping would raise SIGBUS: a read that comes up
 * short is CG_E_CHANNEL_CORRUPT, a write grows the object back. On macOS an
 * object's size is set once and never changes, and read/write do not work on
 * shared-memory descriptors, so bytes move through a mapping there
 * (cg_shm_io_map.c).
 *
 * A channel keeps its descriptors and semaphores from open to close (no
 * shm_open per call). Reads (the initial environment, actions) are
 * serialised by one mutex, writes by another, and neither is held while
 * cg_shm_channel_read_action waits for the semaphore: a waiting reader never
 * holds up a write, so any thread may call. Failures are described in the
 * caller's `why` (may be NULL). Nothing here prints, aborts or allocates
 * after open.
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
 * Where the platform can list the processes holding the objects (Linux:
 * /proc, by device and inode), one must be found: objects and semaphores
 * that no other process maps or keeps open were left behind by a Python side that has gone (SIGKILL runs no
 * cleanup), so nothing will ever post an action; that is CG_E_CHANNEL_CLOSED.
 * On success *out owns everything until cg_shm_channel_close. On failure
 * *out is NULL and, when why != NULL, why gets a sentence naming
 * the object and the bad value. Statuses: CG_E_INVALID_ARG (port < 0),
 * CG_E_CHANNEL_ABSENT (an object or semaphore does not exist),
 * CG_E_CHANNEL_CORRUPT (header or names fail the checks above),
 * CG_E_CHANNEL_CLOSED (left behind, as above), CG_E_NO_MEMORY,
 * CG_E_PLATFORM (another OS call failed). */
cg_status cg_shm_channel_open(cg_shm_channel **out, int port, cg_err *why);

/* Releases descriptors, mappings and semaphores; unlinks nothing (the
 * objects are the Python side's). NULL is a no-op. No call may be running on
 * the channel. */
void cg_shm_channel_close(cg_shm_channel *ch);

int cg_shm_channel_port(const cg_shm_channel *ch);

/* Where bytes read out of shared memory go. reserve(user, len, &dst) is
 * called once the length is known and checked; it returns CG_OK and a
 * buffer of len bytes (ignored when len is 0), or a failure that the read
 * then returns. After a successful reserve, finish(user, ok) is always
 * called: ok = 1 when dst holds the bytes, 0 when the read failed after all
 * (the object shrank under us). Nothing of the channel is locked that the
 * caller could need meanwhile. */
typedef struct cg_shm_sink {
    cg_status (*reserve)(void *user, size_t len, uint8_t **dst);
    void (*finish)(void *user, int ok);
    void *user;
} cg_shm_sink;

/* Hands the initial-environment bytes (initial_environment_offset/size of
 * p2j, checked) to `sink`. Does not wait. */
cg_status cg_shm_channel_read_initial_environment(cg_shm_channel *ch, const cg_shm_sink *sink,
                                                  cg_err *why);

/* Waits for one post of /cg_sem_act<port> (one post = one action), then
 * hands the action bytes (action_offset/size, checked after the post) to
 * `sink`. While waiting it holds no lock and checks about every 100 ms that
 * the Python side is still there: both object names still exist (on Linux:
 * and still lead to the objects opened, not a new session's), and, on
 * Linux, some process found mapping the objects or semaphores at open is
 * still alive. When not, it returns CG_E_CHANNEL_CLOSED, and so does every
 * later call on this channel. If the sink's reserve fails, the post is
 * given back, so the next call delivers the same action. */
cg_status cg_shm_channel_read_action(cg_shm_channel *ch, const cg_shm_sink *sink, cg_err *why);

/* Publishes data[0..len): writes it at offset 24 of j2p, growing the object
 * to at least 24 + len (never shrinking it), sets data_offset = 24 and
 * data_size = len, then posts /cg_sem_obs<port>. CG_E_OVERFLOW when 24 + len
 * does not fit an object size; CG_E_NO_MEMORY when the system has no room
 * for the bytes; CG_E_PLATFORM when the object cannot grow (macOS sets a
 * shared-memory object's size only once, so there j2p must be created large
 * enough). data may be NULL when len is 0. */
cg_status cg_shm_channel_write(cg_shm_channel *ch, const uint8_t *data, size_t len, cg_err *why);

#ifdef __cplusplus
}
#endif

#endif /* CG_SHM_CHANNEL_H */
