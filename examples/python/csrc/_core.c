/* _core.c - ttft_tpot._core, the package's C extension: the library's collector, its serving layer, its
   writers, the HTML report and the comparison, compiled from the three headers alone (ttft_tpot.h, the
   core; ttft_tpot_serve.h, requests and Prometheus; ttft_tpot_tools.h, which includes the other two).

   A Collector object holds one ttft_tpot collector and the serving layer attached to it (both inside the
   object, whose address never moves). Spans, records, requests and device resolutions call the
   headers' functions; every output is the C writer's, written into a memory stream, so a
   report is the C library's byte for byte. A call the library would refuse raises instead (TypeError
   for a wrong type, ValueError with the library's message for a wrong value or state) and leaves the
   collector as it was: nothing recorded, nothing counted.

   Threads: any thread records into any collector, and a span may end on another thread than the one
   that began it. Under the GIL each call is atomic: the library never calls back into Python while it
   changes a collector (a Python clock is read before). A free-threaded build holds the collector's
   critical section through each call (two for merge and compare; ranks reads collectors that no
   thread records into meanwhile). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Before 3.13 there is no free-threaded build: under the GIL a critical section is nothing. */
#ifndef Py_BEGIN_CRITICAL_SECTION
#define Py_BEGIN_CRITICAL_SECTION(op) {
#define Py_END_CRITICAL_SECTION() }
#define Py_BEGIN_CRITICAL_SECTION2(a, b) {
#define Py_END_CRITICAL_SECTION2() }
#endif

/* ---- Names ----------------------------------------------------------------------------------- */

/* A role's name as every output writes it (the header's TTFT_TPOT_ROLES table), "?" for none. */
static const char *core_role_name(int role)
{
#define CORE_ROLE_NAME(name, value, text) if (role == (value)) return text;
    TTFT_TPOT_ROLES(CORE_ROLE_NAME)
#undef CORE_ROLE_NAME
    return "?";
}

/* Argument names and role names, interned once: a keyword or a role written as a literal in the
   caller's code is the same object, so one pointer comparison finds it. */
#define CORE_NAMES(X)                                                                                 \
    X(PHASE, "phase") X(ROLE, "role") X(TOKENS, "tokens") X(PROMPT_TOKENS, "prompt_tokens")           \
    X(SHAPE, "shape") X(DEVICE, "device") X(NS, "ns") X(START_NS, "start_ns") X(MS, "ms")             \
    X(ID, "id") X(N, "n") X(T_NS, "t_ns") X(TICKET, "ticket") X(BEGIN_NS, "begin_ns")                 \
    X(END_NS, "end_ns") X(PAIR, "pair") X(WARMUP, "warmup") X(STORED_ONLY, "stored_only")             \
    X(BOUNDED, "bounded") X(KEY, "key") X(NAME, "name") X(PREFILL, "prefill") X(DECODE, "decode")      \
    X(KERNEL, "kernel") X(E2E, "e2e") X(STAMPS, "stamps") X(SEQUENCES, "sequences") X(REASON, "reason") \
    X(CACHED, "cached")
#define CORE_ENUM(id, text) S_##id,
enum { CORE_NAMES(CORE_ENUM) S_COUNT };
#undef CORE_ENUM
static PyObject *core_str[S_COUNT]; /* set once by the module's init, read-only after */

/* A role name (prefill, decode, kernel, e2e) to its ttft_tpot_role; -1 with an exception. */
static int core_role(PyObject *o)
{
    int r;
    for (r = 0; r < 4; r++)
        if (o == core_str[S_PREFILL + r])
            return r;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "a role is a str (prefill, decode, kernel or e2e), not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    for (r = 0; r < 4; r++)
        if (PyUnicode_Compare(o, core_str[S_PREFILL + r]) == 0)
            return r;
    PyErr_Format(PyExc_ValueError, "%s: a role is prefill, decode, kernel or e2e, not %R",
                 ttft_tpot_strerror(TTFT_TPOT_EINVAL), o);
    return -1;
}

/* ---- Arguments ------------------------------------------------------------------------------- */

/* A fastcall method's arguments into out[0, n): by position, then by keyword (names: indexes into
   core_str); out[k] stays NULL when not given. The first `required` must be given. 0, or -1 with
   a TypeError. */
static int core_args(const char *fn, const int *names, int n, int required, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames, PyObject **out)
{
    Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int k;
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fn, n, nargs);
        return -1;
    }
    for (k = 0; k < n; k++)
        out[k] = k < nargs ? args[k] : NULL;
    for (i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        for (k = 0; k < n && key != core_str[names[k]]; k++)
            ;
        if (k == n) /* a keyword not interned: by value */
            for (k = 0; k < n && PyUnicode_Compare(key, core_str[names[k]]) != 0; k++)
                ;
        if (k == n || out[k]) {
            PyErr_Format(PyExc_TypeError, k == n ? "%s() got an unexpected keyword argument %R"
                                                 : "%s() got multiple values for argument %R", fn, key);
            return -1;
        }
        out[k] = args[nargs + i];
    }
    for (k = 0; k < required; k++)
        if (!out[k]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument %R", fn, core_str[names[k]]);
            return -1;
        }
    return 0;
}

/* o as an integer in [lo, hi] into *v: TypeError unless an int (a bool is not a count); ValueError
   out of range, with the library's message err. 0, or -1. */
static int core_int(PyObject *o, const char *what, uint64_t lo, uint64_t hi, int err, uint64_t *v)
{
    if (!PyLong_Check(o) || PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s is an int, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    *v = PyLong_AsUnsignedLongLong(o);
    if (*v == (uint64_t)-1 && PyErr_Occurred())
        PyErr_Clear(); /* negative, or 2^64 or more */
    else if (*v >= lo && *v <= hi)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: %s is in %llu..%llu, not %R", ttft_tpot_strerror(err), what,
                 (unsigned long long)lo, (unsigned long long)hi, o);
    return -1;
}

/* core_int for an optional argument: *v = dflt when o is NULL or None. */
static int core_opt(PyObject *o, const char *what, uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t *v)
{
    if (!o || o == Py_None) {
        *v = dflt;
        return 0;
    }
    return core_int(o, what, lo, hi, TTFT_TPOT_EINVAL, v);
}

/* A name (phase, request id) as NUL-terminated UTF-8, checked for type and embedded NULs here; the
   library checks the rest. NULL with an exception. */
static const char *core_utf8(PyObject *o, const char *what, const char *err)
{
    Py_ssize_t len;
    const char *s;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s is a str, not %.100s", what, Py_TYPE(o)->tp_name);
        return NULL;
    }
    s = PyUnicode_AsUTF8AndSize(o, &len);
    if (!s || strlen(s) != (size_t)len) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: %s %R is not UTF-8 without NUL (a lone surrogate, or \\0)", err, what,
                     o);
        return NULL;
    }
    return s;
}

/* ---- Collector: state ------------------------------------------------------------------------ */

#define CORE_CACHE 64 /* phases found by the name object's address (a power of two) */

typedef struct core_phase_ref {
    PyObject *name, *role; /* strong references; NULL: empty */
    int index, role_id;    /* the phase, and its role (TTFT_TPOT_ROLE_*) */
} core_phase_ref;

struct core_span;

typedef struct core_collector {
    PyObject_HEAD
    ttft_tpot c;
    ttft_tpot_serve s;          /* c's serving layer (requests, SLOs, the exposition): attached by __init__
                                   (here, it never moves), freed before c */
    int ready;                  /* __init__ set c up */
    int prefill_kernel;         /* link_prefill_kernel: that kernel phase + 1 (0: none), a report option */
    int enabled;                /* recording on: what the enabled property last set (on at first) */
    int clock_failed;           /* the Python clock raised: its exception is pending */
    PyObject *clock;            /* config clock: a callable returning ns, or NULL (the platform's) */
    struct core_span *inert;    /* what span() returns while recording is off */
    ttft_tpot_publisher *pub;   /* the live exposition's (_publish), made at its first publication */
    core_phase_ref cache[CORE_CACHE];
} core_collector;

/* What a span carries beside its time, as set from Python: what its attributes read back. */
typedef struct core_carry {
    uint64_t tokens, shape; /* shape TTFT_TPOT_NO_SHAPE: none */
    uint32_t prompt, stream, sequences; /* sequences 0: unset (one token a sequence) */
    unsigned char has_tokens, has_prompt, has_device;
} core_carry;

typedef struct core_span {
    PyObject_HEAD
    core_collector *owner; /* NULL: the inert span of a disabled collector (records nothing) */
    ttft_tpot_span s;      /* begun when made, its start set on entry */
    core_carry k;
    int role, stage;       /* stage: 0 made, 1 entered, 2 exited, 3 cancelled */
    int phase;             /* its phase (-1: none) */
    uint64_t start, dur;   /* on entry; after the exit */
} core_span;

static PyTypeObject core_collector_type, core_span_type; /* defined below, with their methods */

/* The Python clock, as the library's clock: an exception stops it (0 from then on) until the call
   that read it takes the exception (core_clock_ok). */
static uint64_t core_py_clock(void *user)
{
    core_collector *self = (core_collector *)user;
    PyObject *r;
    uint64_t v = 0;
    if (self->clock_failed)
        return 0;
    if (!self->clock) { /* taken by the garbage collector's clear: the collector is being freed */
        PyErr_SetString(PyExc_RuntimeError, "the collector's clock is gone (the collector is being freed)");
        self->clock_failed = 1;
        return 0;
    }
    r = PyObject_CallObject(self->clock, NULL);
    if (r && core_int(r, "the clock's value (ns)", 0, UINT64_MAX - 1, TTFT_TPOT_ERANGE, &v) != 0)
        Py_CLEAR(r);
    if (!r)
        self->clock_failed = 1;
    Py_XDECREF(r);
    return v;
}

/* After a clock read: 1, or 0 with the clock's exception pending (and the clock working again). */
static int core_clock_ok(core_collector *self)
{
    if (!self->clock_failed)
        return 1;
    self->clock_failed = 0;
    if (!PyErr_Occurred()) /* never left so: every call that reads the clock asks here first */
        PyErr_SetString(PyExc_RuntimeError, "the collector's clock failed, and its exception was lost");
    return 0;
}

/* 1 when __init__ set the collector up; else 0 with a RuntimeError. Every method, getter and module
   function that takes a Collector asks this first: before __init__ (Collector.__new__, or a subclass
   whose __init__ skips super().__init__()) the struct is zeroed and holds no C collector. */
static int core_ready(const core_collector *self)
{
    if (self->ready)
        return 1;
    PyErr_Format(PyExc_RuntimeError, "a %.100s whose Collector.__init__ did not run (a subclass's __init__ "
                 "calls super().__init__()): it holds no collector", Py_TYPE(self)->tp_name);
    return 0;
}

/* ---- Collector: phases ----------------------------------------------------------------------- */

/* The phase name, role: registered now when new; -1 with an exception when the library refuses it. */
static int core_phase_add(core_collector *self, PyObject *name, PyObject *role)
{
    int r = core_role(role), id;
    const char *s;
    if (r < 0 || !(s = core_utf8(name, "a phase name", ttft_tpot_strerror(TTFT_TPOT_ENAME))))
        return -1;
    id = ttft_tpot_phase(&self->c, s, (ttft_tpot_role)r);
    if (id >= 0)
        return id;
    if (id == TTFT_TPOT_EROLE)
        PyErr_Format(PyExc_ValueError, "%s: %R is a %s phase, not %U", ttft_tpot_strerror(id), name,
                     core_role_name(ttft_tpot_phase_role(&self->c, ttft_tpot_find_phase(&self->c, s))), role);
    else if (id == TTFT_TPOT_ENAME)
        PyErr_Format(PyExc_ValueError, "%s: %R (1 to %d bytes of UTF-8 that a terminal shows as text)",
                     ttft_tpot_strerror(id), name, TTFT_TPOT_NAME_MAX - 1);
    else if (id == TTFT_TPOT_EPHASE)
        PyErr_Format(PyExc_ValueError, "%s: %R would be phase %u of %u (Collector(max_phases=...))",
                     ttft_tpot_strerror(id), name, ttft_tpot_counts_of(&self->c).phases + 1,
                     ttft_tpot_counts_of(&self->c).phases); /* refused: the table is full */
    else
        PyErr_Format(PyExc_ValueError, "%s: the collector was not set up", ttft_tpot_strerror(id));
    return -1;
}

/* The phase of (name, role), by the name object's address first: the hot path of span and record.
   *role_id (NULL: not asked): its role, which a phase registered or found under it has. */
static int core_phase(core_collector *self, PyObject *name, PyObject *role, int *role_id)
{
    core_phase_ref *e = &self->cache[((uintptr_t)name >> 4) & (CORE_CACHE - 1)];
    int id;
    if (e->name != name || e->role != role) {
        if ((id = core_phase_add(self, name, role)) < 0)
            return -1;
        Py_XDECREF(e->name);
        Py_XDECREF(e->role);
        Py_INCREF(name);
        Py_INCREF(role);
        e->name = name, e->role = role, e->index = id, e->role_id = core_role(role); /* valid: added */
    }
    if (role_id)
        *role_id = e->role_id;
    return e->index;
}

/* A registered phase by name (nothing registered): its index, or -1 with a ValueError. */
static int core_find(core_collector *self, PyObject *name)
{
    const char *s = core_utf8(name, "a phase name", ttft_tpot_strerror(TTFT_TPOT_EPHASE));
    int id = s ? ttft_tpot_find_phase(&self->c, s) : -1;
    if (s && id < 0)
        PyErr_Format(PyExc_ValueError, "%s: no phase is named %R", ttft_tpot_strerror(TTFT_TPOT_EPHASE), name);
    return id < 0 ? -1 : id;
}

