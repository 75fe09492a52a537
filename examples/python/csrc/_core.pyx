# cython: language_level=3, boundscheck=False, wraparound=False, auto_pickle=False, embedsignature=True
"""ttft_tpot._core, the package's C extension: the library's collector and writers, compiled from the
installed headers (ttft_tpot.h, ttft_tpot_tools.h).

A Collector holds one ttft_tpot collector. Spans, records, requests and device resolutions call the
header's public functions; every output is the C writer's, written into a memory stream, so a report is
the C library's byte for byte. A call the library would refuse raises instead (TypeError for a wrong
type, ValueError with the library's message for a wrong value or state) and leaves the collector as it
was: nothing recorded, nothing counted (the collector is made with config.refusals_reported)."""
cimport cython
from cpython.bytes cimport PyBytes_AS_STRING
from libc.errno cimport errno
from libc.stdint cimport uint16_t, uint32_t, uint64_t, uintptr_t, UINT32_MAX, UINT64_MAX
from libc.stdio cimport FILE, fclose
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset, strlen

import os

cdef extern from *:
    """
    #define TTFT_TPOT_IMPLEMENTATION
    #include "ttft_tpot_tools.h"
    #include <errno.h>
    #include <stdio.h>
    #include <sys/stat.h>

    /* The request's time points (TTFT_TPOT_POINTS) as the binding needs them: a mark's method name,
       the words its refusals use, the points it follows, and whose time TTFT_TPOT_NOW stands for. */
    typedef struct core_point {
        const char *role, *words;
        unsigned follows;
        int now;
    } core_point;
    #define CORE_POINT(name, field, set, tokens, follows, now, role, csv, words) \
        {role, words, follows, TTFT_TPOT_POINT_##now},
    static const core_point core_points[TTFT_TPOT_POINT_COUNT] = {TTFT_TPOT_POINTS(CORE_POINT)};
    #undef CORE_POINT

    /* A writer's output in memory: opened, written by the library, closed (a failed close is ENOMEM). */
    typedef struct core_mem {
        char *buf;
        size_t len;
        FILE *f;
    } core_mem;
    static int core_mem_open(core_mem *m)
    {
        m->buf = NULL, m->len = 0;
        m->f = open_memstream(&m->buf, &m->len);
        return m->f ? 0 : -1;
    }
    static int core_mem_close(core_mem *m, int rc)
    {
        if (fclose(m->f) != 0 && rc == TTFT_TPOT_OK)
            rc = TTFT_TPOT_ENOMEM;
        return rc;
    }

    /* fopen for reading, refusing a directory (which fopen opens) with EISDIR. */
    static FILE *core_open(const char *path)
    {
        struct stat st;
        FILE *f = fopen(path, "rb");
        if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
            fclose(f);
            f = NULL;
            errno = EISDIR;
        }
        return f;
    }

    /* The report tool's collector reads no clock: a trace's "# clock:" line names the one that timed it. */
    static uint64_t core_no_clock(void *user)
    {
        (void)user;
        return 0;
    }
    """
    ctypedef struct core_point:
        const char *role
        const char *words
        unsigned follows
        int now
    const core_point core_points[]
    ctypedef struct core_mem:
        char *buf
        size_t len
        FILE *f
    int core_mem_open(core_mem *m)
    int core_mem_close(core_mem *m, int rc)
    FILE *core_open(const char *path)
    uint64_t core_no_clock(void *user)
    FILE *open_memstream(char **buf, size_t *len)
    const char *PyUnicode_AsUTF8AndSize(object o, Py_ssize_t *size) except NULL

