/* craftground_capture._lease: the vector learner's per-game step in C.
 *
 * VectorLearner.step (python/craftground_capture/vector.py) takes, per game, the lease
 * of the frame its descriptor names and, once the gather completed, gives it back. In
 * Python that is a descriptor comparison, a compare-and-swap through ctypes and the
 * entry's bookkeeping, about 3.5 us a game on a busy host; here it is a fraction of it.
 * The module is optional: without it the step runs the same rules in Python
 * (vector.py's _lease_py), which also takes every row this module hands back ("misses":
 * a first descriptor, a changed one, a failed compare-and-swap, anything unexpected).
 * The step's driver calls in its common case run here too (queue, poll: below), through
 * the functions the Python side found in its libcuda.
 *
 * It trusts nothing it is given. A descriptor comes from the game's message: it is only
 * compared byte for byte against the row's template and two fields read at fixed
 * offsets once its length is known. Anything of the wrong type or size is a miss, never
 * a read past a buffer. Any call back into Python (a comparison, an attribute, a
 * conversion, an allocation that runs a collection, the driver's query) may run code
 * that changes the lists the call reads from: every object used after such a call is
 * held by a strong reference of this module's, or fetched again after it. A lease word
 * is written only under a hold on its control block's mapping (hold_block: an export of
 * ControlBlock._map, which mmap.close() refuses while it lives), never on the strength
 * of a check another thread could invalidate (close() releases the GIL while it unmaps).
 *
 * Built against the limited API of Python 3.8 (one abi3 binary for every later Python).
 * Lease words: frame << 8 | state (docs/zero-copy-v2/protocol.md, "The control block"). */
#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

enum { ST_PUBLISHED = 2, ST_ACTIVE = 3, ST_RELEASED = 4 };
enum { ABI = 2 };

/* The row template's fields (vector.py's _row) and a lease entry's, in tuple order: the
 * enums index them here and the names go out as ROW_FIELDS and ENTRY_FIELDS, which
 * vector.load_native compares with _wire's (the one Python definition); a helper whose
 * names differ is refused, so the two sides never read each other's tuples by stale
 * indexes. */
#define ROW_FIELDS(X)                                                                        \
    X(R_RING, "ring") X(R_CTL, "control") X(R_DESC, "desc") X(R_HEAD, "head")                 \
    X(R_MID, "mid") X(R_TAIL, "tail") X(R_RID, "ring_id") X(R_SLOTS, "slots")                 \
    X(R_WORDS, "words") X(R_PTRS, "pointers") X(R_SEM, "semaphore") X(R_PITCH, "row_pitch")   \
    X(R_Q, "view") X(R_KS, "indexes") X(R_ADDRS, "addresses")
#define ENTRY_FIELDS(X)                                                                      \
    X(E_ROW, "row") X(E_RING, "ring") X(E_DESC, "desc") X(E_PTR, "pointer")                   \
    X(E_SLOT, "slot") X(E_FRAME, "frame") X(E_Q, "view") X(E_K, "index")                      \
    X(E_CTL, "control") X(E_ADDR, "address")
#define FIELD_ENUM(id, name) id,
#define FIELD_NAME(id, name) name,
enum { ROW_FIELDS(FIELD_ENUM) R_FIELDS };
enum { ENTRY_FIELDS(FIELD_ENUM) E_FIELDS };
static const char *const row_names[] = {ROW_FIELDS(FIELD_NAME)};
static const char *const entry_names[] = {ENTRY_FIELDS(FIELD_NAME)};

/* The descriptor's bytes the fast path compares and reads (the head: the bytes before the
 * slot field; mid: the flags between slot and frame; the tail: the socket path on). The
 * Python side's one definition is _wire.py (LEASE_LAYOUT): this module exports its own as
 * LAYOUT and vector.load_native refuses it where the two differ. */
#define SLOT_OFF 64
#define MID_OFF 68
#define MID_BYTES 4
#define FRAME_OFF 72
#define TAIL_OFF 80

static PyObject *str_control, *str_map, *str_ring_id;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The address an int names, 8-aligned; 0 when it is not one. */
static _Atomic uint64_t *word_at(PyObject *addr)
{
    if (!PyLong_Check(addr))
        return NULL;
    unsigned long long a = PyLong_AsUnsignedLongLong(addr);
    if (a == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (a == 0 || a % 8 != 0)
        return NULL;
    return (_Atomic uint64_t *)(uintptr_t)a;
}

/* Whether obj.<name> is `want` (a failed lookup: no). */
static int attr_is(PyObject *obj, PyObject *name, PyObject *want)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    int is = v == want;
    Py_DECREF(v);
    return is;
}

/* A hold on the control block's mapping: a memoryview of ControlBlock._map, an export
 * that mmap.close() refuses to end (BufferError) while it lives, so the block stays mapped
 * under a store whoever runs meanwhile. NULL (no exception set): the block is closed
 * (_map None, or an mmap already closed: close() publishes both before it unmaps). */