/* ---- Span ------------------------------------------------------------------------------------ */

/* What a span carries: tokens (0 .. 2^32 - 1), prompt tokens (a prefill's, 1 or more), a shape key,
   a device stream. Each is checked when set, so the end never refuses. 0, or -1 with an exception. */
static int core_set_tokens(core_carry *k, PyObject *v)
{
    uint64_t n;
    if (core_int(v, "tokens", 0, UINT32_MAX, TTFT_TPOT_EINVAL, &n) != 0)
        return -1;
    k->tokens = n, k->has_tokens = 1;
    return 0;
}

static int core_set_prompt(core_carry *k, int role, PyObject *v)
{
    uint64_t n;
    if (core_int(v, "prompt_tokens", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &n) != 0)
        return -1;
    if (role != TTFT_TPOT_ROLE_PREFILL) {
        PyErr_Format(PyExc_ValueError, "%s: prompt tokens belong to a prefill phase, not a %s one",
                     ttft_tpot_strerror(TTFT_TPOT_EROLE), core_role_name(role));
        return -1;
    }
    k->prompt = (uint32_t)n, k->has_prompt = 1;
    return 0;
}

static int core_set_shape(core_carry *k, PyObject *v)
{
    return core_opt(v, "a shape key", 0, TTFT_TPOT_NO_SHAPE - 1, TTFT_TPOT_NO_SHAPE, &k->shape);
}

static int core_set_device(core_carry *k, PyObject *v)
{
    uint64_t stream;
    if (core_int(v, "a device stream", 0, UINT32_MAX, TTFT_TPOT_EINVAL, &stream) != 0)
        return -1;
    k->stream = (uint32_t)stream, k->has_device = 1;
    return 0;
}

/* A decode step's sequences, when it emitted more than one token a sequence (1 or more; at most its
   tokens, which the end checks). */
static int core_set_sequences(core_carry *k, int role, PyObject *v)
{
    uint64_t n;
    if (core_int(v, "sequences", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &n) != 0)
        return -1;
    if (role != TTFT_TPOT_ROLE_DECODE) {
        PyErr_Format(PyExc_ValueError, "%s: sequences belong to a decode phase, not a %s one",
                     ttft_tpot_strerror(TTFT_TPOT_EROLE), core_role_name(role));
        return -1;
    }
    k->sequences = (uint32_t)n;
    return 0;
}

/* tokens, prompt_tokens, shape, device, sequences (any may be NULL or None: unset) onto k; k as it was
   on error. */
static int core_carry_set(core_carry *k, int role, PyObject *const *v)
{
    core_carry t = *k;
    if ((v[0] && v[0] != Py_None && core_set_tokens(&t, v[0]) != 0) ||
        (v[1] && v[1] != Py_None && core_set_prompt(&t, role, v[1]) != 0) || (v[2] && core_set_shape(&t, v[2]) != 0) ||
        (v[3] && v[3] != Py_None && core_set_device(&t, v[3]) != 0) ||
        (v[4] && v[4] != Py_None && core_set_sequences(&t, role, v[4]) != 0))
        return -1;
    *k = t;
    return 0;
}

/* Counts with nothing set. */
static core_carry core_carry_none(void)
{
    core_carry k;
    memset(&k, 0, sizeof k);
    k.shape = TTFT_TPOT_NO_SHAPE;
    return k;
}

/* k onto a span, through the library's setters. */
static void core_carry_apply(const core_carry *k, ttft_tpot_span *s)
{
    if (k->has_tokens)
        ttft_tpot_span_set_tokens(s, (uint32_t)k->tokens);
    if (k->has_prompt)
        ttft_tpot_span_set_prompt(s, k->prompt);
    ttft_tpot_span_set_shape(s, k->shape);
    if (k->has_device)
        ttft_tpot_span_set_device(s, k->stream);
    ttft_tpot_span_set_sequences(s, k->sequences);
}

/* A span is tracked by the garbage collector: its owner can reach it back (a subclass's attribute, a
   clock's closure), and such a cycle is freed only when the collector sees the span's reference. The
   inert span refers to nothing, so it is not tracked. */
static core_span *core_span_new(core_collector *owner)
{
    core_span *sp = PyObject_GC_New(core_span, &core_span_type);
    if (!sp)
        return NULL;
    Py_XINCREF(owner);
    sp->owner = owner;
    sp->s = ttft_tpot_span_begin(NULL, -1); /* inert until set */
    sp->k = core_carry_none();
    sp->role = -1;
    sp->phase = -1;
    sp->stage = 0;
    sp->dur = 0;
    if (owner)
        PyObject_GC_Track(sp);
    return sp;
}

static int core_span_traverse(core_span *sp, visitproc visit, void *arg)
{
    Py_VISIT(sp->owner);
    return 0;
}

/* Breaking a cycle: without its owner a span is inert (its exit records nothing). */
static int core_span_clear(core_span *sp)
{
    Py_CLEAR(sp->owner);
    return 0;
}

static void core_span_dealloc(core_span *sp)
{
    PyObject_GC_UnTrack(sp);
    Py_XDECREF(sp->owner);
    PyObject_GC_Del(sp);
}

/* The span, open since it was made (counted in spans_open): its start is the clock read on entry, as a
   running span's start field may be set by whoever read the clock (an inert span stays inert). */
static void core_span_restart(core_span *sp, uint64_t start)
{
    if (sp->s.state == 1)
        sp->s.start = start;
}

static PyObject *core_span_enter_in(core_span *sp)
{
    if (sp->owner) {
        if (sp->stage != 0)
            return PyErr_Format(PyExc_ValueError, "%s: a span is entered once", ttft_tpot_strerror(TTFT_TPOT_ESTATE));
        uint64_t now = ttft_tpot_clock_now(&sp->owner->c);
        if (!core_clock_ok(sp->owner))
            return NULL;
        core_span_restart(sp, now);
        sp->start = now;
        sp->stage = 1;
    }
    Py_INCREF(sp);
    return (PyObject *)sp;
}

static PyObject *core_span_enter(core_span *sp, PyObject *unused)
{
    PyObject *r, *owner = (PyObject *)sp->owner;
    (void)unused;
    if (!owner)
        return core_span_enter_in(sp);
    Py_INCREF(owner); /* the span begins again in it (core_span_restart) */
    Py_BEGIN_CRITICAL_SECTION2(sp, owner);
    r = core_span_enter_in(sp);
    Py_END_CRITICAL_SECTION2();
    Py_DECREF(owner);
    return r;
}

/* A refused end's exception: a step's sequences above its tokens named as such. */
static PyObject *core_end_refused(int rc, const core_carry *k)
{
    if (rc == TTFT_TPOT_ERANGE && k->sequences)
        return PyErr_Format(PyExc_ValueError, "%s: sequences (%lu) above the step's tokens (%llu): a step emits one "
                            "token a sequence or more", ttft_tpot_strerror(rc), (unsigned long)k->sequences,
                            (unsigned long long)(k->has_tokens ? k->tokens : 1));
    return PyErr_Format(PyExc_ValueError, "%s", ttft_tpot_strerror(rc));
}

/* The cancel: nothing recorded, the span counted as cancelled (spans_cancelled), as C's. */
static PyObject *core_span_cancel_in(core_span *sp)
{
    int rc;
    if (!sp->owner) /* inert: shared, so it keeps no state */
        Py_RETURN_NONE;
    if (sp->stage >= 2)
        return PyErr_Format(PyExc_ValueError, "%s: a span ends once (it has ended, or was cancelled)",
                            ttft_tpot_strerror(TTFT_TPOT_ESTATE));
    sp->stage = 3;
    if ((rc = ttft_tpot_span_cancel(&sp->s)) != TTFT_TPOT_OK)
        return core_end_refused(rc, &sp->k);
    Py_RETURN_NONE;
}

/* How a span finishes: the end of a with block (cancelled where it raised), end(), cancel(). */
enum { CORE_EXIT, CORE_EXIT_RAISED, CORE_END, CORE_CANCEL };

/* The end: records the block's time; a block that raised is cancelled instead (what it timed did not
   complete), and one cancelled inside the block has nothing left to end. */
static PyObject *core_span_exit_in(core_span *sp, int how)
{
    uint64_t now;
    int rc;
    if (!sp->owner) /* inert: shared, so it keeps no state */
        Py_RETURN_NONE;
    if (sp->stage == 3 && how <= CORE_EXIT_RAISED) /* a with block whose span was cancelled inside it */
        Py_RETURN_NONE;
    if (how == CORE_CANCEL || (how == CORE_EXIT_RAISED && sp->stage == 1))
        return core_span_cancel_in(sp);
    if (sp->stage != 1)
        return PyErr_Format(PyExc_ValueError, "%s: a span ends once, after it was entered",
                            ttft_tpot_strerror(TTFT_TPOT_ESTATE));
    now = ttft_tpot_clock_now(&sp->owner->c);
    if (!core_clock_ok(sp->owner))
        return NULL;
    sp->dur = now < sp->start ? 0 : now - sp->start; /* a clock that steps back: 0, as in C */
    ttft_tpot_span_set_duration(&sp->s, sp->dur);
    sp->stage = 2;
    rc = ttft_tpot_span_end(&sp->s); /* EFULL: not kept, counted as dropped, as in C */
    if (rc != TTFT_TPOT_OK && rc != TTFT_TPOT_EFULL)
        return core_end_refused(rc, &sp->k);
    Py_RETURN_NONE;
}

/* The span finished as how says (CORE_*), under the span's and its collector's locks. */
static PyObject *core_span_finish(core_span *sp, int how)
{
    PyObject *r, *owner = (PyObject *)sp->owner;
    if (!owner)
        return core_span_exit_in(sp, how);
    Py_INCREF(owner); /* the span's end records into it */
    Py_BEGIN_CRITICAL_SECTION2(sp, owner);
    r = core_span_exit_in(sp, how);
    Py_END_CRITICAL_SECTION2();
    Py_DECREF(owner);
    return r;
}

static PyObject *core_span_exit(core_span *sp, PyObject *const *args, Py_ssize_t nargs)
{
    return core_span_finish(sp, nargs > 0 && args[0] != Py_None ? CORE_EXIT_RAISED : CORE_EXIT);
}

/* cancel(): end the span without recording it (counted in spans_cancelled). */
static PyObject *core_span_cancel(core_span *sp, PyObject *unused)
{
    (void)unused;
    return core_span_finish(sp, CORE_CANCEL);
}

/* The attributes: settable until the end (an inert span takes them and keeps nothing). */
static PyObject *core_span_get(core_span *sp, void *which)
{
    const core_carry *k = &sp->k;
    switch ((int)(intptr_t)which) {
    case S_TOKENS:
        return k->has_tokens ? PyLong_FromUnsignedLongLong(k->tokens) : (Py_INCREF(Py_None), Py_None);
    case S_PROMPT_TOKENS:
        return k->has_prompt ? PyLong_FromUnsignedLong(k->prompt) : (Py_INCREF(Py_None), Py_None);
    case S_SHAPE:
        return k->shape == TTFT_TPOT_NO_SHAPE ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLongLong(k->shape);
    case S_DEVICE:
        return k->has_device ? PyLong_FromUnsignedLong(k->stream) : (Py_INCREF(Py_None), Py_None);
    case S_SEQUENCES:
        return k->sequences ? PyLong_FromUnsignedLong(k->sequences) : (Py_INCREF(Py_None), Py_None);
    case S_TICKET:
        return PyLong_FromUnsignedLongLong(sp->s.ticket);
    default: /* S_NS */
        return sp->stage == 2 && sp->owner ? PyLong_FromUnsignedLongLong(sp->dur) : (Py_INCREF(Py_None), Py_None);
    }
}

static int core_span_put_in(core_span *sp, PyObject *v, void *which)
{
    int k = (int)(intptr_t)which;
    PyObject *set[5] = {NULL, NULL, NULL, NULL, NULL};
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "a span's counts can be set, not deleted");
        return -1;
    }
    if (!sp->owner) /* inert: nothing to keep */
        return 0;
    if (sp->stage >= 2) {
        PyErr_Format(PyExc_ValueError, "%s: the span has ended: its counts are recorded",
                     ttft_tpot_strerror(TTFT_TPOT_ESTATE));
        return -1;
    }
    if (v == Py_None && k != S_SHAPE) { /* a shape of None is none */
        PyErr_SetString(PyExc_TypeError, "a span's count is an int, not None");
        return -1;
    }
    set[k == S_TOKENS ? 0 : k == S_PROMPT_TOKENS ? 1 : k == S_SHAPE ? 2 : k == S_DEVICE ? 3 : 4] = v;
    if (core_carry_set(&sp->k, sp->role, set) != 0)
        return -1;
    core_carry_apply(&sp->k, &sp->s);
    return 0;
}

/* end(): what __exit__ does, for a span from Collector.begin (a hook pair, a callback). */
static PyObject *core_span_end(core_span *sp, PyObject *unused)
{
    (void)unused;
    return core_span_finish(sp, CORE_END);
}

static int core_span_put(core_span *sp, PyObject *v, void *which)
{
    int rc;
    Py_BEGIN_CRITICAL_SECTION(sp);
    rc = core_span_put_in(sp, v, which);
    Py_END_CRITICAL_SECTION();
    return rc;
}

