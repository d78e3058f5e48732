/* craftground_capture._lease: the vector learner's per-game step in C.
 *
 * VectorLearner.step (python/craftground_capture/vector.py) takes, per game, the lease
 * of the frame its descriptor names and, once the gather completed, gives it back. In
 * Python that is a descriptor comparison, a compare-and-swap through ctypes and the
 * entry's bookkeeping, about 3.5 us a game on a busy host; here it is a fraction of it.
 * The module is optional: without it the step runs the same rules in Python
 * (vector.py's _lease_py), which also takes every row this module hands back ("misses":
 * a first descriptor, a changed one, a failed compare-and-swap, anything unexpected).
 *
 * It trusts nothing it is given. A descriptor comes from the game's message: it is only
 * compared byte for byte against the row's template and two fields read at fixed
 * offsets once its length is known. Anything of the wrong type or size is a miss, never
 * a read past a buffer. A lease word is written only while its control block is mapped
 * (the row's ring still holds that block; the entry's block has not been closed): the
 * GIL is held throughout, so nothing closes it between the check and the write.
 *
 * Built against the limited API of Python 3.8 (one abi3 binary for every later Python).
 * Lease words: frame << 8 | state (docs/zero-copy-v2.md, "The control block"). */
#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

enum { ST_PUBLISHED = 2, ST_ACTIVE = 3, ST_RELEASED = 4 };
enum { ABI = 1 };

/* The row template's fields (vector.py's _row), by index. */
enum {
    R_RING, R_CTL, R_DESC, R_HEAD, R_MID, R_TAIL, R_RID, R_SLOTS, R_WORDS, R_PTRS, R_SEM,
    R_PITCH, R_Q, R_KS, R_ADDRS, R_FIELDS
};
/* An entry's fields: (row, ring, descriptor, pointer, slot, frame, word view, word
 * index, control block, word address). */
enum { E_ROW, E_RING, E_DESC, E_PTR, E_SLOT, E_FRAME, E_Q, E_K, E_CTL, E_ADDR, E_FIELDS };

#define HEAD_BYTES 64 /* bytes before the slot field */
#define SLOT_OFF 64
#define MID_OFF 68 /* the flags between slot and frame */
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

/* Whether the control block is still mapped (ControlBlock._map is not None). */
static int block_mapped(PyObject *ctl)
{
    PyObject *m = PyObject_GetAttr(ctl, str_map);
    if (m == NULL) {
        PyErr_Clear();
        return 0;
    }
    int mapped = m != Py_None;
    Py_DECREF(m);
    return mapped;
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

/* Give back the leases taken in this call (ACTIVE(f) -> RELEASED(f)), on an error. */
static void undo(PyObject *entries)
{
    Py_ssize_t n = PyList_Size(entries);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PyList_GetItem(entries, k);
        _Atomic uint64_t *w = word_at(item(e, E_ADDR));
        uint64_t f = PyLong_AsUnsignedLongLong(item(e, E_FRAME));
        uint64_t exp = f << 8 | ST_ACTIVE;
        if (w != NULL && block_mapped(item(e, E_CTL))) /* nothing allocated in between */
            atomic_compare_exchange_strong(w, &exp, f << 8 | ST_RELEASED);
    }
    PyErr_Clear();
}