static PyObject *hold_block(PyObject *ctl)
{
    PyObject *m = PyObject_GetAttr(ctl, str_map);
    if (m == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *view = m == Py_None ? NULL : PyMemoryView_FromObject(m);
    Py_DECREF(m);
    if (view == NULL)
        PyErr_Clear();
    return view;
}

/* tup[i], borrowed: tup is a tuple the caller checked the size of. */
static PyObject *item(PyObject *tup, Py_ssize_t i)
{
    return PyTuple_GetItem(tup, i);
}

/* seq[i] of a list or tuple, borrowed; NULL (no exception) when out of range or neither. */
static PyObject *seq_item(PyObject *seq, Py_ssize_t i)
{
    PyObject *v = NULL;
    if (PyList_Check(seq))
        v = PyList_GetItem(seq, i);
    else if (PyTuple_Check(seq))
        v = PyTuple_GetItem(seq, i);
    if (v == NULL)
        PyErr_Clear();
    return v;
}

static int bytes_equal(PyObject *b, const char *at, Py_ssize_t n)
{
    return PyBytes_Check(b) && PyBytes_Size(b) == n && memcmp(PyBytes_AsString(b), at, n) == 0;
}

/* Give back the leases taken in this call (ACTIVE(f) -> RELEASED(f)), on an error. The
 * entries are this call's own tuples in its own list. */
static void undo(PyObject *entries)
{
    for (Py_ssize_t k = 0; k < PyList_Size(entries); k++) {
        PyObject *e = PyList_GetItem(entries, k);
        Py_INCREF(e);
        PyObject *view = hold_block(item(e, E_CTL));
        _Atomic uint64_t *w = word_at(item(e, E_ADDR));
        uint64_t f = PyLong_AsUnsignedLongLong(item(e, E_FRAME));
        uint64_t exp = f << 8 | ST_ACTIVE;
        if (w != NULL && view != NULL)
            atomic_compare_exchange_strong(w, &exp, f << 8 | ST_RELEASED);
        Py_XDECREF(view);
        Py_DECREF(e);
    }
    PyErr_Clear();
}

/* A row of the step, once its descriptor was checked (pass 1 of lease()). */
struct row {
    PyObject *row, *raw, *r; /* strong references (r: NULL until check_row finds it) */
    _Atomic uint64_t *w;     /* TAKE: the lease word of the descriptor's slot */
    uint64_t frame;
    uint32_t slot;
    enum { SKIP, MISS, TAKE } kind;
};

/* Ask for the lease word's cache line in the exclusive state before the swap: the game
 * wrote it last, from another core, so each swap would otherwise wait for its own transfer,
 * one after the other (a locked instruction waits for the line and orders everything). With
 * the hint first, the transfers of all the step's words overlap. x86: PREFETCHW (a NOP on a
 * processor without it: written as an instruction, since the compiler emits one only when
 * built for such a processor); elsewhere the compiler's write prefetch. */
static void prefetch_for_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Pass 1 for one row: SKIP (nothing to do), MISS (the Python rules take it) or TAKE
 * (its word to swap); -1 with an exception set on an error. Reads, never writes. The
 * row's template is kept in c->r (a strong reference: a comparison below may run code
 * that drops it from `cached`); the lists' items are fetched after the last such call. */