static PyMethodDef core_span_methods[] = {
    {"__enter__", (PyCFunction)core_span_enter, METH_NOARGS, "Begin: read the clock."},
    {"__exit__", (PyCFunction)(void (*)(void))core_span_exit, METH_FASTCALL,
     "End: record the block's time (a block that raised: cancel, counted in spans_cancelled)."},
    {"end", (PyCFunction)core_span_end, METH_NOARGS, "end(): record the time since Collector.begin (as __exit__)."},
    {"cancel", (PyCFunction)core_span_cancel, METH_NOARGS,
     "cancel(): end the span without recording it, counted in counts()['spans_cancelled'] (as a block that raises)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_span_attrs[] = {
    {"tokens", (getter)core_span_get, (setter)core_span_put, "tokens produced (None: the role's default)",
     (void *)(intptr_t)S_TOKENS},
    {"prompt_tokens", (getter)core_span_get, (setter)core_span_put, "prompt tokens a prefill processed",
     (void *)(intptr_t)S_PROMPT_TOKENS},
    {"shape", (getter)core_span_get, (setter)core_span_put, "the shape key it ran with (None: none)",
     (void *)(intptr_t)S_SHAPE},
    {"device", (getter)core_span_get, (setter)core_span_put, "the device stream of its device time (None: none)",
     (void *)(intptr_t)S_DEVICE},
    {"sequences", (getter)core_span_get, (setter)core_span_put,
     "a decode step's sequences, its tokens those of them all (None: one token a sequence)",
     (void *)(intptr_t)S_SEQUENCES},
    {"ticket", (getter)core_span_get, NULL, "after the end: its device ticket (0: none)", (void *)(intptr_t)S_TICKET},
    {"duration_ns", (getter)core_span_get, NULL, "after the end: the time recorded, in ns", (void *)(intptr_t)S_NS},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject core_span_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ttft_tpot._core.Span",
    .tp_basicsize = sizeof(core_span),
    .tp_dealloc = (destructor)core_span_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)core_span_traverse,
    .tp_clear = (inquiry)core_span_clear,
    .tp_doc = "A span: `with collector.span(...) as s:`; its counts can be set until the block ends.",
    .tp_methods = core_span_methods,
    .tp_getset = core_span_attrs,
};

/* ---- Collector: recording -------------------------------------------------------------------- */

static const int core_span_params[] = {S_PHASE, S_ROLE, S_TOKENS, S_PROMPT_TOKENS, S_SHAPE, S_DEVICE, S_SEQUENCES};

/* span(phase, role, tokens=None, prompt_tokens=None, shape=None, device=None, sequences=None): a context
   manager that times its block. While recording is off: one shared inert span, nothing checked. */
static PyObject *core_span_call(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *v[7];
    core_span *sp;
    int phase;
    if (!core_ready(self))
        return NULL;
    if (!self->enabled && self->inert) {
        Py_INCREF(self->inert);
        return (PyObject *)self->inert;
    }
    if (core_args("span", core_span_params, 7, 2, args, nargs, kwnames, v) != 0 ||
        !(sp = core_span_new(self)))
        return NULL;
    /* the counts first: a phase is registered only by a call that records */
    if (((v[3] && v[3] != Py_None) || (v[6] && v[6] != Py_None)) && (sp->role = core_role(v[1])) < 0)
        goto refused;
    if (core_carry_set(&sp->k, sp->role, v + 2) != 0 ||
        (phase = core_phase(self, v[0], v[1], &sp->role)) < 0) {
    refused:
        Py_DECREF(sp); /* never begun: no span left open */
        return NULL;
    }
    sp->s = ttft_tpot_span_begin_at(&self->c, phase, 0); /* open from now on; its start is read on entry */
    sp->phase = phase;
    core_carry_apply(&sp->k, &sp->s);
    return (PyObject *)sp;
}

/* begin(phase, role, tokens=None, prompt_tokens=None, shape=None, device=None, sequences=None): span() already entered,
   to be ended by its end(): for a begin and an end in different places (forward hooks, callbacks). */
static PyObject *core_begin(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *sp = core_span_call(self, args, nargs, kwnames), *entered;
    if (!sp)
        return NULL;
    entered = core_span_enter_in((core_span *)sp);
    Py_DECREF(sp);
    return entered;
}

/* now(): the collector's clock, in ns (CLOCK_MONOTONIC unless the config gave a clock): the t_ns that
   request events and records take. */
static PyObject *core_now(core_collector *self, PyObject *unused)
{
    uint64_t t;
    (void)unused;
    if (!core_ready(self))
        return NULL;
    t = ttft_tpot_clock_now(&self->c);
    return core_clock_ok(self) ? PyLong_FromUnsignedLongLong(t) : NULL;
}

static const int core_record_params[] = {S_PHASE, S_ROLE, S_NS, S_TOKENS, S_START_NS, S_PROMPT_TOKENS, S_SHAPE,
                                         S_SEQUENCES};

/* record(phase, role, ns, tokens=None, start_ns=0, prompt_tokens=None, shape=None, sequences=None): a
   duration measured elsewhere. */
static PyObject *core_record(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *v[8], *set[5];
    ttft_tpot_span s;
    core_carry k = core_carry_none();
    uint64_t ns, start;
    int phase, rc, role = -1;
    if (!core_ready(self))
        return NULL;
    if (!self->enabled) /* as a disabled span: nothing checked, nothing kept */
        Py_RETURN_NONE;
    if (core_args("record", core_record_params, 8, 3, args, nargs, kwnames, v) != 0 ||
        core_int(v[2], "a duration (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &ns) != 0 ||
        core_opt(v[4], "a start time (ns)", 0, UINT64_MAX, 0, &start) != 0)
        return NULL;
    set[0] = v[3], set[1] = v[5], set[2] = v[6], set[3] = NULL, set[4] = v[7];
    if ((((v[5] && v[5] != Py_None) || (v[7] && v[7] != Py_None)) && (role = core_role(v[1])) < 0) ||
        core_carry_set(&k, role, set) != 0 ||
        (phase = core_phase(self, v[0], v[1], NULL)) < 0) /* the counts first, as span() */
        return NULL;
    s = ttft_tpot_span_begin_at(&self->c, phase, start);
    core_carry_apply(&k, &s);
    ttft_tpot_span_set_duration(&s, ns);
    rc = ttft_tpot_span_end(&s);
    if (rc != TTFT_TPOT_OK && rc != TTFT_TPOT_EFULL)
        return core_end_refused(rc, &k);
    Py_RETURN_NONE;
}

/* phase(name, role, bounded=False): register a phase now (reports list phases in this order); bounded:
   its steady samples go to a histogram. */
static PyObject *core_phase_call(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const int params[] = {S_NAME, S_ROLE, S_BOUNDED};
    PyObject *v[3];
    int id, rc;
    if (!core_ready(self))
        return NULL;
    if (core_args("phase", params, 3, 2, args, nargs, kwnames, v) != 0 || (id = core_phase(self, v[0], v[1], NULL)) < 0)
        return NULL;
    if (v[2] && PyObject_IsTrue(v[2]) && (rc = ttft_tpot_phase_bounded(&self->c, id)) != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: no histogram slot left for %R (Collector(hist_slots=...))",
                            ttft_tpot_strerror(rc), v[0]);
    Py_RETURN_NONE;
}

/* shape_row(phase, key, name): samples of phase with shape key go to a row of their own, the phase
   "PHASE[NAME]". */
static PyObject *core_shape_row(core_collector *self, PyObject *args)
{
    PyObject *phase, *key, *name;
    const char *s;
    uint64_t k;
    int id, rc;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "OOO:shape_row", &phase, &key, &name) || (id = core_find(self, phase)) < 0 ||
        core_int(key, "a shape key", 0, TTFT_TPOT_NO_SHAPE - 1, TTFT_TPOT_EINVAL, &k) != 0 ||
        !(s = core_utf8(name, "a row name", ttft_tpot_strerror(TTFT_TPOT_ENAME))))
        return NULL;
    if ((rc = ttft_tpot_shape_row(&self->c, id, k, s)) < 0) /* else the row's phase id */
        return PyErr_Format(PyExc_ValueError, "%s: row %R of phase %R", ttft_tpot_strerror(rc), name, phase);
    Py_RETURN_NONE;
}

/* _warmup(on): begin (True) or end (False) a warmup section. */
static PyObject *core_warmup(core_collector *self, PyObject *on)
{
    int begin, rc;
    if (!core_ready(self))
        return NULL;
    begin = PyObject_IsTrue(on);
    if (begin < 0)
        return NULL;
    rc = begin ? ttft_tpot_warmup_begin(&self->c) : ttft_tpot_warmup_end(&self->c);
    if (rc == TTFT_TPOT_ESTATE) /* not counted: the collector was made with config.refusals_reported */
        return PyErr_Format(PyExc_ValueError, "%s: a warmup section ends after it begins",
                            ttft_tpot_strerror(TTFT_TPOT_ESTATE));
    if (rc != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s", ttft_tpot_strerror(rc));
    Py_RETURN_NONE;
}

/* run(): the samples from now on are one run of a repeated generation. */
static PyObject *core_run(core_collector *self, PyObject *unused)
{
    (void)unused;
    if (!core_ready(self))
        return NULL;
    ttft_tpot_run_begin(&self->c); /* EFULL: counted in runs_dropped, shown by the reports */
    Py_RETURN_NONE;
}

/* ---- Collector: requests and device time ----------------------------------------------------- */

/* The request's time points (TTFT_TPOT_POINTS) as this module needs them: what TTFT_TPOT_NOW stands
   for in a point's call, and the words its refusals name. */
#define CORE_POINT(name, field, set, tokens, follows, now, role, csv, words) {role, words, follows, TTFT_TPOT_POINT_##now},
static const struct {
    const char *role, *words;
    unsigned follows;
    int now;
} core_points[TTFT_TPOT_POINT_COUNT] = {TTFT_TPOT_POINTS(CORE_POINT)};
#undef CORE_POINT

/* What a refused event of point p breaks, into buf: a mark lies once between the last point it follows
   and the first that follows it (the header's reader names the same two). */
static const char *core_order(int p, char *buf, size_t len)
{
    const char *after = "", *before = "";
    int k;
    if (p == TTFT_TPOT_POINT_SUBMIT)
        return "an id submitted once, a valid name";
    if (p == TTFT_TPOT_POINT_LAST)
        return "after its submit, its schedule and its previous tokens";
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++) {
        if (core_points[p].follows >> k & 1u)
            after = core_points[k].words;
        if (k != p && (core_points[k].follows >> p & 1u) && !*before)
            before = core_points[k].words;
    }
    PyOS_snprintf(buf, len, "once, between its %s and its %s", after, before);
    return buf;
}

/* RequestsLostWarning (a RuntimeWarning): a request event the request tables could not hold. */
static PyObject *core_lost_warning;

/* The warning of an event of point p that the tables could not hold (EFULL): a submit refused, or a
   later event of a refused or truncated request. Never silent, and an exception where the caller's
   warning filters say so (-1). */
static int core_warn_lost(int p)
{
    return PyErr_WarnEx(core_lost_warning,
                        p == TTFT_TPOT_POINT_SUBMIT
                            ? "a request was refused: the request table (Collector(max_requests=...)) is full of "
                              "requests not finished; it is counted (counts()[\"requests_refused\"], the reports' requests.dropped)"
                            : "a request event was not kept: its request was refused, or the event log "
                              "(max_request_events) is full and it is truncated; it is counted (counts()[\"requests_dropped\"])",
                        1); /* from C, level 1 is the Python line that made the call */
}

/* A request event of point p (SUBMIT, LAST for tokens, or a mark) now (t NULL or None) or at t_ns. A
   refused one raises and changes nothing; one the tables cannot hold is counted as dropped, as in C,
   and warns (RequestsLostWarning). */
static PyObject *core_request(core_collector *self, PyObject *id, PyObject *t, uint64_t tokens, int p)
{
    const char *s;
    char order[160];
    uint64_t at;
    int rc;
    if (!core_ready(self))
        return NULL;
    if (!self->enabled) /* as a disabled span: nothing checked, nothing kept */
        Py_RETURN_NONE;
    if (!(s = core_utf8(id, "a request id", ttft_tpot_strerror(TTFT_TPOT_ENAME))) ||
        core_opt(t, "an event time (ns)", 0, UINT64_MAX - 1, UINT64_MAX, &at) != 0)
        return NULL;
    if (at == UINT64_MAX && core_points[p].now == TTFT_TPOT_POINT_NONE) { /* read here, so that a failing
                                                                            Python clock records nothing */
        at = ttft_tpot_clock_now(&self->c);
        if (!core_clock_ok(self))
            return NULL;
    }
    rc = p == TTFT_TPOT_POINT_LAST ? ttft_tpot_request_tokens(&self->s, s, at, (uint32_t)tokens)
                                   : ttft_tpot_request_mark(&self->s, s, p, at); /* the submit, or a mark */
    if (!core_clock_ok(self)) /* the library read it (a mark whose point is missing: refused): its error */
        return NULL;
    if (rc == TTFT_TPOT_EFULL && core_warn_lost(p) != 0)
        return NULL;
    if (rc == TTFT_TPOT_OK || rc == TTFT_TPOT_EFULL)
        Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "%s: %s%s of request %R (%s)", ttft_tpot_strerror(rc),
                        p == TTFT_TPOT_POINT_LAST ? "" : "the ", p == TTFT_TPOT_POINT_LAST ? "tokens" : core_points[p].role,
                        id, core_order(p, order, sizeof order));
}