/* A row of the step, once its descriptor was checked (pass 1 of lease()). */
struct row {
    PyObject *row, *raw, *r; /* borrowed: the step's lists and the row's template hold them */
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
 * (its word to swap); -1 with an exception set on an error. Reads, never writes. */
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
    Py_ssize_t len = PyBytes_Size(raw);
    const char *b = PyBytes_AsString(raw);
    if (len < TAIL_OFF || !bytes_equal(item(r, R_TAIL), b + TAIL_OFF, len - TAIL_OFF) ||
        !bytes_equal(item(r, R_HEAD), b, HEAD_BYTES) ||
        !bytes_equal(item(r, R_MID), b + MID_OFF, MID_BYTES))
        return 0; /* not the ring's descriptor again: parsed in Python */
    uint32_t slot = le32((const unsigned char *)b + SLOT_OFF);
    uint64_t f = le64((const unsigned char *)b + FRAME_OFF);
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
        int same = PyObject_RichCompareBool(li, item(r, R_RID), Py_EQ);
        if (same < 0)
            return -1;
        if (same) {
            c->kind = SKIP; /* already gathered: the game repeated its descriptor */
            return 0;
        }
    }
    PyObject *ring = item(r, R_RING), *ctl = item(r, R_CTL);
    PyObject *addr = seq_item(item(r, R_ADDRS), slot);
    if (seq_item(item(r, R_PTRS), slot) == NULL || seq_item(item(r, R_KS), slot) == NULL ||
        addr == NULL || !attr_is(ring, str_control, ctl))
        return 0; /* the row's ring holds another block (or none: closed) */
    if ((c->w = word_at(addr)) == NULL)
        return 0;
    c->r = r;
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
    /* The slot's fields fetched once, here: pass 1 saw them, but other rows' allocations in
     * between may run a collection, and whatever runs then may change the template's lists. */
    PyObject *ptr = seq_item(item(r, R_PTRS), c->slot), *k = seq_item(item(r, R_KS), c->slot);
    PyObject *addr = seq_item(item(r, R_ADDRS), c->slot);
    /* The block checked again right before the swap, nothing allocated in between. */
    if (ptr == NULL || k == NULL || addr == NULL || word_at(addr) != c->w ||
        !attr_is(item(r, R_RING), str_control, item(r, R_CTL)) ||
        !atomic_compare_exchange_strong(c->w, &exp, f << 8 | ST_ACTIVE))
        return 0; /* anything but PUBLISHED(f): the Python rules say what it is */
    PyObject *fo = PyLong_FromUnsignedLongLong(f);
    PyObject *so = PyLong_FromUnsignedLong(c->slot);
    PyObject *e = fo && so ? PyTuple_Pack(E_FIELDS, row, item(r, R_RING), item(r, R_DESC), ptr,
                                          so, fo, item(r, R_Q), k, item(r, R_CTL), addr)
                           : NULL;
    Py_XDECREF(so);
    if (e == NULL || PyList_Append(out[0], e) < 0) {
        exp = f << 8 | ST_ACTIVE; /* not in the entries: given back here, if still mapped */
        if (attr_is(item(r, R_RING), str_control, item(r, R_CTL)))
            atomic_compare_exchange_strong(c->w, &exp, f << 8 | ST_RELEASED);
        Py_XDECREF(fo);
        Py_XDECREF(e);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "lease: a row's template changed");
        return -1;
    }
    Py_DECREF(e);
    PyObject *sem = item(r, R_SEM), *pt = item(r, R_PITCH);
    int bad = PyList_Append(out[1], row) < 0 || PyList_Append(out[2], ptr) < 0;
    if (!bad && sem != Py_None)
        bad = PyList_Append(out[3], sem) < 0 || PyList_Append(out[4], fo) < 0;
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
    struct row *c = failed || n == 0 ? NULL : PyMem_Malloc((size_t)n * sizeof *c);
    if (n > 0 && c == NULL && !failed) {
        PyErr_NoMemory();
        failed = 1;
    }
    /* Pass 1: every row checked, every word to swap asked for; pass 2: the swaps. */
    for (Py_ssize_t k = 0; k < n && !failed; k++) {
        c[k].row = seq_item(rows, k);
        c[k].raw = PyList_GetItem(descs, k);
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
    PyMem_Free(c);
    PyObject *res = NULL;
    if (!failed)
        res = Py_BuildValue("(OOOOOOOOO)", out[0], out[1], out[2], out[3], out[4],
                            pitch ? pitch : Py_None, mixed ? Py_True : Py_False, miss_rows,
                            miss_raws);
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
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PyList_GetItem(entries, k);
        if (e == NULL || !PyTuple_Check(e) || PyTuple_Size(e) < E_FIELDS) {
            PyErr_Clear();
            continue;
        }
        _Atomic uint64_t *w = word_at(item(e, E_ADDR));
        PyObject *fo = item(e, E_FRAME);
        if (w == NULL || !PyLong_Check(fo) || !block_mapped(item(e, E_CTL)))
            continue; /* the ring was closed: nothing to give back */
        unsigned long long f = PyLong_AsUnsignedLongLong(fo);
        if ((f == (unsigned long long)-1 && PyErr_Occurred()) || f >= (uint64_t)1 << 56) {
            PyErr_Clear();
            continue;
        }
        /* A release store: the gather's reads completed (its event) before this, and the
         * game reads the word with acquire ordering; no need to wait for the line here. */
        atomic_store_explicit(w, (uint64_t)f << 8 | ST_RELEASED, memory_order_release);
    }
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
    Py_ssize_t n = PyList_Size(entries);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *e = PyList_GetItem(entries, k);
        if (e == NULL || !PyTuple_Check(e) || PyTuple_Size(e) < E_FIELDS) {
            PyErr_SetString(PyExc_TypeError, "commit: an entry is not a lease's");
            return NULL;
        }
        Py_ssize_t i = PyLong_AsSsize_t(item(e, E_ROW));
        if (i == -1 && PyErr_Occurred())
            return NULL;
        PyObject *rid = PyObject_GetAttr(item(e, E_DESC), str_ring_id);
        if (rid == NULL)
            return NULL;
        PyObject *f = item(e, E_FRAME);
        Py_INCREF(Py_True);
        Py_INCREF(f);
        /* PyList_SetItem steals each reference, also when it fails (i out of range). */
        if (PyList_SetItem(new_, i, Py_True) < 0 || PyList_SetItem(last, i, rid) < 0 ||
            PyList_SetItem(frames, i, f) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"lease", lease, METH_VARARGS, lease_doc},
    {"release", release, METH_O, release_doc},
    {"commit", commit, METH_VARARGS, commit_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lease",
    "The vector learner's per-game lease, release and bookkeeping (optional; vector.py runs "
    "the same rules in Python without it).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lease(void); /* the import hook, the one exported symbol */

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
    if (states == NULL || PyModule_AddObject(m, "STATES", states) < 0 ||
        PyModule_AddIntConstant(m, "ABI", ABI) < 0 ||
        PyModule_AddIntConstant(m, "TAIL_OFF", TAIL_OFF) < 0) {
        Py_XDECREF(states);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