static int check_row(struct row *c, PyObject *cached, PyObject *frames, PyObject *last)
{
    PyObject *row = c->row, *raw = c->raw;
    c->kind = MISS;
    if (raw == Py_None) {
        c->kind = SKIP;
        return 0;
    }
    if (!PyBytes_CheckExact(raw) || !PyLong_Check(row))
        return 0;
    Py_ssize_t i = PyLong_AsSsize_t(row);
    if (i < 0) {
        PyErr_Clear();
        return 0;
    }
    PyObject *r = seq_item(cached, i);
    if (r == NULL || !PyTuple_Check(r) || PyTuple_Size(r) < R_FIELDS)
        return 0;
    Py_INCREF(r);
    c->r = r;
    Py_ssize_t len = PyBytes_Size(raw);
    const char *b = PyBytes_AsString(raw);
    if (len < TAIL_OFF || !bytes_equal(item(r, R_TAIL), b + TAIL_OFF, len - TAIL_OFF) ||
        !bytes_equal(item(r, R_HEAD), b, SLOT_OFF) ||
        !bytes_equal(item(r, R_MID), b + MID_OFF, MID_BYTES))
        return 0; /* not the ring's descriptor again: parsed in Python */
    uint32_t slot = le32((const unsigned char *)b + SLOT_OFF);
    uint64_t f = le64((const unsigned char *)b + FRAME_OFF);
    if (!PyLong_Check(item(r, R_SLOTS)))
        return 0;
    long slots = PyLong_AsLong(item(r, R_SLOTS));
    if (slots == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if ((long)slot >= slots || f >= (uint64_t)1 << 56)
        return 0; /* Python raises the FormatError naming the field */
    if (f == 0) {
        c->kind = SKIP; /* a template names no frame */
        return 0;
    }
    PyObject *fi = seq_item(frames, i), *li = seq_item(last, i);
    if (fi == NULL || li == NULL || !PyLong_Check(fi))
        return 0;
    unsigned long long had = PyLong_AsUnsignedLongLong(fi);
    if (had == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (f <= had) {
        Py_INCREF(li); /* its own __eq__ may drop it from `last` */
        int same = PyObject_RichCompareBool(li, item(r, R_RID), Py_EQ);
        Py_DECREF(li);
        if (same < 0)
            return -1;
        if (same) {
            c->kind = SKIP; /* already gathered: the game repeated its descriptor */
            return 0;
        }
    }
    if (!attr_is(item(r, R_RING), str_control, item(r, R_CTL)))
        return 0; /* the row's ring holds another block (or none: closed) */
    PyObject *addr = seq_item(item(r, R_ADDRS), slot); /* after the attribute's code */
    if (seq_item(item(r, R_PTRS), slot) == NULL || seq_item(item(r, R_KS), slot) == NULL ||
        addr == NULL || (c->w = word_at(addr)) == NULL)
        return 0;
    c->slot = slot;
    c->frame = f;
    c->kind = TAKE;
    return 0;
}

/* Pass 2 for a TAKE row: 1 leased (entry appended), 0 a miss (the word was not
 * PUBLISHED(f)), -1 an error (exception set; the lease, if taken, given back). */
static int take_row(const struct row *c, PyObject *out[5], PyObject **pitch, int *mixed)
{
    PyObject *r = c->r, *row = c->row;
    uint64_t f = c->frame;
    uint64_t exp = f << 8 | ST_PUBLISHED;
    /* The block held, and checked to be still the ring's, before anything is fetched: both
     * may run code that changes the template's lists (as may other rows' allocations since
     * pass 1, through a collection). */
    PyObject *view = hold_block(item(r, R_CTL));
    if (view == NULL || !attr_is(item(r, R_RING), str_control, item(r, R_CTL))) {
        Py_XDECREF(view);
        return 0; /* closed, or the ring holds another block: the Python rules say what */
    }
    /* The slot's fields fetched once, here, and held; nothing runs between this and the
     * swap. */
    PyObject *ptr = seq_item(item(r, R_PTRS), c->slot), *k = seq_item(item(r, R_KS), c->slot);
    PyObject *addr = seq_item(item(r, R_ADDRS), c->slot);
    if (ptr == NULL || k == NULL || addr == NULL || word_at(addr) != c->w ||
        !atomic_compare_exchange_strong(c->w, &exp, f << 8 | ST_ACTIVE)) {
        Py_DECREF(view);
        return 0; /* anything but PUBLISHED(f): the Python rules say what it is */
    }
    Py_INCREF(ptr);
    Py_INCREF(k);
    Py_INCREF(addr);
    PyObject *fo = PyLong_FromUnsignedLongLong(f);
    PyObject *so = PyLong_FromUnsignedLong(c->slot);
    PyObject *e = fo && so ? PyTuple_Pack(E_FIELDS, row, item(r, R_RING), item(r, R_DESC), ptr,
                                          so, fo, item(r, R_Q), k, item(r, R_CTL), addr)
                           : NULL;
    Py_XDECREF(so);
    Py_DECREF(k);
    Py_DECREF(addr);
    if (e == NULL || PyList_Append(out[0], e) < 0) {
        exp = f << 8 | ST_ACTIVE; /* not in the entries: given back here, still held */
        atomic_compare_exchange_strong(c->w, &exp, f << 8 | ST_RELEASED);
        Py_DECREF(view);
        Py_DECREF(ptr);
        Py_XDECREF(fo);
        Py_XDECREF(e);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "lease: a row's template changed");
        return -1;
    }
    Py_DECREF(view);
    Py_DECREF(e);
    PyObject *sem = item(r, R_SEM), *pt = item(r, R_PITCH);
    int bad = PyList_Append(out[1], row) < 0 || PyList_Append(out[2], ptr) < 0;
    if (!bad && sem != Py_None)
        bad = PyList_Append(out[3], sem) < 0 || PyList_Append(out[4], fo) < 0;
    Py_DECREF(ptr);
    Py_DECREF(fo);
    if (bad)
        return -1;
    if (*pitch == NULL) {
        *pitch = pt;
    } else if (*pitch != pt) {
        int eq = PyObject_RichCompareBool(*pitch, pt, Py_EQ);
        if (eq < 0)
            return -1;
        if (!eq)
            *mixed = 1;
    }
    return 1;
}

PyDoc_STRVAR(lease_doc,
             "lease(rows, descriptors, cached, frames, last) -> (entries, index, src, sem_h, "
             "sem_v, pitch, mixed, miss_rows, miss_raws)\n\n"
             "The step's leases of the rows whose descriptor is their template's but for slot "
             "and frame (vector.py's _lease_py, its fast path); every other row is handed back "
             "in miss_rows/miss_raws. pitch: the row pitch the entries share (None: no entry), "
             "mixed: they differ. On an exception no lease of this call is kept.");

static PyObject *lease(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *rows, *descs, *cached, *frames, *last;
    if (!PyArg_ParseTuple(args, "OOOOO", &rows, &descs, &cached, &frames, &last))
        return NULL;
    if (!(PyList_Check(rows) || PyTuple_Check(rows)) || !PyList_Check(descs)) {
        PyErr_SetString(PyExc_TypeError, "lease: rows must be a list or tuple, descriptors a list");
        return NULL;
    }
    Py_ssize_t n = PyList_Check(rows) ? PyList_Size(rows) : PyTuple_Size(rows);
    if (PyList_Size(descs) != n) {
        PyErr_SetString(PyExc_ValueError, "lease: as many descriptors as rows");
        return NULL;
    }
    PyObject *out[5] = {PyList_New(0), PyList_New(0), PyList_New(0), PyList_New(0),
                        PyList_New(0)};
    PyObject *miss_rows = PyList_New(0), *miss_raws = PyList_New(0), *pitch = NULL;
    int mixed = 0, failed = miss_rows == NULL || miss_raws == NULL;
    for (int j = 0; j < 5; j++)
        failed |= out[j] == NULL;
    struct row *c = failed || n == 0 ? NULL : PyMem_Calloc((size_t)n, sizeof *c);
    if (n > 0 && c == NULL && !failed) {
        PyErr_NoMemory();
        failed = 1;
    }
    /* Pass 1: every row checked, every word to swap asked for; pass 2: the swaps. */
    for (Py_ssize_t k = 0; k < n && !failed; k++) {
        c[k].row = seq_item(rows, k); /* fetched now: an earlier row's code may change them */
        c[k].raw = seq_item(descs, k);
        Py_XINCREF(c[k].row);
        Py_XINCREF(c[k].raw);
        if (c[k].row == NULL || c[k].raw == NULL || check_row(&c[k], cached, frames, last) < 0)
            failed = 1;
        else if (c[k].kind == TAKE)
            prefetch_for_write((const void *)c[k].w);
    }
    for (Py_ssize_t k = 0; k < n && !failed; k++) {
        int got = c[k].kind == TAKE ? take_row(&c[k], out, &pitch, &mixed)
                                    : c[k].kind == MISS ? 0 : 1;
        if (got == 0)
            failed = PyList_Append(miss_rows, c[k].row) < 0 ||
                     PyList_Append(miss_raws, c[k].raw) < 0;
        else if (got < 0)
            failed = 1;
    }
    PyObject *res = NULL;
    if (!failed)
        res = Py_BuildValue("(OOOOOOOOO)", out[0], out[1], out[2], out[3], out[4],
                            pitch ? pitch : Py_None, mixed ? Py_True : Py_False, miss_rows,
                            miss_raws);
    for (Py_ssize_t k = 0; c != NULL && k < n; k++) { /* pitch was one of the templates' */
        Py_XDECREF(c[k].row);
        Py_XDECREF(c[k].raw);
        Py_XDECREF(c[k].r);
    }
    PyMem_Free(c);
    if (res == NULL && out[0] != NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        undo(out[0]);
        if (type == NULL)
            PyErr_SetString(PyExc_RuntimeError, "lease: a row could not be read");
        else
            PyErr_Restore(type, value, tb);
    }
    for (int j = 0; j < 5; j++)
        Py_XDECREF(out[j]);
    Py_XDECREF(miss_rows);
    Py_XDECREF(miss_raws);
    return res;
}

/* release()'s stores for one list of entries (a list checked by the caller). Each entry is
 * held while it is read (the block's attribute may run code that empties the list); the
 * hold on a block is kept for the entries after it of the same block (the common case: one
 * lookup a ring, not a row). */
static void release_entries(PyObject *entries)
{
    PyObject *held = NULL, *view = NULL; /* the block `view` holds, and the hold */
    for (Py_ssize_t k = 0; k < PyList_Size(entries); k++) {
        PyObject *e = PyList_GetItem(entries, k);
        if (e == NULL || !PyTuple_Check(e) || PyTuple_Size(e) < E_FIELDS) {
            PyErr_Clear();
            continue;
        }
        Py_INCREF(e);
        PyObject *ctl = item(e, E_CTL);
        if (ctl != held) {
            Py_XDECREF(view);
            Py_XDECREF(held);
            Py_INCREF(ctl);
            held = ctl;
            view = hold_block(ctl);
        }
        _Atomic uint64_t *w = word_at(item(e, E_ADDR));
        PyObject *fo = item(e, E_FRAME);
        unsigned long long f = PyLong_Check(fo) ? PyLong_AsUnsignedLongLong(fo) : 0;
        if (f == (unsigned long long)-1 && PyErr_Occurred())
            PyErr_Clear();
        /* A release store (unless the ring was closed: nothing to give back): the gather's
         * reads completed (its event) before this, and the game reads the word with acquire
         * ordering; no need to wait for the line here. */
        else if (w != NULL && view != NULL && PyLong_Check(fo) && f < (uint64_t)1 << 56)
            atomic_store_explicit(w, (uint64_t)f << 8 | ST_RELEASED, memory_order_release);
        Py_DECREF(e);
    }
    Py_XDECREF(view);
    Py_XDECREF(held);
}

PyDoc_STRVAR(release_doc,
             "release(entries) -> int\n\n"
             "Each entry's lease given back: F << 8 | RELEASED stored over its ACTIVE(F) word "
             "(nothing else moves a word out of ACTIVE while the learner is connected), unless "
             "its control block was closed. Returns how many entries there were.");

static PyObject *release(PyObject *self, PyObject *entries)
{
    (void)self;
    if (!PyList_Check(entries)) {
        PyErr_SetString(PyExc_TypeError, "release: a list of entries");
        return NULL;
    }
    Py_ssize_t n = PyList_Size(entries);
    release_entries(entries);
    return PyLong_FromSsize_t(n);
}

PyDoc_STRVAR(commit_doc,
             "commit(entries, new, last, frames) -> None\n\n"
             "After the step's work was queued: for each entry's row i, new[i] = True, last[i] = "
             "its descriptor's ring_id, frames[i] = its frame.");

static PyObject *commit(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *entries, *new_, *last, *frames;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyList_Type, &entries, &PyList_Type, &new_,
                          &PyList_Type, &last, &PyList_Type, &frames))
        return NULL;
    for (Py_ssize_t k = 0; k < PyList_Size(entries); k++) {
        PyObject *e = PyList_GetItem(entries, k);
        if (e == NULL || !PyTuple_Check(e) || PyTuple_Size(e) < E_FIELDS) {
            PyErr_SetString(PyExc_TypeError, "commit: an entry is not a lease's");
            return NULL;
        }
        Py_INCREF(e); /* the descriptor's attribute may run code that empties `entries` */
        Py_ssize_t i = PyLong_AsSsize_t(item(e, E_ROW));
        PyObject *rid = i == -1 && PyErr_Occurred()
                            ? NULL
                            : PyObject_GetAttr(item(e, E_DESC), str_ring_id);
        /* PyList_SetItem steals the reference it is given, also when it fails (i out of
         * range): each one is taken right before its own call, none is left over. */
        int bad = rid == NULL;
        if (!bad) {
            Py_INCREF(Py_True);
            bad = PyList_SetItem(new_, i, Py_True) < 0;
        }
        if (!bad) {
            bad = PyList_SetItem(last, i, rid) < 0;
            rid = NULL;
        }
        if (!bad) {
            Py_INCREF(item(e, E_FRAME));
            bad = PyList_SetItem(frames, i, item(e, E_FRAME)) < 0;
        }
        Py_XDECREF(rid);
        Py_DECREF(e);
        if (bad)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* --- The step's driver calls ------------------------------------------------------------
 *
 * The rest of the step's common case, in C too: the one semaphore wait for every
 * semaphore-mode row, the gather launches and the event record (queue), and at the next
 * step the event queries with their releases (poll). The functions are the ones the Python
 * side found in its libcuda, their addresses handed over once (driver): the module links and
 * loads no library, and is built without CUDA's headers (the types below are cuda.h's as it
 * lays them out on 64-bit Linux). Every argument is converted and checked before the first
 * call, so a bad one is an exception with nothing queued; a call that fails stops the
 * sequence and is returned by name with its CUresult (vector.py raises the RingError). */