static const int core_event_params[] = {S_ID, S_T_NS};

static PyObject *core_submit(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *v[2];
    return core_args("submit", core_event_params, 2, 1, args, nargs, kwnames, v)
               ? NULL
               : core_request(self, v[0], v[1], 0, TTFT_TPOT_POINT_SUBMIT);
}

/* A mark's call, ROLE(id, t_ns=None): a point the driver records with a call of its own
   (TTFT_TPOT_POINTS: SET MARK), as schedule and output. */
static PyObject *core_mark(core_collector *self, int p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *v[2];
    return core_args(core_points[p].role, core_event_params, 2, 1, args, nargs, kwnames, v)
               ? NULL
               : core_request(self, v[0], v[1], 0, p);
}

#define CORE_MARK_SUBMIT(name)
#define CORE_MARK_TOKEN(name)
#define CORE_MARK_MARK(name)                                                                          \
    static PyObject *core_mark_##name(core_collector *self, PyObject *const *args, Py_ssize_t nargs,  \
                                      PyObject *kwnames)                                              \
    {                                                                                                 \
        return core_mark(self, TTFT_TPOT_POINT_##name, args, nargs, kwnames);                         \
    }
#define CORE_MARK(name, field, set, tokens, follows, now, role, csv, words) CORE_MARK_##set(name)
TTFT_TPOT_POINTS(CORE_MARK)
#undef CORE_MARK

/* A finish reason's number: None is none given; else one of ttft_tpot_finish_reason_name's. -1 with
   a ValueError. */
static int core_reason(PyObject *o)
{
    int k;
    if (!o || o == Py_None)
        return TTFT_TPOT_FINISH_NONE;
    for (k = TTFT_TPOT_FINISH_STOP; k < TTFT_TPOT_FINISH_COUNT; k++)
        if (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, ttft_tpot_finish_reason_name(k)) == 0)
            return k;
    PyErr_Format(PyExc_ValueError, "a finish reason is \"stop\", \"length\", \"abort\", \"error\" or \"repetition\" (or None), not %R", o);
    return -1;
}

/* finish(id, reason=None): the request's last token is delivered; a live exposition counts it from
   now on (an aborted or errored one by its reason in request_success_total, in no figure). */
static PyObject *core_finish(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const int params[] = {S_ID, S_REASON};
    PyObject *v[2], *id;
    const char *s;
    int rc, reason;
    if (!core_ready(self) || core_args("finish", params, 2, 1, args, nargs, kwnames, v))
        return NULL;
    id = v[0];
    if ((reason = core_reason(v[1])) < 0)
        return NULL;
    if (!self->enabled)
        Py_RETURN_NONE;
    if (!(s = core_utf8(id, "a request id", ttft_tpot_strerror(TTFT_TPOT_ENAME))))
        return NULL;
    rc = ttft_tpot_request_finish(&self->s, s, reason);
    if (rc == TTFT_TPOT_EFULL && core_warn_lost(TTFT_TPOT_POINT_LAST) != 0)
        return NULL;
    if (rc == TTFT_TPOT_OK || rc == TTFT_TPOT_EFULL)
        Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "%s: the finish of request %R (a submitted request, finished once)",
                        ttft_tpot_strerror(rc), id);
}

/* prompt(id, n, cached=None): the request's prompt tokens, once (prompt_tokens_total,
   requests.prompt_tokens); cached: of them, those the prefix cache served (its finish then counts n -
   cached in request_prefill_kv_computed_tokens). */
static PyObject *core_prompt(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const int params[] = {S_ID, S_N, S_CACHED};
    PyObject *v[3];
    const char *s;
    uint64_t k, cached = 0;
    int rc;
    if (!core_ready(self) || core_args("prompt", params, 3, 2, args, nargs, kwnames, v) != 0)
        return NULL;
    if (!self->enabled)
        Py_RETURN_NONE;
    if (!(s = core_utf8(v[0], "a request id", ttft_tpot_strerror(TTFT_TPOT_ENAME))) ||
        core_int(v[1], "prompt tokens", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &k) != 0 ||
        core_opt(v[2], "cached tokens", 0, k, 0, &cached) != 0)
        return NULL;
    rc = ttft_tpot_request_prompt(&self->s, s, k);
    if (rc == TTFT_TPOT_OK && v[2] && v[2] != Py_None)
        rc = ttft_tpot_request_cached(&self->s, s, cached);
    if (rc == TTFT_TPOT_EFULL && core_warn_lost(TTFT_TPOT_POINT_LAST) != 0)
        return NULL;
    if (rc == TTFT_TPOT_OK || rc == TTFT_TPOT_EFULL)
        Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "%s: the prompt tokens of request %R (a submitted request, given once)",
                        ttft_tpot_strerror(rc), v[0]);
}

/* cached(id, n): of the request's prompt tokens (given before), those the prefix cache served, once:
   its finish counts its prompt less these in request_prefill_kv_computed_tokens. */
static PyObject *core_cached(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const int params[] = {S_ID, S_N};
    PyObject *v[2];
    const char *s;
    uint64_t k;
    int rc;
    if (!core_ready(self) || core_args("cached", params, 2, 2, args, nargs, kwnames, v) != 0)
        return NULL;
    if (!self->enabled)
        Py_RETURN_NONE;
    if (!(s = core_utf8(v[0], "a request id", ttft_tpot_strerror(TTFT_TPOT_ENAME))) ||
        core_int(v[1], "cached tokens", 0, UINT32_MAX, TTFT_TPOT_EINVAL, &k) != 0)
        return NULL;
    rc = ttft_tpot_request_cached(&self->s, s, k);
    if (rc == TTFT_TPOT_EFULL && core_warn_lost(TTFT_TPOT_POINT_LAST) != 0)
        return NULL;
    if (rc == TTFT_TPOT_OK || rc == TTFT_TPOT_EFULL)
        Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "%s: the cached tokens of request %R (after its prompt tokens, at most "
                        "as many, given once)", ttft_tpot_strerror(rc), v[0]);
}

/* tell(name, value): what the driver knows of its scheduler, KV cache and requests' parameters
   (TTFT_TPOT_TOLD: a counter adds value, a gauge is set to it, a histogram counts it), written from the
   start in every exposition, carried by a trace. */
static PyObject *core_tell(core_collector *self, PyObject *args)
{
#define CORE_TOLD_KEY(name, key, family, label, kind, help) key,
    static const char *const keys[TTFT_TPOT_TOLD_COUNT] = {TTFT_TPOT_TOLD(CORE_TOLD_KEY)};
#undef CORE_TOLD_KEY
    const char *name;
    double value;
    int k, rc;
    if (!core_ready(self) || !PyArg_ParseTuple(args, "sd:tell", &name, &value))
        return NULL;
    for (k = 0; k < TTFT_TPOT_TOLD_COUNT && strcmp(name, keys[k]) != 0; k++)
        ;
    if (k == TTFT_TPOT_TOLD_COUNT)
        return PyErr_Format(PyExc_ValueError, "tell: %R is not one of kv_cache_usage_perc, num_preemptions, "
                            "prefix_cache_queries, prefix_cache_hits, prompt_tokens_cached, waiting_capacity, "
                            "waiting_deferred, params_max_tokens, params_n, max_num_generation_tokens, "
                            "prefill_kv_computed_tokens, iteration_tokens, spec_decode_num_drafts, "
                            "spec_decode_num_draft_tokens, spec_decode_num_accepted_tokens, request_num_preemptions",
                            PyTuple_GET_ITEM(args, 0));
    if ((rc = ttft_tpot_serve_tell(&self->s, k, value)) != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: tell(%R, %R): a counter, a gauge or a histogram takes a whole "
                            "number of 0 or more, kv_cache_usage_perc a fraction from 0 to 1", ttft_tpot_strerror(rc),
                            PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1));
    Py_RETURN_NONE;
}

/* A path argument: *given = os.fspath(o) (str or bytes: how open() names a file in its errors, so a
   str is not shown as bytes), *path its file-system bytes. 0, or -1 with an exception and both NULL. */
static int core_path(PyObject *o, PyObject **given, PyObject **path)
{
    *path = NULL;
    if (!(*given = PyOS_FSPath(o)))
        return -1;
    if (!PyUnicode_FSConverter(*given, path)) {
        Py_CLEAR(*given);
        return -1;
    }
    return 0;
}

/* The collector's live publisher, made at its first publication: 0, or -1 with MemoryError. */
static int core_publisher(core_collector *self)
{
    if (!self->pub && !(self->pub = (ttft_tpot_publisher *)PyMem_Calloc(1, sizeof *self->pub))) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* _published(prefix, labels): the live exposition as a str, cumulative over this collector's
   publications (the same publisher as _publish), for an in-process /metrics. */
static PyObject *core_published(core_collector *self, PyObject *args)
{
    const char *prefix, *labels;
    size_t cap = 128 * 1024;
    char *buf = NULL;
    PyObject *out;
    int rc = TTFT_TPOT_ENOMEM;
    if (!core_ready(self) || !PyArg_ParseTuple(args, "zz:published", &prefix, &labels) || core_publisher(self) != 0)
        return NULL;
    while (rc == TTFT_TPOT_ENOMEM && cap <= ((size_t)1 << 30)) { /* a bigger buffer until it fits */
        char *more = (char *)PyMem_Realloc(buf, cap);
        if (!more)
            break;
        buf = more;
        rc = ttft_tpot_publish_buffer(&self->s, self->pub, buf, cap, prefix, labels);
        cap *= 2;
    }
    if (rc == TTFT_TPOT_OK)
        out = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "strict");
    else if (rc == TTFT_TPOT_ENOMEM)
        out = PyErr_NoMemory();
    else
        out = PyErr_Format(PyExc_ValueError, "%s: a prefix is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name "
                           "[a-zA-Z_][a-zA-Z0-9_]* (not le, not __...) given once", ttft_tpot_strerror(rc));
    PyMem_Free(buf);
    return out;
}

/* _publish(path, prefix, labels): the live exposition, cumulative over this collector's publications,
   written atomically to path. */
static PyObject *core_publish(core_collector *self, PyObject *args)
{
    PyObject *given, *path;
    const char *prefix, *labels;
    int rc;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Ozz:publish", &given, &prefix, &labels) || core_path(given, &given, &path) != 0)
        return NULL;
    if (core_publisher(self) != 0) {
        Py_DECREF(path);
        Py_DECREF(given);
        return NULL;
    }
    rc = ttft_tpot_publish_file(&self->s, self->pub, PyBytes_AS_STRING(path), prefix, labels);
    if (rc == TTFT_TPOT_EIO)
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, given);
    else if (rc == TTFT_TPOT_ENOMEM)
        PyErr_NoMemory();
    else if (rc == TTFT_TPOT_EPATH) /* not a regular file (a FIFO, a device, a link), or too long */
        PyErr_Format(PyExc_OSError, "%s: %R is not replaced (the live exposition replaces a regular file only)",
                     ttft_tpot_strerror(rc), given);
    else if (rc != TTFT_TPOT_OK)
        PyErr_Format(PyExc_ValueError, "%s: a prefix is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name [a-zA-Z_][a-zA-Z0-9_]* "
                     "(not le, not __...) given once", ttft_tpot_strerror(rc));
    Py_DECREF(path);
    Py_DECREF(given);
    if (rc != TTFT_TPOT_OK)
        return NULL;
    Py_RETURN_NONE;
}

/* tokens(id, n=1, t_ns=None): n tokens of the request delivered. */
static PyObject *core_tokens(core_collector *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const int params[] = {S_ID, S_N, S_T_NS};
    PyObject *v[3];
    uint64_t n = 1;
    if (core_args("tokens", params, 3, 1, args, nargs, kwnames, v) != 0 ||
        (v[1] && core_int(v[1], "a token event's tokens", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &n) != 0))
        return NULL;
    return core_request(self, v[0], v[2], n, TTFT_TPOT_POINT_LAST);
}

/* A device resolution's code: None, or a ValueError (the refusal is not counted: the collector was
   made with config.refusals_reported). */
static PyObject *core_resolved(int rc, uint64_t ticket)
{
    if (rc == TTFT_TPOT_OK)
        Py_RETURN_NONE;
    return PyErr_Format(PyExc_ValueError, "%s: ticket %llu", ttft_tpot_strerror(rc), (unsigned long long)ticket);
}

/* device_elapsed(ticket, ns) and device_elapsed_ms(ticket, ms): a ticket's device time, elapsed form. */
static PyObject *core_device_elapsed(core_collector *self, PyObject *args)
{
    PyObject *ticket, *ns;
    uint64_t t, v;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "OO:device_elapsed", &ticket, &ns) ||
        core_int(ticket, "a ticket", 0, UINT64_MAX, TTFT_TPOT_ETICKET, &t) != 0 ||
        core_int(ns, "a device time (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &v) != 0)
        return NULL;
    return core_resolved(ttft_tpot_device_resolve(&self->c, &TTFT_TPOT_STAMP_ELAPSED(t, v), 1, NULL, NULL), t);
}

static PyObject *core_device_elapsed_ms(core_collector *self, PyObject *args)
{
    PyObject *ticket;
    double ms;
    uint64_t t, ns;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Od:device_elapsed_ms", &ticket, &ms) ||
        core_int(ticket, "a ticket", 0, UINT64_MAX, TTFT_TPOT_ETICKET, &t) != 0)
        return NULL;
    if (ttft_tpot_ms_to_ns(ms, &ns) != TTFT_TPOT_OK) /* no duration: refused, but ticket 0 resolves to nothing */
        return core_resolved(t ? TTFT_TPOT_ERANGE : TTFT_TPOT_OK, t);
    return core_resolved(ttft_tpot_device_resolve(&self->c, &TTFT_TPOT_STAMP_ELAPSED(t, ns), 1, NULL, NULL), t);
}