cdef extern from "ttft_tpot_tools.h":
    enum:
        TTFT_TPOT_OK, TTFT_TPOT_EINVAL, TTFT_TPOT_ENOMEM, TTFT_TPOT_EFULL, TTFT_TPOT_ESTATE, TTFT_TPOT_ERANGE
        TTFT_TPOT_ENAME, TTFT_TPOT_EROLE, TTFT_TPOT_EPHASE, TTFT_TPOT_EIO, TTFT_TPOT_EPATH, TTFT_TPOT_EPARSE
        TTFT_TPOT_ETICKET
        TTFT_TPOT_ROLE_PREFILL, TTFT_TPOT_ROLE_KERNEL
        TTFT_TPOT_NAME_MAX, TTFT_TPOT_MAX_PERCENTILES
        TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_POINT_SCHEDULE, TTFT_TPOT_POINT_OUTPUT, TTFT_TPOT_POINT_LAST
        TTFT_TPOT_POINT_COUNT, TTFT_TPOT_POINT_NONE
        TTFT_TPOT_SKIP_SAMPLES, TTFT_TPOT_SKIP_SHARES
    const char *TTFT_TPOT_VERSION
    uint64_t TTFT_TPOT_NO_SHAPE, TTFT_TPOT_NOW
    double TTFT_TPOT_COMPARE_NOISE_PCT

    ctypedef uint64_t (*ttft_tpot_clock_fn)(void *user)
    ctypedef struct ttft_tpot:
        pass
    ctypedef struct ttft_tpot_span:
        pass
    ctypedef struct ttft_tpot_publisher:
        pass
    ctypedef struct ttft_tpot_model:
        pass
    ctypedef struct ttft_tpot_config:
        size_t capacity, max_request_events, max_device, max_pending
        unsigned max_phases, hist_slots, max_requests, max_shapes
        int timeline, bounded, grow, refusals_reported
        uint64_t slice_ns
        ttft_tpot_clock_fn clock
        void *clock_user
        const char *clock_name
        double *percentiles
    ctypedef struct ttft_tpot_counts:
        size_t samples, device_intervals, device_open
        unsigned phases, requests, runs
        uint64_t dropped, rejected, shapes_dropped, requests_dropped, requests_refused, events_lost
        uint64_t runs_dropped, outgrown, device_unresolved, device_refused, spans_open
    ctypedef struct ttft_tpot_sample:
        uint64_t dur_ns
        uint16_t phase, warmup
    ctypedef struct ttft_tpot_stats:
        uint64_t n
    ctypedef struct ttft_tpot_clock_pair:
        uint64_t host_ns, device_ns
    ctypedef struct ttft_tpot_device_stamp:
        pass
    ttft_tpot_device_stamp ttft_tpot_stamp_elapsed(uint64_t ticket, uint64_t elapsed_ns)
    ttft_tpot_device_stamp ttft_tpot_stamp_absolute(uint64_t ticket, uint64_t begin_ns, uint64_t end_ns)
    int ttft_tpot_device_resolve(ttft_tpot *c, const ttft_tpot_device_stamp *stamps, size_t n,
                                 const ttft_tpot_clock_pair *pair, size_t *refused)
    ctypedef struct ttft_tpot_slo:
        double ttft_ms, tpot_ms, e2e_ms
    ctypedef struct ttft_tpot_model_options:
        unsigned skip

    int ttft_tpot_init(ttft_tpot *c, const ttft_tpot_config *cfg)
    void ttft_tpot_free(ttft_tpot *c)
    const char *ttft_tpot_strerror(int err)
    const char *ttft_tpot_role_name(int role)
    int ttft_tpot_phase(ttft_tpot *c, const char *name, int role)
    int ttft_tpot_phase_bounded(ttft_tpot *c, int phase)
    int ttft_tpot_shape_row(ttft_tpot *c, int phase, uint64_t key, const char *name)
    int ttft_tpot_find_phase(const ttft_tpot *c, const char *name)
    int ttft_tpot_phase_role(const ttft_tpot *c, int phase)
    const char *ttft_tpot_phase_name(const ttft_tpot *c, int phase)
    ttft_tpot_span ttft_tpot_span_begin(ttft_tpot *c, int phase)
    ttft_tpot_span ttft_tpot_span_begin_at(ttft_tpot *c, int phase, uint64_t start_ns)
    void ttft_tpot_span_set_start(ttft_tpot_span *s, uint64_t start_ns)
    void ttft_tpot_span_set_duration(ttft_tpot_span *s, uint64_t dur_ns)
    void ttft_tpot_span_set_tokens(ttft_tpot_span *s, uint32_t tokens)
    void ttft_tpot_span_set_prompt(ttft_tpot_span *s, uint32_t tokens)
    void ttft_tpot_span_set_shape(ttft_tpot_span *s, uint64_t key)
    void ttft_tpot_span_set_device(ttft_tpot_span *s, uint32_t stream)
    uint64_t ttft_tpot_span_ticket(const ttft_tpot_span *s)
    int ttft_tpot_span_end(ttft_tpot_span *s)
    uint64_t ttft_tpot_clock_now(const ttft_tpot *c)
    void ttft_tpot_enable(ttft_tpot *c, int on)
    int ttft_tpot_warmup_begin(ttft_tpot *c)
    int ttft_tpot_warmup_end(ttft_tpot *c)
    int ttft_tpot_run_begin(ttft_tpot *c)
    int ttft_tpot_request_submit_at(ttft_tpot *c, const char *id, uint64_t t_ns)
    int ttft_tpot_request_tokens_at(ttft_tpot *c, const char *id, uint64_t t_ns, uint32_t tokens)
    int ttft_tpot_request_mark_at(ttft_tpot *c, const char *id, int point, uint64_t t_ns)
    int ttft_tpot_request_finish(ttft_tpot *c, const char *id)
    int ttft_tpot_publish_file(const ttft_tpot *c, ttft_tpot_publisher *p, const char *path, const char *prefix,
                               const char *labels)
    int ttft_tpot_device_elapsed(ttft_tpot *c, uint64_t ticket, uint64_t elapsed_ns)
    int ttft_tpot_device_elapsed_ms(ttft_tpot *c, uint64_t ticket, double ms)
    int ttft_tpot_device_absolute(ttft_tpot *c, uint64_t ticket, uint64_t begin_ns, uint64_t end_ns,
                                  const ttft_tpot_clock_pair *pair)
    int ttft_tpot_model_compute(const ttft_tpot *c, const ttft_tpot_model_options *options, ttft_tpot_model *m)
    int ttft_tpot_model_report(const ttft_tpot_model *m, FILE *out)
    int ttft_tpot_model_report_json(const ttft_tpot_model *m, FILE *out)
    int ttft_tpot_model_prometheus(const ttft_tpot_model *m, FILE *out, const char *prefix, const char *labels)
    void ttft_tpot_model_free(ttft_tpot_model *m)
    int ttft_tpot_trace_write(const ttft_tpot *c, FILE *out)
    int ttft_tpot_chrome_trace(const ttft_tpot *c, FILE *out)
    int ttft_tpot_requests_csv(const ttft_tpot *c, FILE *out)
    int ttft_tpot_trace_read(ttft_tpot *c, FILE *f, const char *name, char *err, size_t errlen)
    int ttft_tpot_sample_at(const ttft_tpot *c, size_t i, ttft_tpot_sample *out, uint64_t *start_ns)
    ttft_tpot_counts ttft_tpot_counts_of(const ttft_tpot *c)
    int ttft_tpot_phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out)
    void ttft_tpot_clear(ttft_tpot *c)
    int ttft_tpot_merge(ttft_tpot *dst, const ttft_tpot *src)
    int ttft_tpot_set_slo(ttft_tpot *c, ttft_tpot_slo slo)
    int ttft_tpot_link_prefill_kernel(ttft_tpot *c, int kernel_phase)
    int ttft_tpot_ms_to_ns(double ms, uint64_t *ns)
    int ttft_tpot_slo_parse(const char *text, ttft_tpot_slo *out)
    int ttft_tpot_percentiles_parse(const char *text, double *out)

    # the report's HTML page, comparison and ranks
    ctypedef int (*ttft_tpot_html_headline_fn)(FILE *out, const ttft_tpot_model *const *m)
    int ttft_tpot_html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n,
                              ttft_tpot_html_headline_fn two)
    int ttft_tpot_compare_html(FILE *out, const ttft_tpot_model *const *m)
    ctypedef struct ttft_tpot_compare_options:
        double alpha, noise_pct
        int phases
    ctypedef struct ttft_tpot_compare_result:
        pass
    ttft_tpot_compare_options ttft_tpot_compare_defaults()
    int ttft_tpot_compare_models(const ttft_tpot_model *base, const ttft_tpot_model *new_,
                                 const ttft_tpot_compare_options *o, ttft_tpot_compare_result *res)
    void ttft_tpot_compare_text(FILE *out, const ttft_tpot_compare_result *res)
    void ttft_tpot_compare_json(FILE *out, const ttft_tpot_compare_result *res)
    void ttft_tpot_compare_free(ttft_tpot_compare_result *res)
    enum:
        TTFT_TPOT_RANKS_MAX
    ctypedef struct ttft_tpot_ranks_figures:
        pass
    int ttft_tpot_ranks_compute(const ttft_tpot *const *c, int n, ttft_tpot_ranks_figures *f)
    int ttft_tpot_ranks_report(FILE *out, const ttft_tpot *rank0, const ttft_tpot_ranks_figures *f,
                               const char *const *names, int json)

__version__ = TTFT_TPOT_VERSION.decode()
NAME_MAX = TTFT_TPOT_NAME_MAX

# ---- Names and checks ------------------------------------------------------------------------------

cdef str err(int rc):
    return ttft_tpot_strerror(rc).decode()


cdef int core_role(object o) except -1:
    """A role name (prefill, decode, kernel, e2e) to its ttft_tpot_role: a literal is interned, so the
    identity test finds it."""
    if o is "prefill":
        return 0
    if o is "decode":
        return 1
    if o is "kernel":
        return 2
    if o is "e2e":
        return 3
    if not isinstance(o, str):
        raise TypeError("a role is a str (prefill, decode, kernel or e2e), not %.100s" % type(o).__name__)
    for r, name in enumerate(("prefill", "decode", "kernel", "e2e")):
        if o == name:
            return r
    raise ValueError("%s: a role is prefill, decode, kernel or e2e, not %r" % (err(TTFT_TPOT_EINVAL), o))


cdef int core_int(object o, str what, uint64_t lo, uint64_t hi, int code, uint64_t *v) except -1:
    """o as an integer in [lo, hi] into *v: TypeError unless an int (a bool is not a count); ValueError
    out of range, with the library's message for code."""
    if not isinstance(o, int) or isinstance(o, bool):
        raise TypeError("%s is an int, not %.100s" % (what, type(o).__name__))
    if 0 <= o <= UINT64_MAX:
        v[0] = o
        if lo <= v[0] <= hi:
            return 0
    raise ValueError("%s: %s is in %d..%d, not %r" % (err(code), what, lo, hi, o))


cdef int core_opt(object o, str what, uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t *v) except -1:
    """core_int for an optional argument: *v = dflt when o is None."""
    if o is None:
        v[0] = dflt
        return 0
    return core_int(o, what, lo, hi, TTFT_TPOT_EINVAL, v)