typedef int cu_result;
/* CUstream, CUevent, CUfunction and CUexternalSemaphore are pointers to opaque structs. */
typedef cu_result (*wait_fn)(void *const *sems, const void *params, unsigned n, void *stream);
typedef cu_result (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, void *stream,
                               void **params, void **extra);
typedef cu_result (*record_fn)(void *ev, void *stream);
typedef cu_result (*query_fn)(void *ev);

enum {
    CU_NOT_READY = 600,
    WAIT_PARAMS_BYTES = 144, /* CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS; fence value at 0 */
    GATHER_MAX = 256,        /* kernels/gather.cu's CG_GATHER_MAX */
    BLOCK = 256,             /* threads a block */
};

struct gather_list { /* struct cg_gather_list, the kernel's first argument, by value */
    uint64_t src[GATHER_MAX];
    uint32_t dst_index[GATHER_MAX];
};
_Static_assert(sizeof(struct gather_list) == 3072, "cg_gather_list's layout");

struct driver {
    wait_fn wait;
    launch_fn launch;
    record_fn record;
    query_fn query;
    void *fn; /* the gather's CUfunction (NULL: none loaded, no launch) */
    /* The kernel's arguments (params[] points at them; the driver copies them at the call). */
    struct gather_list list;
    uint64_t base;
    uint32_t height, row, pitch, flip, words;
    void *params[7];
    /* Scratch grown to the largest step: the semaphores, their wait params, the sources and
     * their batch rows, converted before any call. */
    void **sems;
    unsigned char *waits;
    uint64_t *src;
    uint32_t *index;
    size_t sems_cap, waits_cap, src_cap, index_cap;
};