/* device_absolute(ticket, begin_ns, end_ns, pair): on the device clock, mapped through the clock pair
   (host_ns, device_ns) read together after a synchronize. */
static PyObject *core_device_absolute(core_collector *self, PyObject *args)
{
    PyObject *o[5];
    uint64_t v[5];
    ttft_tpot_clock_pair pair;
    int k;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "OOO(OO):device_absolute", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    for (k = 0; k < 5; k++)
        if (core_int(o[k], k ? "a clock reading (ns)" : "a ticket", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &v[k]) != 0)
            return NULL;
    pair.host_ns = v[3], pair.device_ns = v[4];
    return core_resolved(ttft_tpot_device_resolve(&self->c, &TTFT_TPOT_STAMP_ABSOLUTE(v[0], v[1], v[2]), 1, &pair, NULL),
                         v[0]);
}

/* One stamp of device_resolve: (ticket, ns) elapsed, (ticket, begin_ns, end_ns) absolute, or
   (ticket, queued_ns, begin_ns, end_ns) absolute with the runtime's queued stamp. 0, or -1 with an
   exception. */
#define CORE_STAMP_FORMS "(ticket, ns), (ticket, begin_ns, end_ns) or (ticket, queued_ns, begin_ns, end_ns)"
static int core_stamp(PyObject *o, ttft_tpot_device_stamp *st)
{
    PyObject *t = PySequence_Fast(o, "a stamp is " CORE_STAMP_FORMS);
    uint64_t v[4] = {0, 0, 0, 0};
    Py_ssize_t n = t ? PySequence_Fast_GET_SIZE(t) : 0, k;
    int rc = t && n >= 2 && n <= 4 ? 0 : -1;
    if (t && rc != 0)
        PyErr_Format(PyExc_ValueError, "%s: a stamp is " CORE_STAMP_FORMS ", not %zd values",
                     ttft_tpot_strerror(TTFT_TPOT_EINVAL), n);
    for (k = 0; rc == 0 && k < n; k++)
        rc = core_int(PySequence_Fast_GET_ITEM(t, k), k ? "a device time (ns)" : "a ticket", 0, UINT64_MAX,
                      TTFT_TPOT_ERANGE, &v[k]);
    Py_XDECREF(t);
    if (rc == 0)
        *st = n == 2   ? TTFT_TPOT_STAMP_ELAPSED(v[0], v[1])
              : n == 3 ? TTFT_TPOT_STAMP_ABSOLUTE(v[0], v[1], v[2])
                       : TTFT_TPOT_STAMP_QUEUED(v[0], v[1], v[2], v[3]);
    return rc;
}

/* device_resolve(stamps, pair=None): a step's tickets at once (pair: (host_ns, device_ns), for absolute
   stamps). Each stamp is applied or refused alone; a refusal raises once the rest are applied. */
static PyObject *core_device_resolve(core_collector *self, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kwnames)
{
    static const int params[] = {S_STAMPS, S_PAIR};
    PyObject *v[2], *stamps, *pair, *seq, *h, *d;
    ttft_tpot_device_stamp *st;
    ttft_tpot_clock_pair cp;
    size_t refused = 0;
    Py_ssize_t n, k;
    int rc = 0;
    if (!core_ready(self) || core_args("device_resolve", params, 2, 1, args, nargs, kwnames, v) != 0)
        return NULL;
    stamps = v[0], pair = v[1] ? v[1] : Py_None;
    if (pair != Py_None && (!PyArg_ParseTuple(pair, "OO:a clock pair (host_ns, device_ns)", &h, &d) ||
                            core_int(h, "a clock reading (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &cp.host_ns) != 0 ||
                            core_int(d, "a clock reading (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &cp.device_ns) != 0))
        return NULL;
    if (!(seq = PySequence_Fast(stamps, "stamps is a sequence of " CORE_STAMP_FORMS)))
        return NULL;
    n = PySequence_Fast_GET_SIZE(seq);
    if (!(st = (ttft_tpot_device_stamp *)PyMem_Malloc((size_t)(n ? n : 1) * sizeof *st))) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (k = 0; k < n && rc == 0; k++)
        rc = core_stamp(PySequence_Fast_GET_ITEM(seq, k), &st[k]);
    Py_DECREF(seq);
    if (rc == 0)
        rc = ttft_tpot_device_resolve(&self->c, st, (size_t)n, pair != Py_None ? &cp : NULL, &refused);
    PyMem_Free(st);
    if (rc == -1)
        return NULL;
    if (rc != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: %zu of %zd stamps refused (the rest resolved)", ttft_tpot_strerror(rc),
                            refused, n);
    Py_RETURN_NONE;
}

/* ---- Collector: outputs ---------------------------------------------------------------------- */

/* What a writer made, as str: fn writes into a memory stream; OK, or its code (nothing returned). */
typedef int (*core_writer)(core_collector *self, FILE *out, const void *arg);

static PyObject *core_written(core_collector *self, core_writer fn, const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    PyObject *r = NULL;
    int rc;
    if (!core_ready(self))
        return NULL;
    f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    rc = fn(self, f, arg);
    if (fclose(f) != 0 && rc == TTFT_TPOT_OK)
        rc = TTFT_TPOT_ENOMEM;
    if (rc == TTFT_TPOT_OK)
        r = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "strict");
    else if (rc == TTFT_TPOT_ENOMEM)
        PyErr_NoMemory();
    else if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s", ttft_tpot_strerror(rc));
    free(buf);
    return r;
}

/* The model's outputs: text, JSON, Prometheus (prefix, labels), HTML (a name), computed once each. */
enum { CORE_TEXT, CORE_JSON, CORE_PROMETHEUS, CORE_HTML };
typedef struct core_model_ask {
    int kind;
    const char *prefix, *labels, *name;
} core_model_ask;

/* The collector's model (skip: TTFT_TPOT_SKIP_*), with the prefill kernel it linked, as every report of
   it shows. The model_compute's code. */
static int core_model(const core_collector *self, unsigned skip, ttft_tpot_model *m)
{
    ttft_tpot_model_options o;
    memset(&o, 0, sizeof o);
    o.skip = skip;
    o.prefill_kernel = self->prefill_kernel;
    return ttft_tpot_model_compute(&self->c, &o, m);
}

static int core_model_write(core_collector *self, FILE *out, const void *arg)
{
    const core_model_ask *a = (const core_model_ask *)arg;
    const ttft_tpot_model *one[1];
    ttft_tpot_model m;
    int rc = core_model(self, a->kind == CORE_PROMETHEUS ? TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES : 0, &m);
    if (rc != TTFT_TPOT_OK)
        return rc;
    one[0] = &m;
    rc = a->kind == CORE_TEXT         ? ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_TEXT)
         : a->kind == CORE_JSON       ? ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON)
         : a->kind == CORE_PROMETHEUS ? ttft_tpot_model_prometheus(&m, out, a->prefix, a->labels)
         : ttft_tpot_html_report(out, one, &a->name, 1, NULL) == 0 ? TTFT_TPOT_OK
                                                         : TTFT_TPOT_ENOMEM;
    if (rc == TTFT_TPOT_EINVAL && a->kind == CORE_PROMETHEUS)
        PyErr_Format(PyExc_ValueError, "%s: a prefix is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name "
                     "[a-zA-Z_][a-zA-Z0-9_]* (not le, not __...) given once, the labels 500 bytes at most",
                     ttft_tpot_strerror(rc));
    ttft_tpot_model_free(&m);
    return rc;
}

static PyObject *core_report(core_collector *self, PyObject *unused)
{
    core_model_ask a = {CORE_TEXT, NULL, NULL, NULL};
    (void)unused;
    return core_written(self, core_model_write, &a);
}

static PyObject *core_report_json(core_collector *self, PyObject *unused)
{
    core_model_ask a = {CORE_JSON, NULL, NULL, NULL};
    (void)unused;
    return core_written(self, core_model_write, &a);
}

/* _prometheus(prefix, labels): the exposition; labels as the library takes them (name="value",...). */
static PyObject *core_prometheus(core_collector *self, PyObject *args)
{
    core_model_ask a = {CORE_PROMETHEUS, NULL, NULL, NULL};
    if (!PyArg_ParseTuple(args, "zz:prometheus", &a.prefix, &a.labels))
        return NULL;
    return core_written(self, core_model_write, &a);
}

static PyObject *core_html(core_collector *self, PyObject *args)
{
    core_model_ask a = {CORE_HTML, NULL, NULL, NULL};
    if (!PyArg_ParseTuple(args, "s:html", &a.name))
        return NULL;
    return core_written(self, core_model_write, &a);
}

static int core_trace_write(core_collector *self, FILE *out, const void *arg)
{
    (void)arg;
    return ttft_tpot_trace_write(&self->c, out);
}

/* A timeline is refused by the library where there is none: no start times kept, or samples that all
   start at 0, as a trace recorded without a timeline reads back. */
static int core_chrome_write(core_collector *self, FILE *out, const void *arg)
{
    int rc = ttft_tpot_chrome_trace(&self->c, out);
    (void)arg;
    if (rc == TTFT_TPOT_EINVAL)
        PyErr_Format(PyExc_ValueError, "%s: a Chrome trace needs start times: Collector(timeline=True) keeps them, "
                     "and a trace read back has them only if it was recorded with one (not start_ns 0 throughout)",
                     ttft_tpot_strerror(TTFT_TPOT_EINVAL));
    return rc;
}

static int core_requests_write(core_collector *self, FILE *out, const void *arg)
{
    (void)arg;
    return ttft_tpot_requests_csv(&self->c, out);
}

static PyObject *core_requests_csv(core_collector *self, PyObject *unused)
{
    (void)unused;
    return core_written(self, core_requests_write, NULL);
}

static PyObject *core_trace(core_collector *self, PyObject *unused)
{
    (void)unused;
    return core_written(self, core_trace_write, NULL);
}

static PyObject *core_chrome(core_collector *self, PyObject *unused)
{
    (void)unused;
    return core_written(self, core_chrome_write, NULL);
}

/* ---- Collector: reading, queries ------------------------------------------------------------- */

/* _read(path, name): append a trace to the collector (as ttft_tpot_report reads one). */
static PyObject *core_read(core_collector *self, PyObject *args)
{
    PyObject *given, *path;
    const char *name;
    char err[512];
    struct stat st;
    FILE *f;
    int rc;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Os:read", &given, &name) || core_path(given, &given, &path) != 0)
        return NULL;
    f = fopen(PyBytes_AS_STRING(path), "rb");
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) { /* fopen opens a directory */
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f) /* errno first: the decrefs below may free */
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, given);
    Py_DECREF(path);
    Py_DECREF(given);
    if (!f)
        return NULL;
    rc = ttft_tpot_trace_read(&self->c, f, name, err, sizeof err);
    fclose(f);
    if (rc == TTFT_TPOT_OK)
        Py_RETURN_NONE;
    if (rc == TTFT_TPOT_ENOMEM)
        return PyErr_NoMemory();
    return PyErr_Format(rc == TTFT_TPOT_EPARSE ? PyExc_ValueError : PyExc_OSError, "%s",
                        rc == TTFT_TPOT_EPARSE ? err : ttft_tpot_strerror(rc));
}

/* _samples(phase, warmup, stored_only): the phase's stored durations in call order (steady only unless
   warmup), as bytes of native uint64; a phase with samples in a histogram is refused unless stored_only. */
static PyObject *core_samples(core_collector *self, PyObject *args)
{
    PyObject *name, *out;
    int warmup, stored_only, id;
    size_t i, n = 0, all = 0, stored;
    uint64_t *v;
    ttft_tpot_stats st;
    ttft_tpot_sample s;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "Opp:samples", &name, &warmup, &stored_only) || (id = core_find(self, name)) < 0)
        return NULL;
    stored = ttft_tpot_counts_of(&self->c).samples;
    for (i = 0; i < stored && ttft_tpot_sample_at(&self->c, i, &s, NULL) == TTFT_TPOT_OK; i++)
        all += s.phase == id;
    if (!stored_only && ttft_tpot_phase_stats(&self->c, id, &st) == TTFT_TPOT_OK && st.n > all)
        return PyErr_Format(PyExc_ValueError, "phase %R has %llu samples, %zu of them stored: the rest went to a "
                            "histogram (bounded, or past the capacity); stored_only=True takes the stored ones",
                            name, (unsigned long long)st.n, all);
    if (!(out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(all * sizeof *v))))
        return NULL;
    v = (uint64_t *)(void *)PyByteArray_AS_STRING(out);
    for (i = 0; i < stored && ttft_tpot_sample_at(&self->c, i, &s, NULL) == TTFT_TPOT_OK; i++)
        if (s.phase == id && (warmup || !s.warmup))
            v[n++] = s.dur_ns;
    if (PyByteArray_Resize(out, (Py_ssize_t)(n * sizeof *v)) != 0)
        Py_CLEAR(out);
    return out;
}