cdef const char *core_utf8(object o, str what, str message) except NULL:
    """A name (phase, request id) as NUL-terminated UTF-8 held by o, checked for type and embedded NULs
    here; the library checks the rest."""
    cdef Py_ssize_t n
    cdef const char *s
    if not isinstance(o, str):
        raise TypeError("%s is a str, not %.100s" % (what, type(o).__name__))
    try:
        s = PyUnicode_AsUTF8AndSize(o, &n)
    except UnicodeError:
        s = NULL
    if s == NULL or strlen(s) != <size_t>n:
        raise ValueError("%s: %s %r is not UTF-8 without NUL (a lone surrogate, or \\0)" % (message, what, o))
    return s


cdef bytes core_bytes(object o, str what):
    """A str argument as UTF-8 bytes without NUL."""
    core_utf8(o, what, "invalid argument")
    return (<str>o).encode()


cdef bytes core_opt_text(object o, str what):
    """An optional str argument as UTF-8 bytes without NUL, or None."""
    return None if o is None else core_bytes(o, what)


cdef const char *core_c(bytes b):
    return NULL if b is None else PyBytes_AS_STRING(b)


cdef str core_text(core_mem *m, int rc, str refused=None):
    """What a writer wrote into m, as str; else MemoryError, or ValueError (refused: its message)."""
    rc = core_mem_close(m, rc)
    try:
        if rc == TTFT_TPOT_OK:
            return m.buf[:m.len].decode("utf-8")
        if rc == TTFT_TPOT_ENOMEM:
            raise MemoryError()
        raise ValueError(refused or err(rc))
    finally:
        free(m.buf)


cdef int mem_open(core_mem *m) except -1:
    """A memory stream opened in place (the stream keeps the addresses of m's fields)."""
    if core_mem_open(m) != 0:
        raise MemoryError()
    return 0


cdef object core_path(object o):
    """A path argument as open() names it in its errors (os.fspath: str or bytes)."""
    return os.fspath(o)


# ---- Span ------------------------------------------------------------------------------------------

cdef struct core_carry:
    uint64_t tokens, shape  # shape TTFT_TPOT_NO_SHAPE: none
    uint32_t prompt, stream
    bint has_tokens, has_prompt, has_device


cdef core_carry carry_none():
    cdef core_carry k
    memset(&k, 0, sizeof(k))
    k.shape = TTFT_TPOT_NO_SHAPE
    return k


cdef int carry_set(core_carry *k, int role, object tokens, object prompt, object shape, object device,
                   bint has_shape) except -1:
    """What a span carries (tokens, prompt tokens, a shape key, a device stream), each checked when set so
    that the end never refuses; None leaves one unset (a shape: none). k as it was on error."""
    cdef core_carry t = k[0]
    cdef uint64_t v
    if tokens is not None:
        core_int(tokens, "tokens", 0, UINT32_MAX, TTFT_TPOT_EINVAL, &t.tokens)
        t.has_tokens = True
    if prompt is not None:
        core_int(prompt, "prompt_tokens", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &v)
        if role != TTFT_TPOT_ROLE_PREFILL:
            raise ValueError("%s: prompt tokens belong to a prefill phase, not a %s one"
                             % (err(TTFT_TPOT_EROLE), ttft_tpot_role_name(role).decode()))
        t.prompt, t.has_prompt = <uint32_t>v, True
    if has_shape:
        core_opt(shape, "a shape key", 0, TTFT_TPOT_NO_SHAPE - 1, TTFT_TPOT_NO_SHAPE, &t.shape)
    if device is not None:
        core_int(device, "a device stream", 0, UINT32_MAX, TTFT_TPOT_EINVAL, &v)
        t.stream, t.has_device = <uint32_t>v, True
    k[0] = t
    return 0


cdef void carry_apply(const core_carry *k, ttft_tpot_span *s):
    if k.has_tokens:
        ttft_tpot_span_set_tokens(s, <uint32_t>k.tokens)
    if k.has_prompt:
        ttft_tpot_span_set_prompt(s, k.prompt)
    ttft_tpot_span_set_shape(s, k.shape)
    if k.has_device:
        ttft_tpot_span_set_device(s, k.stream)


cdef bint making = False  # set around the one place that makes a Span: no Span is made from Python


@cython.final
@cython.freelist(16)
cdef class Span:
    """A span: `with collector.span(...) as s:`; its counts can be set until the block ends."""
    # GC-tracked through owner: a collector's subclass or its clock can reach the span back. Cleared (a
    # cycle broken), owner is None and the span is inert, as the one a disabled collector hands out.
    cdef Collector owner
    cdef ttft_tpot_span s    # begun when made, its start set on entry
    cdef core_carry k
    cdef int role, stage     # stage: 0 made, 1 entered, 2 exited
    cdef uint64_t start, dur

    def __cinit__(self):
        global making
        if not making:
            raise TypeError("a Span comes from Collector.span()")
        making = False

    def __enter__(self):
        """Begin: read the clock."""
        cdef uint64_t now
        if self.owner is not None:
            if self.stage != 0:
                raise ValueError("%s: a span is entered once" % err(TTFT_TPOT_ESTATE))
            now = ttft_tpot_clock_now(&self.owner.c)
            clock_ok(self.owner)
            ttft_tpot_span_set_start(&self.s, now)
            self.start, self.stage = now, 1
        return self

    def __exit__(self, exc_type, exc, tb):
        """End: record the block's time, also when it raised (the time it took is still spent)."""
        cdef uint64_t now
        cdef int rc
        if self.owner is None:
            self.stage = 2
            return None
        if self.stage != 1:
            raise ValueError("%s: a span ends once, after it was entered" % err(TTFT_TPOT_ESTATE))
        now = ttft_tpot_clock_now(&self.owner.c)
        clock_ok(self.owner)
        self.dur = 0 if now < self.start else now - self.start  # a clock that steps back: 0, as in C
        ttft_tpot_span_set_duration(&self.s, self.dur)
        self.stage = 2
        rc = ttft_tpot_span_end(&self.s)  # EFULL: not kept, counted as dropped, as in C
        if rc != TTFT_TPOT_OK and rc != TTFT_TPOT_EFULL:
            raise ValueError(err(rc))
        return None

    def end(self):
        """end(): record the time since Collector.begin (as __exit__)."""
        return self.__exit__(None, None, None)

    cdef int put(self, object v, int which) except -1:
        """An attribute set: until the end (an inert span takes it and keeps nothing)."""
        if v is None and which != 2:  # a shape of None is none
            raise TypeError("a span's count is an int, not None")
        if self.owner is None:
            return 0
        if self.stage == 2:
            raise ValueError("%s: the span has ended: its counts are recorded" % err(TTFT_TPOT_ESTATE))
        carry_set(&self.k, self.role, v if which == 0 else None, v if which == 1 else None,
                  v if which == 2 else None, v if which == 3 else None, which == 2)
        carry_apply(&self.k, &self.s)
        return 0

    property tokens:
        """tokens produced (None: the role's default)"""
        def __get__(self):
            return self.k.tokens if self.k.has_tokens else None
        def __set__(self, v):
            self.put(v, 0)
        def __del__(self):
            raise AttributeError("a span's counts can be set, not deleted")

    property prompt_tokens:
        """prompt tokens a prefill processed"""
        def __get__(self):
            return self.k.prompt if self.k.has_prompt else None
        def __set__(self, v):
            self.put(v, 1)
        def __del__(self):
            raise AttributeError("a span's counts can be set, not deleted")

    property shape:
        """the shape key it ran with (None: none)"""
        def __get__(self):
            return None if self.k.shape == TTFT_TPOT_NO_SHAPE else self.k.shape
        def __set__(self, v):
            self.put(v, 2)
        def __del__(self):
            raise AttributeError("a span's counts can be set, not deleted")

    property device:
        """the device stream of its device time (None: none)"""
        def __get__(self):
            return self.k.stream if self.k.has_device else None
        def __set__(self, v):
            self.put(v, 3)
        def __del__(self):
            raise AttributeError("a span's counts can be set, not deleted")

    @property
    def ticket(self):
        """after the end: its device ticket (0: none)"""
        return ttft_tpot_span_ticket(&self.s)

    @property
    def duration_ns(self):
        """after the end: the time recorded, in ns"""
        return self.dur if self.stage == 2 and self.owner is not None else None