static const char driver_name[] = "craftground_capture._lease.driver";

static void driver_free(PyObject *cap)
{
    struct driver *d = PyCapsule_GetPointer(cap, driver_name);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    PyMem_Free(d->sems);
    PyMem_Free(d->waits);
    PyMem_Free(d->src);
    PyMem_Free(d->index);
    PyMem_Free(d);
}

/* o as an integer in [0, max]; -1 with TypeError/OverflowError/ValueError set otherwise. */
static int as_u64(PyObject *o, uint64_t max, const char *what, uint64_t *out)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", what);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (v > max) {
        PyErr_Format(PyExc_ValueError, "%s out of range", what);
        return -1;
    }
    *out = v;
    return 0;
}

/* A function's address: a nonzero int. */
static int as_fn(PyObject *o, const char *what, uint64_t *out)
{
    if (as_u64(o, UINTPTR_MAX, what, out) < 0)
        return -1;
    if (*out == 0) {
        PyErr_Format(PyExc_ValueError, "%s is null", what);
        return -1;
    }
    return 0;
}

static struct driver *driver_of(PyObject *cap)
{
    return PyCapsule_GetPointer(cap, driver_name); /* sets the exception when it is not one */
}

/* Grow the array *pp points at (a pointer of any object type, read and written with memcpy,
 * not through a void ** of another type) to at least want elements of size; 0 on success. */