/* phases(): [(name, role), ...] in registration order. */
static PyObject *core_phases(core_collector *self, PyObject *unused)
{
    PyObject *list;
    ttft_tpot_model m; /* one view of the collector for every phase: computes nothing */
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    unsigned p;
    (void)unused;
    o.skip = TTFT_TPOT_SKIP_ALL;
    if (!core_ready(self))
        return NULL;
    if (ttft_tpot_model_compute(&self->c, &o, &m) != TTFT_TPOT_OK)
        return PyErr_NoMemory();
    list = PyList_New((Py_ssize_t)m.phases);
    for (p = 0; list && p < m.phases; p++) {
        PyObject *t = Py_BuildValue("(ss)", m.phase[p].name, core_role_name(m.phase[p].role));
        if (!t)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, p, t);
    }
    ttft_tpot_model_free(&m);
    return list;
}

/* counts(): what the collector holds and what it lost, as a dict. */
static PyObject *core_counts(core_collector *self, PyObject *unused)
{
    ttft_tpot_counts k;
    (void)unused;
    if (!core_ready(self))
        return NULL;
    k = ttft_tpot_counts_of(&self->c);
    return Py_BuildValue("{snsIsIsKsKsKsKsKsKsIsKsKsnsnsKsKsKsK}", "samples", (Py_ssize_t)k.samples, "phases", k.phases,
                         "requests", k.requests, "dropped", k.dropped, "rejected", k.rejected, "shapes_dropped",
                         k.shapes_dropped, "requests_dropped", k.requests_dropped, "requests_refused",
                         k.requests_refused, "events_lost", k.events_lost, "runs", k.runs, "runs_dropped",
                         k.runs_dropped, "outgrown", k.outgrown, "device_intervals", (Py_ssize_t)k.device_intervals,
                         "device_open", (Py_ssize_t)k.device_open, "device_unresolved", k.device_unresolved,
                         "device_refused", k.device_refused, "spans_open", k.spans_open, "spans_cancelled",
                         k.spans_cancelled);
}

/* ---- Collector: the rest --------------------------------------------------------------------- */

static PyObject *core_clear(core_collector *self, PyObject *unused)
{
    (void)unused;
    if (!core_ready(self))
        return NULL;
    ttft_tpot_clear(&self->c);
    Py_RETURN_NONE;
}