cdef inline Span span_new():
    """A Span for its maker to fill in (Collector.span, or the inert one below)."""
    global making
    making = True  # taken back by the Span's __cinit__
    return Span.__new__(Span)


cdef Span inert_new():
    cdef Span sp = span_new()
    sp.s, sp.k, sp.role = ttft_tpot_span_begin(NULL, -1), carry_none(), -1
    return sp


cdef Span INERT = inert_new()  # what span() returns while recording is off: records nothing


# ---- Collector -------------------------------------------------------------------------------------

cdef enum:
    CACHE = 64  # phases found by the name object's address (a power of two)

cdef tuple SIZES = ("capacity", "max_phases", "hist_slots", "max_requests", "max_request_events", "max_shapes",
                    "max_device", "max_pending", "slice_ns")
cdef tuple FLAGS = ("timeline", "bounded", "grow")
cdef frozenset KNOWN = frozenset(SIZES + FLAGS + ("clock", "clock_name", "percentiles"))


cdef uint64_t core_py_clock(void *user) noexcept:
    """The Python clock as the library's: what it raises is kept, and the call that read it raises it
    (clock_ok); until then the clock reads 0."""
    cdef Collector self = <Collector>user
    cdef uint64_t v = 0
    if self.clock_error is not None:
        return 0
    if self.clock is None:  # taken by the garbage collector's clear: the collector is being freed
        self.clock_error = RuntimeError("the collector's clock is gone (the collector is being freed)")
        return 0
    try:
        core_int(self.clock(), "the clock's value (ns)", 0, UINT64_MAX - 1, TTFT_TPOT_ERANGE, &v)
    except BaseException as e:
        self.clock_error = e
        return 0
    return v