static int grow(void *pp, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    size_t n = want < 64 ? 64 : want;
    void *p;
    memcpy(&p, pp, sizeof p);
    void *q = PyMem_Realloc(p, n * size);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(pp, &q, sizeof q);
    *cap = n;
    return 0;
}

PyDoc_STRVAR(driver_doc,
             "driver(wait, launch, record, query, fn, base, height, row, flip) -> capsule\n\n"
             "The step's driver calls: the addresses of cuWaitExternalSemaphoresAsync, "
             "cuLaunchKernel, cuEventRecord and cuEventQuery, the gather's CUfunction (0: "
             "none) and the batch's fixed arguments (its device pointer, height, row bytes, "
             "flip).");

static PyObject *driver(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[9];
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8]))
        return NULL;
    uint64_t v[9];
    static const char *const what[9] = {"wait", "launch", "record", "query", "fn", "base",
                                        "height", "row", "flip"};
    for (int k = 0; k < 4; k++)
        if (as_fn(o[k], what[k], &v[k]) < 0)
            return NULL;
    if (as_u64(o[4], UINTPTR_MAX, what[4], &v[4]) < 0 || as_u64(o[5], UINT64_MAX, what[5],
                                                                 &v[5]) < 0)
        return NULL;
    for (int k = 6; k < 9; k++)
        if (as_u64(o[k], k == 8 ? 1 : UINT32_MAX, what[k], &v[k]) < 0)
            return NULL;
    struct driver *d = PyMem_Calloc(1, sizeof *d);
    if (d == NULL)
        return PyErr_NoMemory();
    d->wait = (wait_fn)(uintptr_t)v[0];
    d->launch = (launch_fn)(uintptr_t)v[1];
    d->record = (record_fn)(uintptr_t)v[2];
    d->query = (query_fn)(uintptr_t)v[3];
    d->fn = (void *)(uintptr_t)v[4];
    d->base = v[5];
    d->height = (uint32_t)v[6];
    d->row = (uint32_t)v[7];
    d->flip = (uint32_t)v[8];
    void *params[7] = {&d->list, &d->base, &d->height, &d->row, &d->pitch, &d->flip, &d->words};
    memcpy(d->params, params, sizeof params);
    PyObject *cap = PyCapsule_New(d, driver_name, driver_free);
    if (cap == NULL)
        PyMem_Free(d);
    return cap;
}