/* merge(other): other's samples, histograms and requests added; all or nothing. */
static PyObject *core_merge(core_collector *self, PyObject *other)
{
    int rc;
    if (!core_ready(self))
        return NULL;
    if (!PyObject_TypeCheck(other, &core_collector_type))
        return PyErr_Format(PyExc_TypeError, "merge takes a Collector, not %.100s", Py_TYPE(other)->tp_name);
    if (!core_ready((core_collector *)other))
        return NULL;
    Py_BEGIN_CRITICAL_SECTION2(self, other);
    rc = ttft_tpot_merge(&self->c, &((core_collector *)other)->c);
    Py_END_CRITICAL_SECTION2();
    if (rc == TTFT_TPOT_ENOMEM)
        return PyErr_NoMemory();
    if (rc == TTFT_TPOT_EFULL) /* the request tables, once their finished requests were folded away */
        return PyErr_Format(PyExc_ValueError, "the request tables (max_requests, max_request_events) cannot hold "
                            "the other collector's requests beside their unfinished ones, or a histogram would pass "
                            "2^63 values: nothing merged");
    if (rc != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: nothing merged", ttft_tpot_strerror(rc));
    Py_RETURN_NONE;
}

/* set_slo(ttft_ms, tpot_ms, e2e_ms): goodput's service-level objectives (0: none). */
static PyObject *core_set_slo(core_collector *self, PyObject *args)
{
    ttft_tpot_slo slo;
    if (!core_ready(self))
        return NULL;
    if (!PyArg_ParseTuple(args, "ddd:set_slo", &slo.ttft_ms, &slo.tpot_ms, &slo.e2e_ms))
        return NULL;
    if (ttft_tpot_serve_slo(&self->s, slo) != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: an SLO is a finite number of ms, 0 or more",
                            ttft_tpot_strerror(TTFT_TPOT_ERANGE));
    Py_RETURN_NONE;
}

/* link_prefill_kernel(name): a kernel phase shown as the lower bound of steady TTFT. */
static PyObject *core_link_prefill_kernel(core_collector *self, PyObject *name)
{
    int id;
    if (!core_ready(self) || (id = core_find(self, name)) < 0)
        return NULL;
    if (ttft_tpot_phase_role(&self->c, id) != TTFT_TPOT_ROLE_KERNEL)
        return PyErr_Format(PyExc_ValueError, "%s: %R is not a kernel phase", ttft_tpot_strerror(TTFT_TPOT_EROLE),
                            name);
    self->prefill_kernel = id + 1; /* every report's option from now on */
    Py_RETURN_NONE;
}

static PyObject *core_get_enabled(core_collector *self, void *unused)
{
    (void)unused;
    if (!core_ready(self))
        return NULL;
    return PyBool_FromLong(self->enabled);
}

static int core_set_enabled(core_collector *self, PyObject *v, void *unused)
{
    int on;
    (void)unused;
    if (!core_ready(self))
        return -1;
    on = v ? PyObject_IsTrue(v) : -1;
    if (on < 0) {
        if (!v)
            PyErr_SetString(PyExc_AttributeError, "enabled can be set, not deleted");
        return -1;
    }
    Py_BEGIN_CRITICAL_SECTION(self);
    ttft_tpot_enable(&self->c, on);
    self->enabled = on;
    Py_END_CRITICAL_SECTION();
    return 0;
}

/* ---- Collector: life ------------------------------------------------------------------------- */

/* The report tool's collector reads no clock: a trace's "# clock:" line names the one that timed it. */
static uint64_t core_no_clock(void *user)
{
    (void)user;
    return 0;
}

/* config.percentiles from "50,90,99.9" or a sequence of numbers (ttft_tpot_init checks them); 0, or -1
   with an exception. */
static int core_percentiles(PyObject *o, double *out)
{
    PyObject *seq;
    Py_ssize_t n, k;
    if (PyUnicode_Check(o)) {
        const char *text = core_utf8(o, "percentiles", "invalid argument");
        if (text && ttft_tpot_percentiles_parse(text, out) == TTFT_TPOT_OK)
            return 0;
        if (text)
            PyErr_Format(PyExc_ValueError, "percentiles: ascending, between 0 and 100, at most %d, to 0.001: not %R",
                         TTFT_TPOT_MAX_PERCENTILES, o);
        return -1;
    }
    if (!(seq = PySequence_Fast(o, "percentiles is a string such as \"50,90,99.9\" or a sequence of numbers")))
        return -1;
    if ((n = PySequence_Fast_GET_SIZE(seq)) > TTFT_TPOT_MAX_PERCENTILES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "percentiles: at most %d", TTFT_TPOT_MAX_PERCENTILES);
        return -1;
    }
    for (k = 0; k < n && !PyErr_Occurred(); k++)
        out[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

/* The configs from keyword arguments (the C configs' knobs: the collector's, its serving layer's); 0, or
   -1 with an exception. */
static int core_config(PyObject *kw, PyObject **clock, ttft_tpot_config *cfg, ttft_tpot_serve_config *sc)
{
    static const char *const sizes[] = {"capacity", "max_phases", "hist_slots", "max_requests", "max_request_events",
                                        "max_shapes", "max_device", "max_pending", "slice_ns", "request_window",
                                        "max_model_len", "num_speculative_tokens", NULL};
    static const char *const flags[] = {"timeline", "bounded", "grow", "sequences", NULL};
    const uint64_t max[] = {UINT32_MAX, 65535, 65535, UINT32_MAX, SIZE_MAX / 64, UINT32_MAX, SIZE_MAX / 64,
                            SIZE_MAX / 64, UINT64_MAX / 4, UINT32_MAX, UINT64_MAX, UINT32_MAX};
    uint64_t v[12];
    int f[4], k;
    PyObject *o, *name;
    for (k = 0; sizes[k]; k++) {
        v[k] = 0;
        o = kw ? PyDict_GetItemString(kw, sizes[k]) : NULL;
        if (o && core_int(o, sizes[k], 0, max[k], TTFT_TPOT_EINVAL, &v[k]) != 0)
            return -1;
    }
    for (k = 0; flags[k]; k++) {
        o = kw ? PyDict_GetItemString(kw, flags[k]) : NULL;
        if ((f[k] = o ? PyObject_IsTrue(o) : k == 3) < 0) /* sequences kept unless turned off */
            return -1;
    }
    o = kw ? PyDict_GetItemString(kw, "percentiles") : NULL;
    if (o && o != Py_None && core_percentiles(o, cfg->percentiles) != 0)
        return -1;
    *clock = kw ? PyDict_GetItemString(kw, "clock") : NULL;
    name = kw ? PyDict_GetItemString(kw, "clock_name") : NULL;
    cfg->capacity = (size_t)v[0], cfg->max_phases = (unsigned)v[1], cfg->hist_slots = (unsigned)v[2];
    sc->max_requests = (unsigned)v[3], sc->max_request_events = (size_t)v[4], cfg->max_shapes = (unsigned)v[5];
    cfg->max_device = (size_t)v[6], cfg->max_pending = (size_t)v[7], sc->slice_ns = v[8];
    sc->request_window = (unsigned)v[9], sc->max_model_len = v[10], sc->num_speculative_tokens = (unsigned)v[11];
    cfg->timeline = f[0], cfg->bounded = f[1], cfg->grow = f[2], cfg->sequences = f[3];
    if (*clock == Py_None)
        *clock = NULL;
    if (*clock && !PyCallable_Check(*clock) && *clock != Py_False) {
        PyErr_SetString(PyExc_TypeError, "clock is a callable that returns ns (or None: the platform's clock)");
        return -1;
    }
    cfg->clock_name = name && name != Py_None ? core_utf8(name, "clock_name", "invalid argument") : NULL;
    if (name && name != Py_None && !cfg->clock_name)
        return -1;
    o = kw ? PyDict_GetItemString(kw, "buckets") : NULL;
    if (o && o != Py_None) {
        if (!PyUnicode_Check(o) || (PyUnicode_CompareWithASCIIString(o, "fine") != 0 &&
                                    PyUnicode_CompareWithASCIIString(o, "vllm") != 0)) {
            PyErr_Format(PyExc_ValueError, "buckets is \"fine\" or \"vllm\", not %R", o);
            return -1;
        }
        sc->buckets = PyUnicode_CompareWithASCIIString(o, "vllm") == 0 ? TTFT_TPOT_BUCKETS_VLLM : TTFT_TPOT_BUCKETS_FINE;
    }
    name = kw ? PyDict_GetItemString(kw, "model_name") : NULL;
    sc->model_name = name && name != Py_None ? core_utf8(name, "model_name", "invalid argument") : NULL;
    if (name && name != Py_None && !sc->model_name)
        return -1;
    name = kw ? PyDict_GetItemString(kw, "engine") : NULL;
    sc->engine = name && name != Py_None ? core_utf8(name, "engine", "invalid argument") : NULL;
    return name && name != Py_None && !sc->engine ? -1 : 0;
}

/* Collector(**config): keyword arguments only, each the C config's field of that name; clock: a
   callable returning ns, False for none (a collector that only reads traces). */
static int core_init(core_collector *self, PyObject *args, PyObject *kw)
{
    static const char *const known[] = {"capacity", "max_phases", "hist_slots", "max_requests", "max_request_events",
                                        "max_shapes", "max_device", "max_pending", "slice_ns", "timeline", "bounded",
                                        "grow", "sequences", "clock", "clock_name", "percentiles", "model_name",
                                        "request_window", "buckets", "engine", "max_model_len",
                                        "num_speculative_tokens", NULL};
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    PyObject *clock, *key, *val;
    Py_ssize_t pos = 0;
    int rc, k;
    if (self->ready || PyTuple_GET_SIZE(args) != 0) {
        PyErr_SetString(PyExc_TypeError, self->ready ? "a Collector is set up once" : "Collector takes keyword arguments");
        return -1;
    }
    while (kw && PyDict_Next(kw, &pos, &key, &val)) {
        for (k = 0; known[k] && PyUnicode_CompareWithASCIIString(key, known[k]) != 0; k++)
            ;
        if (!known[k]) {
            PyErr_Format(PyExc_TypeError, "Collector() got an unexpected keyword argument %R", key);
            return -1;
        }
    }
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    if (core_config(kw, &clock, &cfg, &sc) != 0)
        return -1;
    if (clock) {
        Py_INCREF(clock);
        Py_XSETREF(self->clock, clock); /* a failed __init__ may have set one */
        cfg.clock = clock == Py_False ? core_no_clock : core_py_clock;
        cfg.clock_user = self;
    }
    cfg.refusals_reported = 1; /* every refusal raises: it changes no count */
    if ((rc = ttft_tpot_init(&self->c, &cfg)) == TTFT_TPOT_OK &&
        (rc = ttft_tpot_serve_attach(&self->s, &self->c, &sc)) != TTFT_TPOT_OK)
        ttft_tpot_free(&self->c); /* no layer: no collector either (both zeroed) */
    if (rc != TTFT_TPOT_OK) {
        if (rc == TTFT_TPOT_ENOMEM)
            PyErr_NoMemory();
        else
            PyErr_Format(PyExc_ValueError, "%s: the config (capacity at most 2^32 - 1, max_phases at most 65535, "
                         "hist_slots at most max_phases, percentiles ascending in (0, 100) to 0.001, model_name "
                         "at most 127 bytes without a newline or braces)", ttft_tpot_strerror(rc));
        return -1;
    }
    self->enabled = 1;
    self->prefill_kernel = 0;
    self->ready = 1;
    return 0;
}

static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    core_collector *self = (core_collector *)type->tp_alloc(type, 0);
    (void)args, (void)kw;
    if (self && !(self->inert = core_span_new(NULL)))
        Py_CLEAR(self);
    return (PyObject *)self;
}

/* Every reference the collector holds: its clock, its inert span, the phase cache's names (a str
   subclass can carry attributes that reach back). */
static int core_traverse(core_collector *self, visitproc visit, void *arg)
{
    int k;
    Py_VISIT(self->clock);
    Py_VISIT(self->inert);
    for (k = 0; k < CORE_CACHE; k++) {
        Py_VISIT(self->cache[k].name);
        Py_VISIT(self->cache[k].role);
    }
    return 0;
}

/* Breaking a cycle: the cache empties (it refills), and the clock goes (core_py_clock then raises). */
static int core_clear_refs(core_collector *self)
{
    int k;
    for (k = 0; k < CORE_CACHE; k++) {
        Py_CLEAR(self->cache[k].name);
        Py_CLEAR(self->cache[k].role);
    }
    Py_CLEAR(self->clock);
    return 0;
}

static void core_dealloc(core_collector *self)
{
    PyObject_GC_UnTrack(self);
    ttft_tpot_serve_free(&self->s); /* before its collector */
    ttft_tpot_free(&self->c);
    Py_CLEAR(self->inert);
    PyMem_Free(self->pub);
    core_clear_refs(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Each method in the collector's critical section (free-threaded builds; nothing under the GIL). */
#define CORE_LOCKED_KW(fn)                                                                            \
    static PyObject *fn##_locked(core_collector *self, PyObject *const *a, Py_ssize_t n, PyObject *k) \
    {                                                                                                 \
        PyObject *r;                                                                                  \
        Py_BEGIN_CRITICAL_SECTION(self);                                                              \
        r = fn(self, a, n, k);                                                                        \
        Py_END_CRITICAL_SECTION();                                                                    \
        return r;                                                                                     \
    }
#define CORE_LOCKED_1(fn)                                                                             \
    static PyObject *fn##_locked(core_collector *self, PyObject *a)                                   \
    {                                                                                                 \
        PyObject *r;                                                                                  \
        Py_BEGIN_CRITICAL_SECTION(self);                                                              \
        r = fn(self, a);                                                                              \
        Py_END_CRITICAL_SECTION();                                                                    \
        return r;                                                                                     \
    }
CORE_LOCKED_KW(core_span_call) CORE_LOCKED_KW(core_begin) CORE_LOCKED_KW(core_record) CORE_LOCKED_KW(core_phase_call)
CORE_LOCKED_KW(core_submit) CORE_LOCKED_KW(core_tokens)
#define CORE_MARK_LOCKED_SUBMIT(name)
#define CORE_MARK_LOCKED_TOKEN(name)
#define CORE_MARK_LOCKED_MARK(name) CORE_LOCKED_KW(core_mark_##name)
#define CORE_MARK_LOCKED(name, field, set, tokens, follows, now, role, csv, words) CORE_MARK_LOCKED_##set(name)
TTFT_TPOT_POINTS(CORE_MARK_LOCKED)
#undef CORE_MARK_LOCKED
CORE_LOCKED_1(core_shape_row) CORE_LOCKED_1(core_warmup) CORE_LOCKED_1(core_run) CORE_LOCKED_KW(core_finish)
CORE_LOCKED_KW(core_prompt) CORE_LOCKED_KW(core_cached) CORE_LOCKED_1(core_tell)
CORE_LOCKED_1(core_publish) CORE_LOCKED_1(core_published) CORE_LOCKED_1(core_device_elapsed) CORE_LOCKED_1(core_device_elapsed_ms)
CORE_LOCKED_1(core_device_absolute) CORE_LOCKED_1(core_report) CORE_LOCKED_1(core_report_json)
CORE_LOCKED_1(core_prometheus) CORE_LOCKED_1(core_html) CORE_LOCKED_1(core_trace) CORE_LOCKED_1(core_requests_csv)
CORE_LOCKED_1(core_chrome) CORE_LOCKED_1(core_read) CORE_LOCKED_1(core_samples) CORE_LOCKED_1(core_phases)
CORE_LOCKED_1(core_counts) CORE_LOCKED_1(core_clear) CORE_LOCKED_1(core_set_slo) CORE_LOCKED_1(core_link_prefill_kernel)
CORE_LOCKED_1(core_now) CORE_LOCKED_KW(core_device_resolve)

#define CORE_KW(fn) (PyCFunction)(void (*)(void))(fn##_locked), METH_FASTCALL | METH_KEYWORDS
#define CORE_1(fn, flag) (PyCFunction)(fn##_locked), flag
static PyMethodDef core_collector_methods[] = {
    {"span", CORE_KW(core_span_call),
     "span(phase, role, tokens=None, prompt_tokens=None, shape=None, device=None, sequences=None)"},
    {"begin", CORE_KW(core_begin), "begin(phase, role, ...): span() entered now; its end() records it"},
    {"now", CORE_1(core_now, METH_NOARGS), "now(): the collector's clock, in ns (the t_ns events take)"},
    {"record", CORE_KW(core_record),
     "record(phase, role, ns, tokens=None, start_ns=0, prompt_tokens=None, shape=None, sequences=None)"},
    {"phase", CORE_KW(core_phase_call), "phase(name, role, bounded=False): register a phase"},
    {"shape_row", CORE_1(core_shape_row, METH_VARARGS), "shape_row(phase, key, name)"},
    {"_warmup", CORE_1(core_warmup, METH_O), NULL},
    {"run", CORE_1(core_run, METH_NOARGS), "run(): a run of a repeated generation begins"},
    {"submit", CORE_KW(core_submit), "submit(id, t_ns=None): a request arrives"},
#define CORE_MARK_DEF_SUBMIT(name, role, words)
#define CORE_MARK_DEF_TOKEN(name, role, words)
#define CORE_MARK_DEF_MARK(name, role, words) {role, CORE_KW(core_mark_##name), role "(id, t_ns=None): the time of its " words},
#define CORE_MARK_DEF(name, field, set, tokens, follows, now, role, csv, words) CORE_MARK_DEF_##set(name, role, words)
    TTFT_TPOT_POINTS(CORE_MARK_DEF) /* schedule, ...: the marks */
#undef CORE_MARK_DEF
    {"tokens", CORE_KW(core_tokens), "tokens(id, n=1, t_ns=None): n of its tokens delivered"},
    {"finish", CORE_KW(core_finish),
     "finish(id, reason=None): its last token delivered (a live exposition counts it); reason: \"stop\", "
     "\"length\", \"abort\", \"error\" or \"repetition\" (aborted and errored: in no figure)"},
    {"prompt", CORE_KW(core_prompt),
     "prompt(id, n, cached=None): its prompt tokens (prompt_tokens_total), and those the prefix cache served"},
    {"cached", CORE_KW(core_cached), "cached(id, n): of its prompt tokens, those the prefix cache served"},
    {"tell", CORE_1(core_tell, METH_VARARGS),
     "tell(name, value): what the driver knows, as vLLM's families mean it: kv_cache_usage_perc (a fraction "
     "from 0 to 1), waiting_capacity and waiting_deferred (requests waiting, by why) are set; num_preemptions, "
     "prefix_cache_queries, prefix_cache_hits and prompt_tokens_cached (tokens) add value"},
    {"_publish", CORE_1(core_publish, METH_VARARGS), NULL},
    {"_published", CORE_1(core_published, METH_VARARGS), NULL},
    {"device_resolve", CORE_KW(core_device_resolve),
     "device_resolve(stamps, pair=None): " CORE_STAMP_FORMS " stamps, at once"},
    {"device_elapsed", CORE_1(core_device_elapsed, METH_VARARGS), "device_elapsed(ticket, ns)"},
    {"device_elapsed_ms", CORE_1(core_device_elapsed_ms, METH_VARARGS), "device_elapsed_ms(ticket, ms)"},
    {"device_absolute", CORE_1(core_device_absolute, METH_VARARGS),
     "device_absolute(ticket, begin_ns, end_ns, (host_ns, device_ns))"},
    {"report", CORE_1(core_report, METH_NOARGS), "report(): the text report"},
    {"_report_json", CORE_1(core_report_json, METH_NOARGS), NULL},
    {"_prometheus", CORE_1(core_prometheus, METH_VARARGS), NULL},
    {"_html", CORE_1(core_html, METH_VARARGS), NULL},
    {"_trace", CORE_1(core_trace, METH_NOARGS), NULL},
    {"requests_csv", CORE_1(core_requests_csv, METH_NOARGS),
     "requests_csv(): one CSV row per request (id, times, tokens, TTFT, TPOT, E2E, measured, SLOs met)"},
    {"_chrome_trace", CORE_1(core_chrome, METH_NOARGS), NULL},
    {"_read", CORE_1(core_read, METH_VARARGS), NULL},
    {"_samples", CORE_1(core_samples, METH_VARARGS), NULL},
    {"phases", CORE_1(core_phases, METH_NOARGS), "phases(): [(name, role), ...] in registration order"},
    {"counts", CORE_1(core_counts, METH_NOARGS), "counts(): what the collector holds and lost"},
    {"clear", CORE_1(core_clear, METH_NOARGS), "clear(): empty it for a new interval (phases stay)"},
    {"merge", (PyCFunction)core_merge, METH_O, "merge(other): add another collector's samples and requests"},
    {"_set_slo", CORE_1(core_set_slo, METH_VARARGS), NULL},
    {"link_prefill_kernel", CORE_1(core_link_prefill_kernel, METH_O),
     "link_prefill_kernel(name): a kernel phase as the lower bound of steady TTFT"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_collector_attrs[] = {
    {"enabled", (getter)core_get_enabled, (setter)core_set_enabled, "recording on (False: spans cost almost nothing)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject core_collector_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ttft_tpot._core.Collector",
    .tp_basicsize = sizeof(core_collector),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A ttft_tpot collector (the C library's), configured by keyword.",
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear_refs,
    .tp_methods = core_collector_methods,
    .tp_getset = core_collector_attrs,
    .tp_init = (initproc)core_init,
    .tp_new = core_new,
    .tp_free = PyObject_GC_Del,
};

/* ---- Comparison ------------------------------------------------------------------------------ */

typedef struct core_compare_ask {
    const core_collector *other;
    ttft_tpot_compare_options opt;
    int kind; /* CORE_TEXT, CORE_JSON, CORE_HTML */
    const char *names[2];
} core_compare_ask;

/* base (self) against new (other): the report tool's --compare, text, JSON or HTML. */
static int core_compare_write(core_collector *self, FILE *out, const void *arg)
{
    const core_compare_ask *a = (const core_compare_ask *)arg;
    ttft_tpot_model m[2];
    const ttft_tpot_model *both[2];
    ttft_tpot_compare_result res;
    int rc = core_model(self, 0, &m[0]);
    if (rc != TTFT_TPOT_OK)
        return rc;
    if ((rc = core_model(a->other, 0, &m[1])) != TTFT_TPOT_OK) {
        ttft_tpot_model_free(&m[0]);
        return rc;
    }
    both[0] = &m[0], both[1] = &m[1];
    if (a->kind == CORE_HTML)
        rc = ttft_tpot_html_report(out, both, a->names, 2, ttft_tpot_compare_html) == 0 ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
    else if ((rc = ttft_tpot_compare_models(&m[0], &m[1], &a->opt, &res)) == TTFT_TPOT_OK) {
        (a->kind == CORE_JSON ? ttft_tpot_compare_json : ttft_tpot_compare_text)(out, &res);
        ttft_tpot_compare_free(&res);
    }
    ttft_tpot_model_free(&m[1]);
    ttft_tpot_model_free(&m[0]);
    return rc;
}

/* Whether alpha and noise are in range: 1, or 0 with a ValueError. */
static int core_compare_options_ok(const ttft_tpot_compare_options *o)
{
    if (!(o->alpha > 0 && o->alpha < 1))
        PyErr_Format(PyExc_ValueError, "%s: alpha is between 0 and 1", ttft_tpot_strerror(TTFT_TPOT_EINVAL));
    else if (!(o->noise_pct >= 0 && o->noise_pct < 100))
        PyErr_Format(PyExc_ValueError, "%s: noise is a percentage from 0 to below 100",
                     ttft_tpot_strerror(TTFT_TPOT_EINVAL));
    else
        return 1;
    return 0;
}

/* _compare(base, new, alpha, kind, base_name, new_name, noise_pct, phases_in_verdict) */
static PyObject *core_compare(PyObject *module, PyObject *args)
{
    PyObject *base, *new_, *out;
    core_compare_ask a;
    (void)module;
    a.opt = ttft_tpot_compare_defaults();
    if (!PyArg_ParseTuple(args, "O!O!dizz|dp:compare", &core_collector_type, &base, &core_collector_type, &new_,
                          &a.opt.alpha, &a.kind, &a.names[0], &a.names[1], &a.opt.noise_pct, &a.opt.phases))
        return NULL;
    if (!core_compare_options_ok(&a.opt))
        return NULL;
    if (!core_ready((core_collector *)base) || !core_ready((core_collector *)new_))
        return NULL;
    a.other = (const core_collector *)new_;
    Py_BEGIN_CRITICAL_SECTION2(base, new_);
    out = core_written((core_collector *)base, core_compare_write, &a);
    Py_END_CRITICAL_SECTION2();
    return out;
}

/* A side of _compare_sides: its collectors (a fast sequence), their models (made: how many). */
typedef struct core_side {
    PyObject *seq;
    ttft_tpot_model *m;
    const ttft_tpot_model **each;
    Py_ssize_t n, made;
} core_side;

static void core_side_close(core_side *d)
{
    while (d->made > 0)
        ttft_tpot_model_free(&d->m[--d->made]);
    PyMem_Free(d->m);
    PyMem_Free((void *)d->each);
    Py_XDECREF(d->seq);
}

/* A side's models, each computed under its own collector's lock: 0, or -1 with an exception. */
static int core_side_open(PyObject *given, core_side *d)
{
    if (!(d->seq = PySequence_Fast(given, "a side is a sequence of collectors")))
        return -1;
    if ((d->n = PySequence_Fast_GET_SIZE(d->seq)) == 0)
        return PyErr_SetString(PyExc_ValueError, "a side holds one collector or more"), -1;
    d->m = (ttft_tpot_model *)PyMem_Calloc((size_t)d->n, sizeof *d->m);
    d->each = (const ttft_tpot_model **)PyMem_Calloc((size_t)d->n, sizeof *d->each);
    if (!d->m || !d->each)
        return PyErr_NoMemory(), -1;
    for (; d->made < d->n; d->made++) {
        PyObject *c = PySequence_Fast_GET_ITEM(d->seq, d->made);
        int rc;
        if (!PyObject_TypeCheck(c, &core_collector_type))
            return PyErr_SetString(PyExc_TypeError, "a side is a sequence of Collectors"), -1;
        if (!core_ready((core_collector *)c))
            return -1;
        Py_BEGIN_CRITICAL_SECTION(c);
        rc = core_model((core_collector *)c, 0, &d->m[d->made]);
        Py_END_CRITICAL_SECTION();
        if (rc != TTFT_TPOT_OK)
            return PyErr_NoMemory(), -1;
        d->each[d->made] = &d->m[d->made];
    }
    return 0;
}

/* A comparison as its text or JSON. */
static PyObject *core_compare_str(const ttft_tpot_compare_result *res, int json)
{
    char *buf = NULL;
    size_t len = 0;
    PyObject *r;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    (json ? ttft_tpot_compare_json : ttft_tpot_compare_text)(f, res);
    r = fclose(f) == 0 ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "strict") : PyErr_NoMemory();
    free(buf);
    return r;
}

/* _compare_sides(base, new, alpha, json, noise_pct, phases_in_verdict): the report tool's --base
   TRACE... --new TRACE...: base and new sequences of collectors, each one unit (its runs, or itself as
   one run). The comparison reads the collectors' samples: no thread records into them meanwhile. */
static PyObject *core_compare_sides(PyObject *module, PyObject *args)
{
    PyObject *given[2], *out = NULL;
    core_side d[2];
    ttft_tpot_compare_side side[2];
    ttft_tpot_compare_result res;
    ttft_tpot_compare_options opt = ttft_tpot_compare_defaults();
    int json;
    (void)module;
    memset(d, 0, sizeof d);
    if (!PyArg_ParseTuple(args, "OOdi|dp:compare", &given[0], &given[1], &opt.alpha, &json, &opt.noise_pct,
                          &opt.phases) ||
        !core_compare_options_ok(&opt))
        return NULL;
    if (core_side_open(given[0], &d[0]) == 0 && core_side_open(given[1], &d[1]) == 0) {
        side[0].trace = d[0].each, side[0].n = (size_t)d[0].n;
        side[1].trace = d[1].each, side[1].n = (size_t)d[1].n;
        if (ttft_tpot_compare_sides(&side[0], &side[1], &opt, &res) != TTFT_TPOT_OK)
            PyErr_NoMemory();
        else {
            out = core_compare_str(&res, json);
            ttft_tpot_compare_free(&res);
        }
    }
    core_side_close(&d[1]);
    core_side_close(&d[0]);
    return out;
}

/* _ranks(collectors, names, json): the report tool's --ranks, the first collector rank 0. */
typedef struct core_ranks_ask {
    const ttft_tpot *each[TTFT_TPOT_RANKS_MAX];
    const char *names[TTFT_TPOT_RANKS_MAX];
    int n, json;
} core_ranks_ask;

/* What fn wrote into a memory stream: *buf (free it) of *len bytes; OK, or its code (*buf NULL). */
static int core_memory(int (*fn)(FILE *out, const void *arg), const void *arg, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    int rc;
    if (!f)
        return TTFT_TPOT_ENOMEM;
    rc = fn(f, arg);
    if (fclose(f) != 0 && rc == TTFT_TPOT_OK)
        rc = TTFT_TPOT_ENOMEM;
    if (rc != TTFT_TPOT_OK) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}

typedef struct core_ranks_part {
    const core_ranks_ask *a;
    const ttft_tpot_ranks_figures *f;
    const ttft_tpot_model *m;
} core_ranks_part;

static int core_ranks_whole(FILE *out, const void *arg)
{
    const core_ranks_part *p = (const core_ranks_part *)arg;
    return ttft_tpot_ranks_report(out, p->a->each[0], p->f, p->a->names, p->a->json);
}

static int core_ranks_head(FILE *out, const void *arg)
{
    const core_ranks_part *p = (const core_ranks_part *)arg;
    return ttft_tpot_model_write(p->m, out, p->a->json ? TTFT_TPOT_FORMAT_JSON_OPEN : TTFT_TPOT_FORMAT_TEXT);
}

/* Rank 0's report with the ranks' figures (ttft_tpot_ranks_report). That report is rank 0's model written
   whole (text, or JSON without its closing brace), then the ranks' part; where rank 0 linked a prefill
   kernel, a report option that ranks_report's own model lacks, its model is written with the option and
   the ranks' part follows: what ranks_report writes after its model's report. */
static int core_ranks_report(const core_collector *rank0, FILE *out, const core_ranks_part *p)
{
    core_ranks_part head = *p;
    ttft_tpot_model m;
    char *whole = NULL, *plain = NULL;
    size_t n_whole = 0, n_plain = 0;
    int rc;
    if (!rank0->prefill_kernel)
        return core_ranks_whole(out, p);
    if ((rc = core_memory(core_ranks_whole, p, &whole, &n_whole)) != TTFT_TPOT_OK)
        return rc;
    if ((rc = core_model(rank0, 0, &m)) == TTFT_TPOT_OK) {
        ttft_tpot_model_options none;
        ttft_tpot_model bare;
        memset(&none, 0, sizeof none);
        if ((rc = ttft_tpot_model_compute(&rank0->c, &none, &bare)) == TTFT_TPOT_OK) {
            head.m = &bare;
            rc = core_memory(core_ranks_head, &head, &plain, &n_plain);
            ttft_tpot_model_free(&bare);
        }
        if (rc == TTFT_TPOT_OK && (n_plain > n_whole || memcmp(plain, whole, n_plain) != 0))
            rc = TTFT_TPOT_EINVAL; /* never: ranks_report begins with its model's report */
        head.m = &m;
        if (rc == TTFT_TPOT_OK && (rc = core_ranks_head(out, &head)) == TTFT_TPOT_OK &&
            fwrite(whole + n_plain, 1, n_whole - n_plain, out) != n_whole - n_plain)
            rc = TTFT_TPOT_EIO;
        ttft_tpot_model_free(&m);
    }
    free(plain);
    free(whole);
    return rc;
}

static int core_ranks_write(core_collector *self, FILE *out, const void *arg)
{
    const core_ranks_ask *a = (const core_ranks_ask *)arg;
    ttft_tpot_ranks_figures *f = (ttft_tpot_ranks_figures *)malloc(sizeof *f);
    core_ranks_part p;
    int rc;
    if (!f)
        return TTFT_TPOT_ENOMEM;
    rc = ttft_tpot_ranks_compute(a->each, a->n, f);
    if (rc == -2)
        PyErr_SetString(PyExc_ValueError, "ranks: every rank needs steady decode steps, all stored (a trace with "
                                          "none, or a bounded phase's histogram)");
    p.a = a, p.f = f, p.m = NULL;
    rc = rc == 0 ? core_ranks_report(self, out, &p) : rc == -1 ? TTFT_TPOT_ENOMEM : TTFT_TPOT_EINVAL;
    free(f);
    return rc;
}

static PyObject *core_ranks(PyObject *module, PyObject *args)
{
    PyObject *list, *names, *out;
    core_ranks_ask *a;
    Py_ssize_t n, k;
    int json;
    (void)module;
    if (!PyArg_ParseTuple(args, "O!O!p:ranks", &PyList_Type, &list, &PyList_Type, &names, &json))
        return NULL;
    n = PyList_GET_SIZE(list);
    if (n < 2 || n > TTFT_TPOT_RANKS_MAX || PyList_GET_SIZE(names) != n)
        return PyErr_Format(PyExc_ValueError, "%s: ranks are 2 to %d collectors, each named",
                            ttft_tpot_strerror(TTFT_TPOT_EINVAL), TTFT_TPOT_RANKS_MAX);
    if (!(a = (core_ranks_ask *)PyMem_Calloc(1, sizeof *a)))
        return PyErr_NoMemory();
    a->json = json, a->n = (int)n;
    for (k = 0; k < n; k++) {
        PyObject *c = PyList_GET_ITEM(list, k);
        if (!PyObject_TypeCheck(c, &core_collector_type) ||
            !(a->names[k] = core_utf8(PyList_GET_ITEM(names, k), "a rank's name", "invalid argument"))) {
            PyMem_Free(a);
            return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "ranks are Collectors");
        }
        if (!core_ready((core_collector *)c)) {
            PyMem_Free(a);
            return NULL;
        }
        a->each[k] = &((core_collector *)c)->c;
    }
    out = core_written((core_collector *)PyList_GET_ITEM(list, 0), core_ranks_write, a);
    PyMem_Free(a);
    return out;
}

/* ms_to_ns(ms): a duration in ms (a device timer's) to ns, as the library converts it. */
static PyObject *core_ms_to_ns(PyObject *module, PyObject *arg)
{
    uint64_t ns;
    double ms = PyFloat_AsDouble(arg);
    (void)module;
    if (ms == -1.0 && PyErr_Occurred())
        return NULL;
    if (PyBool_Check(arg) || ttft_tpot_ms_to_ns(ms, &ns) != TTFT_TPOT_OK)
        return PyErr_Format(PyBool_Check(arg) ? PyExc_TypeError : PyExc_ValueError, "%s: %R ms",
                            ttft_tpot_strerror(TTFT_TPOT_ERANGE), arg);
    return PyLong_FromUnsignedLongLong(ns);
}

/* slo_parse(text): "ttft=MS,tpot=MS,e2e=MS" (any of them) as (ttft, tpot, e2e) ms, 0 for none. */
static PyObject *core_slo_parse(PyObject *module, PyObject *arg)
{
    ttft_tpot_slo slo;
    const char *text = core_utf8(arg, "an SLO list", ttft_tpot_strerror(TTFT_TPOT_EINVAL));
    (void)module;
    if (!text)
        return NULL;
    if (ttft_tpot_slo_parse(text, &slo) != TTFT_TPOT_OK)
        return PyErr_Format(PyExc_ValueError, "%s: SLOs are ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), "
                            "not %R", ttft_tpot_strerror(TTFT_TPOT_EINVAL), arg);
    return Py_BuildValue("(ddd)", slo.ttft_ms, slo.tpot_ms, slo.e2e_ms);
}

/* ---- Module ---------------------------------------------------------------------------------- */

static PyMethodDef core_module_methods[] = {
    {"_compare", (PyCFunction)core_compare, METH_VARARGS, NULL},
    {"_compare_sides", (PyCFunction)core_compare_sides, METH_VARARGS, NULL},
    {"slo_parse", (PyCFunction)core_slo_parse, METH_O, "slo_parse(text): (ttft, tpot, e2e) ms"},
    {"_ranks", (PyCFunction)core_ranks, METH_VARARGS, NULL},
    {"ms_to_ns", (PyCFunction)core_ms_to_ns, METH_O, "ms_to_ns(ms): ns, the exact double rounded half up"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "ttft_tpot._core", "The ttft_tpot C library, compiled in.", -1, core_module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m;
    int k;
#define CORE_INTERN(id, text) core_str[S_##id] = PyUnicode_InternFromString(text);
    CORE_NAMES(CORE_INTERN)
#undef CORE_INTERN
    for (k = 0; k < S_COUNT; k++)
        if (!core_str[k])
            return NULL;
    if (PyType_Ready(&core_span_type) != 0 || PyType_Ready(&core_collector_type) != 0 ||
        !(core_lost_warning = PyErr_NewExceptionWithDoc(
              "ttft_tpot.RequestsLostWarning", "A request event the request tables could not hold: counted (counts()'s "
              "requests_refused and requests_dropped, the reports' requests.dropped), and warned of.", PyExc_RuntimeWarning, NULL)) ||
        !(m = PyModule_Create(&core_module)))
        return NULL;
#ifdef Py_GIL_DISABLED /* every call holds its collector's critical section */
    PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED);
#endif
    Py_INCREF(&core_collector_type);
    Py_INCREF(&core_span_type);
    Py_INCREF(core_lost_warning);
    if (PyModule_AddObject(m, "Collector", (PyObject *)&core_collector_type) != 0 ||
        PyModule_AddObject(m, "RequestsLostWarning", core_lost_warning) != 0 ||
        PyModule_AddObject(m, "Span", (PyObject *)&core_span_type) != 0 ||
        PyModule_AddStringConstant(m, "__version__", TTFT_TPOT_VERSION) != 0 ||
        PyModule_AddIntConstant(m, "NAME_MAX", TTFT_TPOT_NAME_MAX) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