cdef class Collector:
    """A ttft_tpot collector (the C library's), configured by keyword."""
    cdef ttft_tpot c
    cdef bint ready           # __init__ set c up: every entry point asks first
    cdef bint enabled         # recording on: what the enabled property last set (on at first)
    cdef object clock         # the config's clock: a callable returning ns, False, or None
    cdef object clock_error   # what the Python clock raised, for the call that read it
    cdef ttft_tpot_publisher *pub  # the live exposition's (_publish), made at its first publication
    cdef list cache           # [name, role] a slot, CACHE slots: the phases, by the name object's address
                              # (None once the garbage collector cleared it: it refills)
    cdef int cache_index[CACHE]

    def __cinit__(self, *args, **kw):
        self.cache = [None] * (2 * CACHE)

    def __dealloc__(self):
        if self.ready:
            ttft_tpot_free(&self.c)
        free(self.pub)

    # -- life -------------------------------------------------------------------------------------------

    def __init__(self, *args, **kw):
        """Collector(**config): keyword arguments only, each the C config's field of that name; clock: a
        callable returning ns, False for none (a collector that only reads traces)."""
        cdef ttft_tpot_config cfg
        cdef uint64_t v
        cdef int rc
        cdef bytes name = None
        if self.ready or args:
            raise TypeError("a Collector is set up once" if self.ready else "Collector takes keyword arguments")
        for key in kw:
            if key not in KNOWN:
                raise TypeError("Collector() got an unexpected keyword argument %r" % key)
        memset(&cfg, 0, sizeof(cfg))
        limits = (UINT32_MAX, 65535, 65535, UINT32_MAX, <size_t>-1 // 64, UINT32_MAX, <size_t>-1 // 64,
                  <size_t>-1 // 64, UINT64_MAX // 4)
        sizes = []
        for key, hi in zip(SIZES, limits):
            v = 0
            if key in kw:
                core_int(kw[key], key, 0, hi, TTFT_TPOT_EINVAL, &v)
            sizes.append(v)
        cfg.capacity, cfg.max_phases, cfg.hist_slots = sizes[0], sizes[1], sizes[2]
        cfg.max_requests, cfg.max_request_events, cfg.max_shapes = sizes[3], sizes[4], sizes[5]
        cfg.max_device, cfg.max_pending, cfg.slice_ns = sizes[6], sizes[7], sizes[8]
        cfg.timeline, cfg.bounded, cfg.grow = [bool(kw.get(key, False)) for key in FLAGS]
        if kw.get("percentiles") is not None:
            core_percentiles(kw["percentiles"], cfg.percentiles)
        clock = kw.get("clock")
        if clock is not None and clock is not False and not callable(clock):
            raise TypeError("clock is a callable that returns ns (or None: the platform's clock)")
        name = core_opt_text(kw.get("clock_name"), "clock_name")
        cfg.clock_name = core_c(name)
        if clock is not None:
            self.clock = clock
            cfg.clock = core_no_clock if clock is False else core_py_clock
            cfg.clock_user = <void *>self
        cfg.refusals_reported = 1  # every refusal raises: it changes no count
        rc = ttft_tpot_init(&self.c, &cfg)
        if rc == TTFT_TPOT_ENOMEM:
            raise MemoryError()
        if rc != TTFT_TPOT_OK:
            raise ValueError("%s: the config (capacity at most 2^32 - 1, max_phases at most 65535, hist_slots "
                             "at most max_phases, percentiles ascending in (0, 100) to 0.001)" % err(rc))
        self.enabled = self.ready = True

    # -- phases -----------------------------------------------------------------------------------------

    cdef int phase_add(self, object name, object role) except -1:
        """The phase name, role: registered now when new."""
        cdef int r = core_role(role)
        cdef const char *s = core_utf8(name, "a phase name", err(TTFT_TPOT_ENAME))
        cdef int id = ttft_tpot_phase(&self.c, s, r)
        if id >= 0:
            return id
        if id == TTFT_TPOT_EROLE:
            raise ValueError("%s: %r is a %s phase, not %s" % (err(id), name, ttft_tpot_role_name(
                ttft_tpot_phase_role(&self.c, ttft_tpot_find_phase(&self.c, s))).decode(), role))
        if id == TTFT_TPOT_ENAME:
            raise ValueError("%s: %r (1 to %d bytes of UTF-8 that a terminal shows as text)"
                             % (err(id), name, TTFT_TPOT_NAME_MAX - 1))
        if id == TTFT_TPOT_EPHASE:
            n = ttft_tpot_counts_of(&self.c).phases
            raise ValueError("%s: %r would be phase %d of %d (Collector(max_phases=...))" % (err(id), name, n + 1, n))
        raise ValueError("%s: the collector was not set up" % err(id))

    cdef int find(self, object name) except -1:
        """A registered phase by name (nothing registered)."""
        cdef int id = ttft_tpot_find_phase(&self.c, core_utf8(name, "a phase name", err(TTFT_TPOT_EPHASE)))
        if id < 0:
            raise ValueError("%s: no phase is named %r" % (err(TTFT_TPOT_EPHASE), name))
        return id

    # -- recording --------------------------------------------------------------------------------------

    def span(self, phase, role, tokens=None, prompt_tokens=None, shape=None, device=None):
        """span(phase, role, tokens=None, prompt_tokens=None, shape=None, device=None): a context manager
        that times its block. While recording is off: one shared inert span, nothing checked."""
        cdef Span sp
        cdef core_carry k
        cdef int p, r = -1
        set_up(self)
        if not self.enabled:
            return INERT
        k = carry_none()
        if prompt_tokens is not None:
            r = core_role(role)
        if tokens is not None or prompt_tokens is not None or shape is not None or device is not None:
            carry_set(&k, r, tokens, prompt_tokens, shape, device, True)  # the counts first: a phase is
        p = phase_of(self, phase, role)                                     # registered only by a call that records
        sp = span_new()
        sp.s = ttft_tpot_span_begin_at(&self.c, p, 0)  # open from now on; its start is read on entry
        carry_apply(&k, &sp.s)
        sp.k, sp.role, sp.owner = k, ttft_tpot_phase_role(&self.c, p), self
        return sp

    def begin(self, phase, role, tokens=None, prompt_tokens=None, shape=None, device=None):
        """begin(phase, role, ...): span() entered now; its end() records it (hook pairs, callbacks)."""
        return self.span(phase, role, tokens, prompt_tokens, shape, device).__enter__()

    def now(self):
        """now(): the collector's clock, in ns (the t_ns events take)."""
        cdef uint64_t t
        set_up(self)
        t = ttft_tpot_clock_now(&self.c)
        clock_ok(self)
        return t

    def record(self, phase, role, ns, tokens=None, start_ns=0, prompt_tokens=None, shape=None):
        """record(phase, role, ns, tokens=None, start_ns=0, prompt_tokens=None, shape=None): a duration
        measured elsewhere."""
        cdef ttft_tpot_span s
        cdef core_carry k
        cdef uint64_t dur, start
        cdef int p, rc, r = -1
        set_up(self)
        if not self.enabled:  # as a disabled span: nothing checked, nothing kept
            return None
        core_int(ns, "a duration (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &dur)
        core_opt(start_ns, "a start time (ns)", 0, UINT64_MAX, 0, &start)
        k = carry_none()
        if prompt_tokens is not None:
            r = core_role(role)
        carry_set(&k, r, tokens, prompt_tokens, shape, None, True)  # the counts first, as span()
        p = phase_of(self, phase, role)
        s = ttft_tpot_span_begin_at(&self.c, p, start)
        carry_apply(&k, &s)
        ttft_tpot_span_set_duration(&s, dur)
        rc = ttft_tpot_span_end(&s)
        if rc != TTFT_TPOT_OK and rc != TTFT_TPOT_EFULL:
            raise ValueError(err(rc))

    def phase(self, name, role, bounded=False):
        """phase(name, role, bounded=False): register a phase now (reports list phases in this order);
        bounded: its steady samples go to a histogram."""
        cdef int id, rc
        set_up(self)
        id = phase_of(self, name, role)
        rc = ttft_tpot_phase_bounded(&self.c, id) if bounded else TTFT_TPOT_OK
        if rc != TTFT_TPOT_OK:
            raise ValueError("%s: no histogram slot left for %r (Collector(hist_slots=...))" % (err(rc), name))

    def shape_row(self, phase, key, name):
        """shape_row(phase, key, name): samples of phase with shape key go to a row of their own, the
        phase "PHASE[NAME]"."""
        cdef uint64_t k
        cdef int id, rc
        set_up(self)
        id = self.find(phase)
        core_int(key, "a shape key", 0, TTFT_TPOT_NO_SHAPE - 1, TTFT_TPOT_EINVAL, &k)
        rc = ttft_tpot_shape_row(&self.c, id, k, core_utf8(name, "a row name", err(TTFT_TPOT_ENAME)))
        if rc < 0:  # else the row's phase id
            raise ValueError("%s: row %r of phase %r" % (err(rc), name, phase))

    def _warmup(self, on):
        """_warmup(on): begin (True) or end (False) a warmup section."""
        cdef int rc
        set_up(self)
        rc = ttft_tpot_warmup_begin(&self.c) if on else ttft_tpot_warmup_end(&self.c)
        if rc == TTFT_TPOT_ESTATE:
            raise ValueError("%s: a warmup section ends after it begins" % err(rc))
        if rc != TTFT_TPOT_OK:
            raise ValueError(err(rc))

    def run(self):
        """run(): the samples from now on are one run of a repeated generation."""
        set_up(self)
        ttft_tpot_run_begin(&self.c)  # EFULL: counted in runs_dropped, shown by the reports

    # -- requests ---------------------------------------------------------------------------------------

    cdef str order(self, int p):
        """What a refused event of point p breaks: a mark lies once between the last point it follows and
        the first that follows it (the header's reader names the same two)."""
        cdef int k
        if p == TTFT_TPOT_POINT_SUBMIT:
            return "an id submitted once, a valid name"
        if p == TTFT_TPOT_POINT_LAST:
            return "after its submit, its schedule and its previous tokens"
        after = before = ""
        for k in range(TTFT_TPOT_POINT_COUNT):
            if core_points[p].follows >> k & 1:
                after = core_points[k].words.decode()
            if k != p and core_points[k].follows >> p & 1 and not before:
                before = core_points[k].words.decode()
        return "once, between its %s and its %s" % (after, before)

    cdef request(self, object id, object t_ns, uint32_t tokens, int p):
        """A request event of point p (SUBMIT, LAST for tokens, or a mark) now (t_ns None) or at t_ns. A
        refused one raises and changes nothing; one the tables cannot hold is counted as dropped, as in C."""
        cdef const char *s
        cdef uint64_t at
        cdef int rc
        set_up(self)
        if not self.enabled:  # as a disabled span: nothing checked, nothing kept
            return None
        s = core_utf8(id, "a request id", err(TTFT_TPOT_ENAME))
        core_opt(t_ns, "an event time (ns)", 0, UINT64_MAX - 1, TTFT_TPOT_NOW, &at)
        if at == TTFT_TPOT_NOW and core_points[p].now == TTFT_TPOT_POINT_NONE:  # read here, so that a
            at = ttft_tpot_clock_now(&self.c)                                   # failing Python clock
            clock_ok(self)                                                     # records nothing
        if p == TTFT_TPOT_POINT_SUBMIT:
            rc = ttft_tpot_request_submit_at(&self.c, s, at)
        elif p == TTFT_TPOT_POINT_LAST:
            rc = ttft_tpot_request_tokens_at(&self.c, s, at, tokens)
        else:
            rc = ttft_tpot_request_mark_at(&self.c, s, p, at)
        if rc != TTFT_TPOT_OK and rc != TTFT_TPOT_EFULL:
            raise ValueError("%s: %s of request %r (%s)" % (
                err(rc), "tokens" if p == TTFT_TPOT_POINT_LAST else "the " + core_points[p].role.decode(), id,
                self.order(p)))

    def submit(self, id, t_ns=None):
        """submit(id, t_ns=None): a request arrives"""
        return self.request(id, t_ns, 0, TTFT_TPOT_POINT_SUBMIT)

    # the marks of TTFT_TPOT_POINTS (SET MARK): a point the driver records with a call of its own

    def schedule(self, id, t_ns=None):
        """schedule(id, t_ns=None): the time of its schedule"""
        return self.request(id, t_ns, 0, TTFT_TPOT_POINT_SCHEDULE)

    def output(self, id, t_ns=None):
        """output(id, t_ns=None): the time of its first output token"""
        return self.request(id, t_ns, 0, TTFT_TPOT_POINT_OUTPUT)

    def tokens(self, id, n=1, t_ns=None):
        """tokens(id, n=1, t_ns=None): n of its tokens delivered"""
        cdef uint64_t k
        core_int(n, "a token event's tokens", 1, UINT32_MAX, TTFT_TPOT_EINVAL, &k)
        return self.request(id, t_ns, <uint32_t>k, TTFT_TPOT_POINT_LAST)

    def finish(self, id):
        """finish(id): its last token delivered (a live exposition counts it)"""
        cdef int rc
        set_up(self)
        if not self.enabled:
            return None
        rc = ttft_tpot_request_finish(&self.c, core_utf8(id, "a request id", err(TTFT_TPOT_ENAME)))
        if rc != TTFT_TPOT_OK and rc != TTFT_TPOT_EFULL:
            raise ValueError("%s: the finish of request %r (a submitted request, finished once)" % (err(rc), id))

    def _publish(self, path, prefix, labels):
        """_publish(path, prefix, labels): the live exposition, cumulative over this collector's
        publications, written atomically to path."""
        cdef int rc, e
        set_up(self)
        given = core_path(path)
        p, b_prefix, b_labels = os.fsencode(given), core_opt_text(prefix, "a prefix"), core_opt_text(labels, "labels")
        if self.pub == NULL:
            self.pub = <ttft_tpot_publisher *>calloc(1, sizeof(ttft_tpot_publisher))
            if self.pub == NULL:
                raise MemoryError()
        rc = ttft_tpot_publish_file(&self.c, self.pub, <const char *>p, core_c(b_prefix), core_c(b_labels))
        e = errno
        if rc == TTFT_TPOT_EIO:
            raise OSError(e, os.strerror(e), given)
        if rc == TTFT_TPOT_ENOMEM:
            raise MemoryError()
        if rc == TTFT_TPOT_EPATH:  # not a regular file (a FIFO, a device, a link), or too long
            raise OSError("%s: %r is not replaced (the live exposition replaces a regular file only)" % (err(rc), given))
        if rc != TTFT_TPOT_OK:
            raise ValueError("%s: a prefix is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name [a-zA-Z_][a-zA-Z0-9_]* "
                             "(not le, not __...) given once" % err(rc))

    # -- device time ------------------------------------------------------------------------------------

    def device_resolve(self, stamps, pair=None):
        """device_resolve(stamps, pair=None): (ticket, ns) or (ticket, begin_ns, end_ns) stamps, at once."""
        cdef ttft_tpot_device_stamp *st
        cdef ttft_tpot_clock_pair cp
        cdef uint64_t v[3]
        cdef size_t refused = 0, n, k, j
        cdef int rc
        set_up(self)
        if pair is not None:
            host, device = pair
            core_int(host, "a clock reading (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &cp.host_ns)
            core_int(device, "a clock reading (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &cp.device_ns)
        stamps = list(stamps)
        n = len(stamps)
        st = <ttft_tpot_device_stamp *>malloc((n if n else 1) * sizeof(ttft_tpot_device_stamp))
        if st == NULL:
            raise MemoryError()
        try:
            for k in range(n):
                t = tuple(stamps[k])
                if len(t) not in (2, 3):
                    raise ValueError("%s: a stamp is (ticket, ns) or (ticket, begin_ns, end_ns), not %d values"
                                     % (err(TTFT_TPOT_EINVAL), len(t)))
                for j in range(len(t)):
                    core_int(t[j], "a device time (ns)" if j else "a ticket", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &v[j])
                st[k] = ttft_tpot_stamp_elapsed(v[0], v[1]) if len(t) == 2 else ttft_tpot_stamp_absolute(v[0], v[1], v[2])
            rc = ttft_tpot_device_resolve(&self.c, st, n, &cp if pair is not None else NULL, &refused)
        finally:
            free(st)
        if rc != TTFT_TPOT_OK:
            raise ValueError("%s: %d of %d stamps refused (the rest resolved)" % (err(rc), refused, n))

    def device_elapsed(self, ticket, ns):
        """device_elapsed(ticket, ns): a ticket's device time, elapsed."""
        cdef uint64_t t, v
        set_up(self)
        core_int(ticket, "a ticket", 0, UINT64_MAX, TTFT_TPOT_ETICKET, &t)
        core_int(ns, "a device time (ns)", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &v)
        core_resolved(ttft_tpot_device_elapsed(&self.c, t, v), t)

    def device_elapsed_ms(self, ticket, double ms):
        """device_elapsed_ms(ticket, ms): a ticket's device time, elapsed, in ms."""
        cdef uint64_t t
        set_up(self)
        core_int(ticket, "a ticket", 0, UINT64_MAX, TTFT_TPOT_ETICKET, &t)
        core_resolved(ttft_tpot_device_elapsed_ms(&self.c, t, ms), t)

    def device_absolute(self, ticket, begin_ns, end_ns, pair):
        """device_absolute(ticket, begin_ns, end_ns, (host_ns, device_ns)): on the device clock, mapped
        through the clock pair read together after a synchronize."""
        cdef uint64_t v[5]
        cdef ttft_tpot_clock_pair cp
        cdef int k
        set_up(self)
        host, device = pair
        for k, o in enumerate((ticket, begin_ns, end_ns, host, device)):
            core_int(o, "a clock reading (ns)" if k else "a ticket", 0, UINT64_MAX, TTFT_TPOT_ERANGE, &v[k])
        cp.host_ns, cp.device_ns = v[3], v[4]
        core_resolved(ttft_tpot_device_absolute(&self.c, v[0], v[1], v[2], &cp), v[0])

    # -- outputs ----------------------------------------------------------------------------------------

    cdef str model_out(self, int kind, bytes prefix=None, bytes labels=None, bytes name=None):
        """The model's outputs, computed once each: 0 text, 1 JSON, 2 Prometheus (prefix, labels), 3 HTML."""
        cdef ttft_tpot_model_options requests_only
        cdef ttft_tpot_model m
        cdef const ttft_tpot_model *one[1]
        cdef const char *names[1]
        cdef core_mem out
        cdef int rc
        set_up(self)
        requests_only.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES
        rc = ttft_tpot_model_compute(&self.c, &requests_only if kind == 2 else NULL, &m)
        if rc != TTFT_TPOT_OK:
            return core_fail(rc)
        if core_mem_open(&out) != 0:
            ttft_tpot_model_free(&m)
            raise MemoryError()
        one[0], names[0] = &m, core_c(name)
        if kind == 0:
            rc = ttft_tpot_model_report(&m, out.f)
        elif kind == 1:
            rc = ttft_tpot_model_report_json(&m, out.f)
        elif kind == 2:
            rc = ttft_tpot_model_prometheus(&m, out.f, core_c(prefix), core_c(labels))
        else:
            rc = TTFT_TPOT_OK if ttft_tpot_html_report(out.f, one, names, 1, NULL) == 0 else TTFT_TPOT_ENOMEM
        ttft_tpot_model_free(&m)
        return core_text(&out, rc, None if kind != 2 else
                         "%s: a prefix is [a-zA-Z_:][a-zA-Z0-9_:]*, a label name [a-zA-Z_][a-zA-Z0-9_]* (not le, "
                         "not __...) given once, the labels 500 bytes at most" % err(TTFT_TPOT_EINVAL))

    def report(self):
        """report(): the text report"""
        return self.model_out(0)

    def _report_json(self):
        return self.model_out(1)

    def _prometheus(self, prefix, labels):
        """_prometheus(prefix, labels): the exposition; labels as the library takes them (name="value",...)."""
        return self.model_out(2, core_opt_text(prefix, "a prefix"), core_opt_text(labels, "labels"))

    def _html(self, str name not None):
        return self.model_out(3, None, None, core_bytes(name, "a name"))

    def _trace(self):
        cdef core_mem out
        set_up(self)
        mem_open(&out)
        return core_text(&out, ttft_tpot_trace_write(&self.c, out.f))

    def _chrome_trace(self):
        """A timeline: refused by the library where there is none (no start times kept, or samples that
        all start at 0, as a trace recorded without a timeline reads back)."""
        cdef core_mem out
        set_up(self)
        mem_open(&out)
        return core_text(&out, ttft_tpot_chrome_trace(&self.c, out.f),
                         "%s: a Chrome trace needs start times: Collector(timeline=True) keeps them, and a trace "
                         "read back has them only if it was recorded with one (not start_ns 0 throughout)"
                         % err(TTFT_TPOT_EINVAL))

    def requests_csv(self):
        """requests_csv(): one CSV row per request (id, times, tokens, TTFT, TPOT, E2E, measured, SLOs met)"""
        cdef core_mem out
        set_up(self)
        mem_open(&out)
        return core_text(&out, ttft_tpot_requests_csv(&self.c, out.f))

    # -- reading, queries -------------------------------------------------------------------------------

    def _read(self, path, str name not None):
        """_read(path, name): append a trace to the collector (as ttft_tpot_report reads one)."""
        cdef char message[512]
        cdef FILE *f
        cdef int rc, e
        set_up(self)
        given = core_path(path)
        p, b_name = os.fsencode(given), core_opt_text(name, "a name")
        f = core_open(<const char *>p)
        if f == NULL:
            e = errno
            raise OSError(e, os.strerror(e), given)
        rc = ttft_tpot_trace_read(&self.c, f, <const char *>b_name, message, sizeof(message))
        fclose(f)
        if rc == TTFT_TPOT_ENOMEM:
            raise MemoryError()
        if rc == TTFT_TPOT_EPARSE:
            raise ValueError(message.decode("utf-8", "replace"))
        if rc != TTFT_TPOT_OK:
            raise OSError(err(rc))

    def _samples(self, phase, warmup, stored_only):
        """_samples(phase, warmup, stored_only): the phase's stored durations in call order (steady only
        unless warmup), as bytes of native uint64; a phase with samples in a histogram is refused unless
        stored_only."""
        cdef ttft_tpot_sample s
        cdef ttft_tpot_stats st
        cdef size_t i, n = 0, all = 0, stored
        cdef uint64_t *v
        cdef int id
        cdef bint steady_only = not warmup
        set_up(self)
        id = self.find(phase)
        stored = ttft_tpot_counts_of(&self.c).samples
        for i in range(stored):
            if ttft_tpot_sample_at(&self.c, i, &s, NULL) == TTFT_TPOT_OK and s.phase == id:
                all += 1
        if not stored_only and ttft_tpot_phase_stats(&self.c, id, &st) == TTFT_TPOT_OK and st.n > all:
            raise ValueError("phase %r has %d samples, %d of them stored: the rest went to a histogram (bounded, "
                             "or past the capacity); stored_only=True takes the stored ones" % (phase, st.n, all))
        out = bytearray(all * sizeof(uint64_t))
        v = <uint64_t *><char *>out
        for i in range(stored):
            if ttft_tpot_sample_at(&self.c, i, &s, NULL) == TTFT_TPOT_OK and s.phase == id and not (
                    steady_only and s.warmup):
                v[n] = s.dur_ns
                n += 1
        del out[n * sizeof(uint64_t):]
        return out

    def phases(self):
        """phases(): [(name, role), ...] in registration order"""
        cdef unsigned p
        set_up(self)
        return [(ttft_tpot_phase_name(&self.c, p).decode(), ttft_tpot_role_name(ttft_tpot_phase_role(&self.c, p)).decode())
                for p in range(ttft_tpot_counts_of(&self.c).phases)]

    def counts(self):
        """counts(): what the collector holds and lost"""
        cdef ttft_tpot_counts k
        set_up(self)
        k = ttft_tpot_counts_of(&self.c)
        return {"samples": k.samples, "phases": k.phases, "requests": k.requests, "dropped": k.dropped,
                "rejected": k.rejected, "shapes_dropped": k.shapes_dropped, "requests_dropped": k.requests_dropped,
                "requests_refused": k.requests_refused, "events_lost": k.events_lost, "runs": k.runs,
                "runs_dropped": k.runs_dropped, "outgrown": k.outgrown, "device_intervals": k.device_intervals,
                "device_open": k.device_open, "device_unresolved": k.device_unresolved,
                "device_refused": k.device_refused, "spans_open": k.spans_open}

    # -- the rest ---------------------------------------------------------------------------------------

    def clear(self):
        """clear(): empty it for a new interval (phases stay)"""
        set_up(self)
        ttft_tpot_clear(&self.c)

    def merge(self, other):
        """merge(other): add another collector's samples and requests; all or nothing"""
        cdef int rc
        set_up(self)
        if not isinstance(other, Collector):
            raise TypeError("merge takes a Collector, not %.100s" % type(other).__name__)
        set_up(<Collector>other)
        rc = ttft_tpot_merge(&self.c, &(<Collector>other).c)
        if rc == TTFT_TPOT_ENOMEM:
            raise MemoryError()
        if rc != TTFT_TPOT_OK:
            raise ValueError("%s: nothing merged" % err(rc))

    def _set_slo(self, double ttft, double tpot, double e2e):
        """_set_slo(ttft_ms, tpot_ms, e2e_ms): goodput's service-level objectives (0: none)."""
        cdef ttft_tpot_slo slo
        set_up(self)
        slo.ttft_ms, slo.tpot_ms, slo.e2e_ms = ttft, tpot, e2e
        if ttft_tpot_set_slo(&self.c, slo) != TTFT_TPOT_OK:
            raise ValueError("%s: an SLO is a finite number of ms, 0 or more" % err(TTFT_TPOT_ERANGE))

    def link_prefill_kernel(self, name):
        """link_prefill_kernel(name): a kernel phase as the lower bound of steady TTFT"""
        cdef int id
        set_up(self)
        id = self.find(name)
        if ttft_tpot_phase_role(&self.c, id) != TTFT_TPOT_ROLE_KERNEL:
            raise ValueError("%s: %r is not a kernel phase" % (err(TTFT_TPOT_EROLE), name))
        ttft_tpot_link_prefill_kernel(&self.c, id)

    property enabled:
        """recording on (False: spans cost almost nothing)"""
        def __get__(self):
            set_up(self)
            return self.enabled
        def __set__(self, v):
            set_up(self)
            on = bool(v)
            ttft_tpot_enable(&self.c, on)
            self.enabled = on
        def __del__(self):
            raise AttributeError("enabled can be set, not deleted")


# ---- Collector: its checks, and the phase cache (functions, so that the hot path calls them directly)

cdef inline int set_up(Collector tp) except -1:
    """Before __init__ (Collector.__new__, or a subclass whose __init__ skips super().__init__()) it
    holds no C collector: every entry point asks this first."""
    if not tp.ready:
        raise RuntimeError("a %.100s whose Collector.__init__ did not run (a subclass's __init__ calls "
                           "super().__init__()): it holds no collector" % type(tp).__name__)
    return 0


cdef inline int clock_ok(Collector tp) except -1:
    """After a clock read: raises what the Python clock raised (the clock works again after)."""
    cdef object e = tp.clock_error
    if e is not None:
        tp.clock_error = None
        raise e
    return 0


cdef inline int phase_of(Collector tp, object name, object role) except -1:
    """The phase of (name, role), by the name object's address first: the hot path of span and record."""
    cdef Py_ssize_t slot = (<uintptr_t><void *>name >> 4) & (CACHE - 1)
    cdef int id
    if tp.cache is None:
        tp.cache = [None] * (2 * CACHE)
    if tp.cache[2 * slot] is name and tp.cache[2 * slot + 1] is role:
        return tp.cache_index[slot]
    id = tp.phase_add(name, role)
    tp.cache[2 * slot], tp.cache[2 * slot + 1], tp.cache_index[slot] = name, role, id
    return id


cdef str core_fail(int rc):
    if rc == TTFT_TPOT_ENOMEM:
        raise MemoryError()
    raise ValueError(err(rc))




cdef int core_resolved(int rc, uint64_t ticket) except -1:
    """A device resolution's code: a ValueError unless OK (the refusal is not counted)."""
    if rc != TTFT_TPOT_OK:
        raise ValueError("%s: ticket %d" % (err(rc), ticket))
    return 0


cdef int core_percentiles(object o, double *out) except -1:
    """config.percentiles from "50,90,99.9" or a sequence of numbers (ttft_tpot_init checks them)."""
    if isinstance(o, str):
        if ttft_tpot_percentiles_parse(core_utf8(o, "percentiles", "invalid argument"), out) != TTFT_TPOT_OK:
            raise ValueError("percentiles: ascending, between 0 and 100, at most %d, to 0.001: not %r"
                             % (TTFT_TPOT_MAX_PERCENTILES, o))
        return 0
    try:
        seq = list(o)
    except TypeError:
        raise TypeError('percentiles is a string such as "50,90,99.9" or a sequence of numbers') from None
    if len(seq) > TTFT_TPOT_MAX_PERCENTILES:
        raise ValueError("percentiles: at most %d" % TTFT_TPOT_MAX_PERCENTILES)
    for k, x in enumerate(seq):
        out[k] = x
    return 0


# ---- Comparison, ranks, conversions ----------------------------------------------------------------

def _compare(Collector base not None, Collector new not None, double alpha, int kind, base_name, new_name,
             double noise_pct=TTFT_TPOT_COMPARE_NOISE_PCT, bint phases_in_verdict=False):
    """_compare(base, new, alpha, kind, base_name, new_name, noise_pct, phases_in_verdict): the report
    tool's --compare of base against new; kind 0 text, 1 JSON, 3 HTML."""
    cdef ttft_tpot_compare_options opt = ttft_tpot_compare_defaults()
    cdef ttft_tpot_compare_result res
    cdef ttft_tpot_model m[2]
    cdef const ttft_tpot_model *both[2]
    cdef const char *names[2]
    cdef core_mem out
    cdef int rc
    if not 0 < alpha < 1:
        raise ValueError("%s: alpha is between 0 and 1" % err(TTFT_TPOT_EINVAL))
    if not 0 <= noise_pct < 100:
        raise ValueError("%s: noise is a percentage from 0 to below 100" % err(TTFT_TPOT_EINVAL))
    set_up(base)
    set_up(new)
    b_base, b_new = core_opt_text(base_name, "a name"), core_opt_text(new_name, "a name")
    opt.alpha, opt.noise_pct, opt.phases = alpha, noise_pct, phases_in_verdict
    rc = ttft_tpot_model_compute(&base.c, NULL, &m[0])
    if rc != TTFT_TPOT_OK:
        return core_fail(rc)
    rc = ttft_tpot_model_compute(&new.c, NULL, &m[1])
    if rc != TTFT_TPOT_OK:
        ttft_tpot_model_free(&m[0])
        return core_fail(rc)
    if core_mem_open(&out) != 0:
        rc = TTFT_TPOT_ENOMEM
    elif kind == 3:
        both[0], both[1], names[0], names[1] = &m[0], &m[1], core_c(b_base), core_c(b_new)
        rc = TTFT_TPOT_OK if ttft_tpot_html_report(out.f, both, names, 2, ttft_tpot_compare_html) == 0 \
            else TTFT_TPOT_ENOMEM
    else:
        rc = ttft_tpot_compare_models(&m[0], &m[1], &opt, &res)
        if rc == TTFT_TPOT_OK:
            if kind == 1:
                ttft_tpot_compare_json(out.f, &res)
            else:
                ttft_tpot_compare_text(out.f, &res)
            ttft_tpot_compare_free(&res)
    ttft_tpot_model_free(&m[1])
    ttft_tpot_model_free(&m[0])
    if out.f == NULL:
        raise MemoryError()
    return core_text(&out, rc)


def _ranks(list collectors not None, list names not None, bint json):
    """_ranks(collectors, names, json): the report tool's --ranks, the first collector rank 0."""
    cdef const ttft_tpot **each
    cdef const char **cnames
    cdef ttft_tpot_ranks_figures *f
    cdef core_mem out
    cdef Py_ssize_t n = len(collectors), k
    cdef int rc
    if n < 2 or n > TTFT_TPOT_RANKS_MAX or len(names) != n:
        raise ValueError("%s: ranks are 2 to %d collectors, each named" % (err(TTFT_TPOT_EINVAL), TTFT_TPOT_RANKS_MAX))
    for c in collectors:
        if not isinstance(c, Collector):
            raise TypeError("ranks are Collectors")
        set_up(<Collector>c)
    held = [core_bytes(name, "a rank's name") for name in names]  # the bytes the C names point into
    each = <const ttft_tpot **>calloc(n, sizeof(each[0]))
    cnames = <const char **>calloc(n, sizeof(cnames[0]))
    f = <ttft_tpot_ranks_figures *>malloc(sizeof(ttft_tpot_ranks_figures))
    try:
        if each == NULL or cnames == NULL or f == NULL:
            raise MemoryError()
        for k in range(n):
            each[k], cnames[k] = &(<Collector>collectors[k]).c, core_c(held[k])
        rc = ttft_tpot_ranks_compute(each, <int>n, f)
        if rc == -2:
            raise ValueError("ranks: every rank needs steady decode steps, all stored (a trace with none, or a "
                             "bounded phase's histogram)")
        if rc != 0:
            raise MemoryError()
        mem_open(&out)
        return core_text(&out, ttft_tpot_ranks_report(out.f, each[0], f, cnames, json))
    finally:
        free(f)
        free(cnames)
        free(each)


def ms_to_ns(ms):
    """ms_to_ns(ms): ns, the exact double rounded half up"""
    cdef uint64_t ns
    cdef double d
    if isinstance(ms, bool):
        raise TypeError("%s: %r ms" % (err(TTFT_TPOT_ERANGE), ms))
    d = ms
    if ttft_tpot_ms_to_ns(d, &ns) != TTFT_TPOT_OK:
        raise ValueError("%s: %r ms" % (err(TTFT_TPOT_ERANGE), ms))
    return ns


def slo_parse(text):
    """slo_parse(text): "ttft=MS,tpot=MS,e2e=MS" (any of them) as (ttft, tpot, e2e) ms, 0 for none"""
    cdef ttft_tpot_slo slo
    if ttft_tpot_slo_parse(core_utf8(text, "an SLO list", err(TTFT_TPOT_EINVAL)), &slo) != TTFT_TPOT_OK:
        raise ValueError("%s: SLOs are ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), not %r"
                         % (err(TTFT_TPOT_EINVAL), text))
    return (slo.ttft_ms, slo.tpot_ms, slo.e2e_ms)