/* (launches, None, 0) or (launches, the failed call's name, its CUresult). */
static PyObject *outcome(Py_ssize_t n, const char *failed, cu_result res)
{
    if (failed == NULL)
        return Py_BuildValue("(nOi)", n, Py_None, 0);
    return Py_BuildValue("(nsi)", n, failed, res);
}

PyDoc_STRVAR(queue_doc,
             "queue(driver, sems, values, index, src, pitch, words, gx, stream, event) -> "
             "(launches, failed, result)\n\n"
             "The step's GPU work on `stream`: one cuWaitExternalSemaphoresAsync for every "
             "(semaphore, value) (none when sems is empty), the gather of frame src[k] (rows "
             "`pitch` bytes apart) into batch frame index[k] in launches of 256 frames (grid gx "
             "x frames, 256-thread blocks; words: 4 bytes a thread), then cuEventRecord(event). "
             "Every argument is checked before the first call (TypeError, ValueError: nothing "
             "queued); the first call that fails ends it: failed names it, result is its "
             "CUresult, launches counts the launches made.");

static PyObject *queue(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *sems, *values, *index, *src, *o_pitch, *o_words, *o_gx, *o_stream, *o_ev;
    if (!PyArg_ParseTuple(args, "OO!O!O!O!OOOOO", &cap, &PyList_Type, &sems, &PyList_Type,
                          &values, &PyList_Type, &index, &PyList_Type, &src, &o_pitch,
                          &o_words, &o_gx, &o_stream, &o_ev))
        return NULL;
    struct driver *d = driver_of(cap);
    if (d == NULL)
        return NULL;
    Py_ssize_t m = PyList_Size(sems), n = PyList_Size(src);
    if (PyList_Size(values) != m || PyList_Size(index) != n) {
        PyErr_SetString(PyExc_ValueError, "queue: as many values as semaphores, rows as frames");
        return NULL;
    }
    if (n < 1 || d->fn == NULL) {
        PyErr_SetString(PyExc_ValueError, n < 1 ? "queue: no frame to gather"
                                                : "queue: no gather kernel loaded");
        return NULL;
    }
    if (m > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "queue: too many semaphores");
        return NULL;
    }
    uint64_t pitch, words, gx, stream, ev, v;
    if (as_u64(o_pitch, UINT32_MAX, "pitch", &pitch) < 0 ||
        as_u64(o_words, 1, "words", &words) < 0 || as_u64(o_gx, UINT32_MAX, "gx", &gx) < 0 ||
        as_u64(o_stream, UINTPTR_MAX, "stream", &stream) < 0 ||
        as_u64(o_ev, UINTPTR_MAX, "event", &ev) < 0)
        return NULL;
    if (gx == 0) {
        PyErr_SetString(PyExc_ValueError, "gx out of range");
        return NULL;
    }
    if (grow(&d->sems, &d->sems_cap, (size_t)m, sizeof *d->sems) < 0 ||
        grow(&d->waits, &d->waits_cap, (size_t)m, WAIT_PARAMS_BYTES) < 0 ||
        grow(&d->src, &d->src_cap, (size_t)n, sizeof *d->src) < 0 ||
        grow(&d->index, &d->index_cap, (size_t)n, sizeof *d->index) < 0)
        return NULL;
    if (m > 0)
        memset(d->waits, 0, (size_t)m * WAIT_PARAMS_BYTES);
    for (Py_ssize_t k = 0; k < m; k++) {
        if (as_u64(PyList_GetItem(sems, k), UINTPTR_MAX, "a semaphore", &v) < 0)
            return NULL;
        d->sems[k] = (void *)(uintptr_t)v;
        if (as_u64(PyList_GetItem(values, k), UINT64_MAX, "a wait value", &v) < 0)
            return NULL;
        memcpy(d->waits + (size_t)k * WAIT_PARAMS_BYTES, &v, sizeof v);
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (as_u64(PyList_GetItem(src, k), UINT64_MAX, "a frame's pointer", &d->src[k]) < 0 ||
            as_u64(PyList_GetItem(index, k), UINT32_MAX, "a batch row", &v) < 0)
            return NULL;
        d->index[k] = (uint32_t)v;
    }
    /* The calls: nothing below raises. */
    cu_result res;
    void *s = (void *)(uintptr_t)stream;
    if (m > 0 && (res = d->wait(d->sems, d->waits, (unsigned)m, s)) != 0)
        return outcome(0, "cuWaitExternalSemaphoresAsync", res);
    d->pitch = (uint32_t)pitch;
    d->words = (uint32_t)words;
    Py_ssize_t launches = 0;
    for (Py_ssize_t k = 0; k < n; k += GATHER_MAX) {
        size_t part = (size_t)(n - k < GATHER_MAX ? n - k : GATHER_MAX);
        memcpy(d->list.src, d->src + k, part * sizeof *d->src);
        memcpy(d->list.dst_index, d->index + k, part * sizeof *d->index);
        res = d->launch(d->fn, (unsigned)gx, (unsigned)part, 1, BLOCK, 1, 1, 0, s, d->params,
                        NULL);
        if (res != 0)
            return outcome(launches, "cuLaunchKernel", res);
        launches++;
    }
    if ((res = d->record((void *)(uintptr_t)ev, s)) != 0)
        return outcome(launches, "cuEventRecord", res);
    return outcome(launches, NULL, 0);
}

PyDoc_STRVAR(poll_doc,
             "poll(driver, pending, free_events) -> (released, failed, result)\n\n"
             "While pending's oldest (event, entries) has completed (cuEventQuery), its leases "
             "are given back (release()'s stores), its event appended to free_events and it is "
             "removed. Never waits. released: the leases given back; failed: 'cuEventQuery' "
             "when a query failed (result its CUresult), else None.");

static PyObject *poll(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cap, *pending, *free_events;
    if (!PyArg_ParseTuple(args, "OO!O!", &cap, &PyList_Type, &pending, &PyList_Type,
                          &free_events))
        return NULL;
    struct driver *d = driver_of(cap);
    if (d == NULL)
        return NULL;
    Py_ssize_t released = 0;
    while (PyList_Size(pending) > 0) {
        PyObject *p = PyList_GetItem(pending, 0), *entries;
        uint64_t ev;
        if (p == NULL || !PyTuple_Check(p) || PyTuple_Size(p) != 2 ||
            !PyList_Check(entries = item(p, 1))) {
            PyErr_SetString(PyExc_TypeError, "poll: pending holds (event, entries) pairs");
            return NULL;
        }
        if (as_u64(item(p, 0), UINTPTR_MAX, "an event", &ev) < 0)
            return NULL;
        Py_INCREF(p); /* held across the query (a stand-in may run code) and the releases */
        cu_result res = d->query((void *)(uintptr_t)ev);
        if (res == CU_NOT_READY || res != 0) {
            Py_DECREF(p);
            if (res == CU_NOT_READY)
                break;
            return outcome(released, "cuEventQuery", res);
        }
        released += PyList_Size(entries);
        release_entries(entries);
        int bad = PyList_Append(free_events, item(p, 0)) < 0;
        if (!bad && (PyList_Size(pending) < 1 || PyList_GetItem(pending, 0) != p)) {
            PyErr_SetString(PyExc_RuntimeError, "poll: pending changed during the query");
            bad = 1; /* its leases were given back; nothing else of the list is touched */
        }
        bad = bad || PySequence_DelItem(pending, 0) < 0;
        Py_DECREF(p);
        if (bad)
            return NULL;
    }
    return outcome(released, NULL, 0);
}

static PyMethodDef methods[] = {
    {"lease", lease, METH_VARARGS, lease_doc},
    {"release", release, METH_O, release_doc},
    {"commit", commit, METH_VARARGS, commit_doc},
    {"driver", driver, METH_VARARGS, driver_doc},
    {"queue", queue, METH_VARARGS, queue_doc},
    {"poll", poll, METH_VARARGS, poll_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lease",
    "The vector learner's per-game lease, release and bookkeeping, and its step's driver calls "
    "(optional; vector.py runs the same rules in Python without it).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lease(void); /* the import hook, the one exported symbol */

/* m.name = a tuple of the n strings of names; -1 with the exception set on failure. */
static int add_names(PyObject *m, const char *name, const char *const *names, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t != NULL && i < n; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (s == NULL || PyTuple_SetItem(t, i, s) < 0) /* steals s, even on failure */
            Py_CLEAR(t);
    }
    if (t == NULL || PyModule_AddObject(m, name, t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__lease(void)
{
    str_control = PyUnicode_InternFromString("_control");
    str_map = PyUnicode_InternFromString("_map");
    str_ring_id = PyUnicode_InternFromString("ring_id");
    if (str_control == NULL || str_map == NULL || str_ring_id == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyObject *states = Py_BuildValue("(iii)", ST_PUBLISHED, ST_ACTIVE, ST_RELEASED);
    if (states == NULL || PyModule_AddObject(m, "STATES", states) < 0) {
        Py_XDECREF(states);
        Py_DECREF(m);
        return NULL;
    }
    if (add_names(m, "ROW_FIELDS", row_names, R_FIELDS) < 0 ||
        add_names(m, "ENTRY_FIELDS", entry_names, E_FIELDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *layout =
        Py_BuildValue("(iiiii)", SLOT_OFF, MID_OFF, MID_BYTES, FRAME_OFF, TAIL_OFF);
    if (layout == NULL || PyModule_AddObject(m, "LAYOUT", layout) < 0 ||
        PyModule_AddIntConstant(m, "ABI", ABI) < 0 ||
        PyModule_AddIntConstant(m, "TAIL_OFF", TAIL_OFF) < 0) {
        Py_XDECREF(layout);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
