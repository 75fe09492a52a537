/* ttft_tpot.h v0.4.0 - TTFT / TPOT latency metrics for LLM inference drivers. MIT license (end of file).

   Time every prefill, decode step and kernel dispatch of a model driver, then print the numbers that
   matter in deployment, in the vLLM convention: time to first token (first request and steady state),
   time per output token (steady decode, p50/p90/p99), decode-only output throughput, raw per-phase
   aggregates, and the mixed end-to-end rate clearly labelled as not a serving throughput.

   USE
     In exactly one C or C++ file:
         #define TTFT_TPOT_IMPLEMENTATION
         #include "ttft_tpot.h"
     Everywhere else just #include "ttft_tpot.h".

         ttft_tpot tp;
         ttft_tpot_init(&tp, NULL);                                   // defaults: 65536 samples, 64 phases
         ttft_tpot_enable(&tp, profile);                              // off: a span is one branch, no clock read
         int pre = ttft_tpot_phase(&tp, "prefill", TTFT_TPOT_ROLE_PREFILL);
         int dec = ttft_tpot_phase(&tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
         TTFT_TPOT_SPAN_BEGIN(s, &tp, pre);  prefill(...);  TTFT_TPOT_SPAN_END(s);
         for (...) { TTFT_TPOT_SPAN_BEGIN(d, &tp, dec); decode_step(...); TTFT_TPOT_SPAN_SET_TOKENS(d, batch);
                     TTFT_TPOT_SPAN_END(d); }
         if (profile) ttft_tpot_report(&tp, stdout);
         ttft_tpot_free(&tp);

   INDEX (every public function and span macro of this header, by section; each declared below with its
   contract. A driver that serves requests also includes ttft_tpot_serve.h; a program that reads traces
   or takes figures apart, ttft_tpot_tools.h.)
     Errors       ttft_tpot_strerror              an error code's name
     Phases       ttft_tpot_phase                 register a phase (or find it): its id
                  ttft_tpot_shape_row             a shape key with its own row (first call: warmup)
                  ttft_tpot_phase_bounded         its steady samples go on in a histogram
                  ttft_tpot_warmup_begin          a warmup section begins: all inside is warmup
                  ttft_tpot_warmup_end            ... and ends
     Device time  ttft_tpot_device_resolve        a step's tickets, resolved at once
                  ttft_tpot_device_part           a kernel inside a resolved launch (a graph's)
     Collector    ttft_tpot_bytes_needed          the bytes init takes for a config
                  ttft_tpot_init                  make a collector (NULL config: defaults)
                  ttft_tpot_free                  free it
                  ttft_tpot_enable                recording on or off
                  ttft_tpot_clear                 empty it (phases stay)
                  ttft_tpot_merge                 add one collector to another (a thread's)
                  ttft_tpot_run_begin             a repeated run begins
     Recording    ttft_tpot_clock_now             the collector's clock (NULL: the platform's)
                  ttft_tpot_span_begin            begin a span (reads the clock)
                  ttft_tpot_span_begin_at         begin a span at a start of yours (no clock read)
                  ttft_tpot_span_set_tokens       the tokens it produced
                  ttft_tpot_span_set_prompt       the prompt tokens a prefill processed
                  ttft_tpot_span_set_shape        the shape key it ran with
                  ttft_tpot_span_set_duration     a duration measured elsewhere
                  ttft_tpot_span_set_sequences    the sequences a step of several tokens a sequence advanced
                  ttft_tpot_span_set_device       its device time comes later (a ticket)
                  ttft_tpot_span_end              end it: one sample recorded
                  ttft_tpot_span_cancel           end it, recording nothing
                  ttft_tpot_ms_to_ns              ms to ns, exactly (refuses NaN, negative, huge)
                  TTFT_TPOT_SPAN_BEGIN            the macros (nothing under TTFT_TPOT_DISABLE):
                  TTFT_TPOT_SPAN_SET_TOKENS         begin, setters and end as statements,
                  TTFT_TPOT_SPAN_SET_PROMPT         and TIME, which times one statement
                  TTFT_TPOT_SPAN_SET_SHAPE
                  TTFT_TPOT_SPAN_SET_DURATION
                  TTFT_TPOT_SPAN_SET_DEVICE
                  TTFT_TPOT_SPAN_END
                  TTFT_TPOT_TIME
     Report model ttft_tpot_model_compute         every figure, computed once
                  ttft_tpot_model_free            free a model
                  ttft_tpot_series_stats          the statistics of a set or of any values
                  ttft_tpot_sort                  radix sort of uint64 values
                  ttft_tpot_ci95_ranks            distribution-free 95% interval of a percentile (ranks)
                  ttft_tpot_t975                  Student's t, 97.5th percentile (the mean's 95% interval)
     Writers      ttft_tpot_report                the text report of a collector (compute + write + free)
                  ttft_tpot_model_write           a model as text or JSON
                  ttft_tpot_write                 printf into a writer, whatever the locale, with the
                                                    report's own conversions (a layer's sections)
                  ttft_tpot_trace_write           every sample and event, to read back later
     Layers       ttft_tpot_attach                a layer (serving) joins a collector's reports and traces
                  ttft_tpot_name_hash             a name as the collector's indexes key it
                  ttft_tpot_restore               what a trace holds, back into a collector (its reader's call)

   RECORDING
     One begin, one end, and setters between them for what a sample carries: tokens, prompt tokens,
     a shape key, a duration measured elsewhere (a device timer), the sequences of a multi-token step,
     a device ticket. A duration measured elsewhere is a span begun at its start (0: unknown) with its
     duration set:
         ttft_tpot_span s = ttft_tpot_span_begin(&tp, pre);
         prefill(batch);
         ttft_tpot_span_set_tokens(&s, batch);            // one token a sequence
         ttft_tpot_span_set_prompt(&s, batch * prompt_len);
         ttft_tpot_span_set_shape(&s, batch);             // first call of each batch size: warmup
         ttft_tpot_span_end(&s);

         ttft_tpot_span k = ttft_tpot_span_begin_at(&tp, kernel, 0);   // timed by a device event pair
         ttft_tpot_span_set_duration(&k, elapsed_ns);
         ttft_tpot_span_end(&k);

   REPORT MODEL
     ttft_tpot_model_compute computes every figure once (headline, phases, steady states, runs, kernel
     shares, losses, device time, and an attached layer's figures); the text and JSON writers and the
     tools read the model. ttft_tpot_report(c, f) is compute + ttft_tpot_model_write + free.

   LAYERS
     A driver that serves requests attaches the serving layer (ttft_tpot_serve.h) to its collector:
     its figures join the model, its sections the text and JSON reports, its rows and directives the
     trace. The core knows a layer only as a ttft_tpot_layer (a table of hooks, below) and the places
     they are called: what it records, and how, is the layer's. A layer with a sample hook sees each
     prefill and decode span as it ends (the serving layer counts engine steps so); those spans then
     take the out-of-line path, and a collector without such a layer pays nothing for it. The tools
     (ttft_tpot_tools.h) read traces back through ttft_tpot_restore and the layer's own restore call,
     and read figures from models: neither header uses a private name of this one.

   SECTIONS
     Each heading stands twice, in the same order: over the declarations and over the implementation
     (search "---- Recording" to find both): Errors · Clock · Names, hashing and numbers · Statistics
     (exact and bounded) · Phases and warmup · Storage · Device time · Collector and config ·
     Recording · Report model · Writers (the writer, text, JSON) · Trace I/O · Layers. Each section
     uses only those above it, but for the collector's calls of its layer's hooks. Writers and Trace
     I/O have sub-headings ("-- Writers: the JSON report").

   COMPILE-TIME OPTIONS (define before the #include that they should affect)
     TTFT_TPOT_IMPLEMENTATION   in one file: emit the function bodies there.
     TTFT_TPOT_STATIC           with the implementation: make every function static to that file.
     TTFT_TPOT_DEF              the declaration prefix of every non-inline function (default extern).
     TTFT_TPOT_DISABLE          span macros compile to nothing; types and functions stay, so code builds.
     TTFT_TPOT_NO_STDIO         for a host without stdio: no FILE* writer (Writers, Trace I/O) is declared
                                or compiled, and <stdio.h> is not included; recording and statistics
                                stay (read figures with ttft_tpot_model_compute).
     TTFT_TPOT_LAYERS           with the implementation: compile the calls only layers and tools make
                                (ttft_tpot_series_stats, ttft_tpot_write, ttft_tpot_restore: Layers);
                                ttft_tpot_serve.h and ttft_tpot_tools.h define it. A driver that
                                includes this header alone leaves them out.
     TTFT_TPOT_MALLOC(sz, u)    allocator used by init, the reports and writers; u is config.alloc_user.
     TTFT_TPOT_FREE(p, u)       both or neither (the header stops with #error otherwise). Default libc.
     TTFT_TPOT_REALLOC(p, old, sz, u)  optional with those two (else malloc, copy old bytes, free):
                                only config.grow uses it, when a trace outgrows the collector.
     TTFT_TPOT_ASSERT(x)        checks internal invariants only, never run-time data. Default assert().
     TTFT_TPOT_NAME_MAX         bytes of a phase name including its NUL (default 64), in every file.
     TTFT_TPOT_MAX_RUNS         runs a collector marks (ttft_tpot_run_begin; default 256), in every file.
     TTFT_TPOT_NVTX             every timed span is also an NVTX range (push at its begin, pop at its end or
                                cancel) of the domain "ttft_tpot", named by its phase, for Nsight Systems;
                                needs the NVTX v3 headers (<nvtx3/nvToolsExt.h>: the CUDA toolkit's, or
                                the nvtx package's, by -isystem: NVTX itself is not -Wpedantic clean)
                                and, on glibc before 2.34, -ldl. Define it in every file that
                                includes the header: the spans call what only an implementation
                                built with it defines (a mismatch fails to link, never silently).

   CLOCK
     Integer nanoseconds from a monotonic clock: Linux and other POSIX clock_gettime(CLOCK_MONOTONIC)
     (macOS included); Windows QueryPerformanceCounter. Why CLOCK_MONOTONIC: it never jumps and runs at
     the NTP-corrected rate, so a second is a second, and it is read through the vDSO without a system
     call. CLOCK_MONOTONIC_RAW is the uncorrected oscillator and a system call on older kernels;
     CLOCK_MONOTONIC_COARSE ticks every 1-4 ms, too coarse for a kernel dispatch. A collector can be
     given its own clock (ttft_tpot_config.clock), e.g. exact timestamps in tests or a TSC reader.
     On POSIX the implementation needs clock_gettime: under a strict -std=c99 the header asks for
     _POSIX_C_SOURCE itself, which works when it is the file's first include; otherwise compile that
     file with -D_POSIX_C_SOURCE=199309L.

   METRICS (their one written definition: the README and the man page point here)
     TTFT first = the first prefill-role sample, warmup or not.
     TTFT steady = n/p50/p90/p99/mean over the prefill-role samples not flagged warmup; none:
       n/a (time one warmup request first). If the report names a kernel phase as the prefill
       kernel (ttft_tpot_model_options.prefill_kernel), the text shows that kernel's fastest sample as
       a lower bound.
     TPOT = n/p50/p90/p99/mean/min/max over decode-role samples not flagged warmup (so step 0 of
       a cold run is excluded), and how many were excluded. A decode sample's value is its time per
       output token: its duration, which for a step of one token a sequence is the per-sequence
       time per token; for a step that emitted more than one token a sequence (speculative
       decoding, multi-token prediction: ttft_tpot_span_set_sequences), duration x sequences /
       tokens, rounded to the ns. The decode phase's own row, its steady state and the throughput
       keep the steps' durations.
     Acceptance length (where a steady decode step emitted more than one token a sequence; JSON
       acceptance_length, else null) = mean: the steps' tokens / their sequences, summed over them
       all (vLLM's mean acceptance length, 1 + accepted / drafts); p50, p90: of each step's tokens /
       sequences (a step without sequences counts 1). Over the stored steady decode steps.
     Output throughput (decode-only, steady) = sum of tokens / sum of durations over those same
       decode samples (for one sequence this is 1000 / mean TPOT in ms).
     e2e = sum of tokens / sum of durations of the e2e-role samples; it includes prefill and
       warmup and is not a serving throughput.
     Percentile p of n sorted values x: h = (n-1)*p/100, result x[floor(h)] +
       (h-floor(h))*(x[floor(h)+1]-x[floor(h)]). This is numpy's default ("linear"), which vLLM,
       SGLang and GenAI-Perf use, so figures compare 1:1. p of one sample is that sample. Exact:
       computed by selection over every stored sample, not approximated.
     95% interval of a percentile (p50, p90, p99 of every set: steady TTFT, TPOT, each request
       metric, each phase; JSON ci95, and in the TTFT and TPOT lines) = [x(lo), x(hi)], two
       order statistics of the same values (ranks from 1, smallest first), with B ~ Binomial(n,
       p/100): lo the largest rank with P(B < lo) <= 0.025, hi the smallest with P(B >= hi) <=
       0.025. Then P(x(lo) <= true percentile <= x(hi)) >= 95% whatever the distribution,
       provided the samples are independent draws from one distribution. It says how precisely n
       samples pin the percentile down, not how much the next run will differ. Steps, kernel
       calls and requests of one run are correlated (the KV cache grows; a slow step is often
       followed by another; a queue carries delay from request to request), and runs differ by
       more than their steps do: every such interval (TPOT's, a phase's, a request metric's)
       covers the values it was computed from, this run's, and the text says so ("95% CI of these
       steps, not of another run"). Where a run lands is the across-run interval below (Runs);
       whether two builds differ, --compare over runs. No such interval exists for small n (the text
       says CI needs n>=..., the JSON gives null): p50 needs 6 samples, p90 36, p99 368
       (ttft_tpot_ci95_ranks says where one exists). A bounded phase's interval is read from its
       histogram like its percentiles, within the same 0.78%.
     Prefill rate = the prompt tokens of the steady (not warmup) prefill-role samples that carry
       a prompt count, / the sum of those samples' durations, in tok/s. Steady prefills without
       a count are left out and counted (without_prompt); with none, n/a.
     Per-phase rows are over all of the phase's samples, warmup included: n, warmup n, total,
       mean, min, max, p50, p90, p99. Each phase also has its steady view, the same figures over
       its samples not flagged warmup (n - warmup n), and its warmup max, the slowest warmup
       sample: a kernel whose first call page-faults the weights shows a 280 ms max beside a 7
       ms steady p50.
     Runs. A driver that repeats a generation calls ttft_tpot_run_begin(c) before each measured
       run (generate --repeat-runs N does); samples before the first run belong to none. Each
       run's steady TTFT p50, TPOT p50 and output throughput (its steady decode tokens / their
       time) are reported, and across runs their mean, sd (n - 1) and coefficient of variation
       sd / mean, as llama-bench prints t/s +- sd, with the 95% t-interval of the mean, mean -+
       t(0.975, n - 1) sd / sqrt(n) (JSON runs.<figure>.ci95; the low end clamped at 0): the runs
       are independent, so this interval covers the figure's true mean in 95% of sets of runs
       (tests/compare_sim measures it), and it is the figure to compare. A heavy tail (a run's
       steady step, per token, over 5x its run's TPOT p50: TTFT_TPOT_RUN_HEAVY_TAIL) skews each
       run's output throughput low through slow steps that a few runs may not have drawn, and
       the t-interval then misses low (86% covered with 5% of steps Pareto, alpha 1.1): output's
       low end goes to mean - 2 t sd / sqrt(n) (JSON widened: true; the text says "heavy tail:
       low end 2 half-widths below"), which covers 93% or more with runs of 128 steps or more in
       tests/compare_sim; with 64 steps a run, 91% (alpha 1.5) and 93% (1.1). --compare's
       mean_ci95 is its own plain t-interval, over the runs' common first steps. A CV above 5% is
       flagged (WARNING: the runs vary): the runs disagree more than a difference you might want to
       see. Runs come from stored samples; a collector with bounded prefill or decode phases has
       none (n/a). Traces carry the runs as # run: lines, so the report of a trace gives the same
       runs.
     Steady state, measured (MSER-5, White 1997). The warmup flags say what the driver believes;
       the report checks it. For each decode-role phase whose samples are all stored (not a
       bounded phase with samples in its histogram: null there, and for a phase with no sample),
       its samples in call order, warmup included, are cut into consecutive batches of 5 (a
       trailing partial batch dropped), with means Z_1..Z_m; for d = 0..floor(m/2), MSER(d) =
       sum over j>d of (Z_j - Zbar_d)^2 / (m - d)^2, Zbar_d the mean of Z_{d+1..m}; d* is the
       smallest minimiser and the truncation is 5*d* samples. JSON steady_state gives the
       flagged count, the truncation and the p50 of the samples after it. When the truncation
       passes the flagged samples, the text says so with both p50s, e.g. decode_step: MSER-5
       puts the end of warmup at step 25, 24 steps after the flagged one; TPOT p50 3.41 ms with
       them, 3.22 ms without (adding within the p50's 95% interval when the difference is within
       it: on a steady series MSER-5 often cuts a few batches of noise). Detection reports; the
       flags decide: no figure changes because of it. The serving layer's requests' TTFT series
       (submit order, warmup requests included) gets the same, as requests.steady_state, and so does
       any series given to ttft_tpot_series_stats. No steady state: White's
       rule (the best cut over every d that leaves 5 batches or more, or half of them in a series of
       fewer than 10 batches, cuts half of them or more) says a series keeps rising or falling (a
       queue building up under a burst, say), but it also fires on a
       steady series with one slow step late in it. So it is asked of the batch means with the
       isolated spikes (below) replaced by the steady p50, and where it still fires, its cut is
       checked: it splits the series' steady values (not flagged warmup) into those before it and
       those from it on, and the series has no steady state when the two sides' p50 intervals
       (above) are disjoint, or, where a side has too few values for one, when their ranges are
       (each value of one below each of the other; an empty side: never). Then the text says "no
       steady state" instead of naming a warmup, and JSON steady_state.no_steady_state is true; else
       the first-half cut is reported as above. Like the intervals, the check assumes independent
       values: of simulated flat series of 200 steps (tests/steady_sim.c) 0.1% are called unsteady
       with independent noise, 18% when each step keeps 0.9 of the last one's deviation; of series
       rising 5% over the run, 96%; of 40 steps, 0.1% and 17% flat, 65% rising 5%, 88% rising 10%. An isolated spike is a steady value above twice the series' steady p50
       whose neighbours in the series (flagged or not) are not: decode_step: 1 isolated spike: step
       170 at 9.00 ms (3.0x the steady p50), the first 3 in the text; JSON steady_state.spikes
       counts them all and spike lists the first 8, [{"step":170,"ms":9.0}] (step: its place in the
       series, from 0).
     Device time (spans marked ttft_tpot_span_set_device, their tickets resolved with the device's
       timestamps: Device time, below). A phase's device figures are n/p50/p90/p99/mean over the
       resolved intervals of its steady samples; its queue delay, over those resolved on an absolute
       device clock, is device begin - host issue (a begin mapped before the issue counts 0, and is
       counted). A step (a prefill-, decode- or e2e-role sample) has as device time its own interval,
       else the sum of the intervals of the kernel samples it dispatched (since the step before);
       parts of a launch count where the launch has no interval of its own. TTFT (steady, device)
       and TPOT (device) are the steady prefill and decode steps' device times; device busy =
       their device time / their wall time over the steady decode steps that have one. Below
       TTFT_TPOT_HOST_BOUND (50%) the report says decode is host-bound. TTFT and TPOT stay
       wall-clock: that is what a user waits for. Only a stored step has device time: one kept
       in a histogram (the sample store full, or a bounded phase) has no sample to hold it, nor
       its kernels' (its own intervals still count in its phase's row). Where the device figures
       cover fewer steps than the headline's, they say so: TPOT (device): 2.00 us (n=19 of 199
       steady steps, ...; the 180 kept in a histogram have no per-step device time), and JSON
       device.tpot_steps (199), tpot_steps_without_device (180), tpot_steps_in_histogram (180),
       and the same for ttft_steady_steps. A device time of 2^62 ns or more is refused (ERANGE);
       a sample's sum of them (parts, kernels) is held at 2^63 - 2 ns and counted (a WARNING,
       JSON device.held); the losses' counts hold at 2^64 - 1.
     Exact means exact at every magnitude: durations are integer ns, and min, max and
       percentiles are computed in integers, so the JSON gives them to the ns even past 2^53 ns
       (the p50 of 9007199254740993 and 9007199254740995 ns is 9007199254.740994 ms). A
       percentile interpolated between ranks is rounded to the nearest ns, half up. Means and
       totals are doubles, exact below 2^53 ns (104 days).
     n/a, never a false 0. A figure that cannot be computed says why: an e2e span ended without
       a token count (ttft_tpot_span_set_tokens gives one) has no rate, steady decode steps that
       took 0 ns in total have no throughput, and the first prefill after ttft_tpot_clear is not
       labelled as the cold one.

   ERRORS AND ODD INPUT
     Functions return TTFT_TPOT_OK (0) or a negative TTFT_TPOT_E* code (one list: TTFT_TPOT_ERRORS);
     ttft_tpot_strerror names it. Nothing aborts on run-time data. Past the storage a phase goes on
     in a histogram (counted in "outgrown"); a sample that can be kept nowhere is counted in
     "dropped"; a call that is rejected (unknown phase, invalid duration, a span ended twice) is
     counted in "rejected"; a span begun and not yet ended is counted in "spans_open" (a clear keeps
     it: the span is still running), and one cancelled in "spans_cancelled". All appear in every report, and travel in traces. Contract of each
     function at its declaration below.

   LOCALE
     No output or input depends on LC_NUMERIC: a host program that calls setlocale(LC_ALL, "") under a
     decimal-comma locale still gets '.' as the decimal point in the JSON, the Prometheus exposition,
     traces, the Chrome trace and the text report, and SLO text (--slo ttft=1.5) still parses. The
     text report follows the same rule on purpose: it is English, and it is pasted into issues and
     grepped.

   FAST MATH
     A file compiled with -ffast-math, -Ofast or -ffinite-math-only (llm.c's default build) gets the
     same figures as a strict build, to the last digit: the implementation turns those options off for
     its own code (float_control with clang and MSVC, optimize with gcc), so live reports equal the
     report of their trace read by a strictly built ttft_tpot_report. NaN and infinity are told by
     their bits, read through a volatile copy, not by comparisons those options let a compiler fold
     away, so ms_to_ns (and the serving layer's SLOs) refuse them under any compiler, also inlined into a
     caller built with those options. With another compiler's fast-math mode, doubles derived from the
     samples (means, rates, sd and CV) may differ in their last digits; integer figures do not. The
     inline record path computes no floating point.

   BOUNDED MODE
     Exact mode keeps every sample (16 bytes). A bounded phase (config.bounded, or
     ttft_tpot_phase_bounded) keeps its steady samples in a fixed-size log-linear histogram: percentiles
     within TTFT_TPOT_HIST_MAX_REL_ERR (0.78%), min, max, sum and tokens exact; the reports mark them.
     An exact phase takes one the same way when the storage is full (it "outgrows" it).

   HASHING
     Phase names, request ids and shape keys are indexed with SipHash-1-3 under a key each collector
     draws at init from the clock, its address, a stack address and the process id: ids crafted to
     collide cannot be made without the key. At most half full, linear probing: 1.5 probes a lookup on average; with
     the key known, the worst case is a scan of every entry.

   CLOCK COST
     Init measures one read of the platform clock (median of 255); every report names the clock and
     that cost, and warns above 200 ns (a clock read that is a system call distorts short spans).

   THREADS
     A collector is not thread-safe: give each dispatching thread its own collector and combine them
     for the report with ttft_tpot_merge (src must not be recorded into meanwhile). Different
     collectors never share state and may be used from different threads at once; the library has no
     globals, and ttft_tpot_clock_now(NULL) and ttft_tpot_strerror may be called from any thread.
*/
#ifndef TTFT_TPOT_H
#define TTFT_TPOT_H

/* Strict ISO modes (-std=c99) hide clock_gettime: ask for POSIX before the first libc header. */
#if defined(TTFT_TPOT_IMPLEMENTATION) && defined(__STRICT_ANSI__) && !defined(_WIN32) &&             \
    !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 199309L /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#endif

#define TTFT_TPOT_VERSION_MAJOR 0
#define TTFT_TPOT_VERSION_MINOR 4
#define TTFT_TPOT_VERSION_PATCH 0
#define TTFT_TPOT_VERSION "0.4.0"

#include <stddef.h>
#include <stdint.h>
#ifndef TTFT_TPOT_NO_STDIO
#include <stdio.h>
#endif
#ifndef _WIN32
#include <time.h>
#endif
#ifdef TTFT_TPOT_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

#ifndef TTFT_TPOT_DEF
#ifdef TTFT_TPOT_STATIC
#define TTFT_TPOT_DEF static
#else
#define TTFT_TPOT_DEF extern
#endif
#endif

#ifndef TTFT_TPOT_NAME_MAX
#define TTFT_TPOT_NAME_MAX 64
#endif
#ifndef TTFT_TPOT_MAX_RUNS
#define TTFT_TPOT_MAX_RUNS 256
#endif

/* A struct zeroed for its first use, warning-free both as C ({0}: gcc and clang take it as "all
   zero") and as C++ ({}: -Wmissing-field-initializers names every field {0} leaves out). */
#ifdef __cplusplus
#define TTFT_TPOT_ZERO {}
#else
#define TTFT_TPOT_ZERO {0}
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ttft_tpot ttft_tpot; /* the collector: Collector and config */

/* ================================ types ======================================================== */

/* ---- Errors ---------------------------------------------------------------------------------- */

/* The error codes and their names, one list: the enum and ttft_tpot_strerror both expand it, so a
   code cannot lack its name. X(NAME, VALUE, TEXT) gives TTFT_TPOT_NAME = VALUE. */
#define TTFT_TPOT_ERRORS(X)                                                                           \
    X(OK, 0, "ok")                                                                                    \
    X(EINVAL, -1, "invalid argument")                 /* NULL pointer or argument out of range */     \
    X(ENOMEM, -2, "out of memory")                    /* allocation failed, or buffer too small */    \
    X(EFULL, -3, "sample storage full")               /* sample or request storage full: dropped */   \
    X(EPHASE, -4, "unknown phase or phase table full")                                                \
    X(EROLE, -5, "phase exists with another role")                                                    \
    X(ENAME, -6, "invalid phase name")                /* empty, too long, not UTF-8, control chars */ \
    X(ERANGE, -7, "duration out of range")            /* negative, NaN, infinite, past 2^64 ns */     \
    X(ESTATE, -8, "span or warmup section misused")   /* ended twice, never begun */                  \
    X(EIO, -9, "I/O error")                           /* reading or writing the stream failed */      \
    X(EPARSE, -10, "malformed trace")                                                                 \
    X(EREQUEST, -11, "request event refused")         /* unknown id, second submit, time backwards */ \
    X(ETICKET, -12, "device ticket unknown or resolved") /* a resolution of no open ticket */           \
    X(EPATH, -13, "path refused: too long, or not a regular file") /* a file the library would replace */

#define TTFT_TPOT__ERR_ENUM(name, value, text) TTFT_TPOT_##name = (value),
enum { TTFT_TPOT_ERRORS(TTFT_TPOT__ERR_ENUM) };
#undef TTFT_TPOT__ERR_ENUM

/* ---- Clock ----------------------------------------------------------------------------------- */

/* A clock returns monotonic nanoseconds; user is config.clock_user. */
typedef uint64_t (*ttft_tpot_clock_fn)(void *user);

/* ---- Names, hashing and numbers -------------------------------------------------------------- */

/* Implementation only: the name rule that phase names and request ids follow (ttft_tpot_phase),
   the keyed SipHash-1-3 their indexes use (HASHING, above; ttft_tpot_name_hash gives a layer the
   same), and the exact integer arithmetic (128-bit products and quotients, ms to ns, plain decimals)
   the sections below share. */

/* ---- Statistics (exact and bounded) ---------------------------------------------------------- */

/* Bounded mode: a log-linear histogram, 64 sub-buckets per power of two over all of 0..2^64-1 ns;
   values under 128 ns are exact. A figure read from it is a bucket's midpoint (clamped to the exact
   min and max): within TTFT_TPOT_HIST_MAX_REL_ERR (1/128, 0.78%) of the exact value. Fixed size,
   mergeable, recording is a few instructions. */
#define TTFT_TPOT_HIST_BUCKETS 3776
#define TTFT_TPOT_HIST_MAX_REL_ERR (1.0 / 128.0)
typedef struct ttft_tpot_hist {
    uint64_t tokens, min_ns, max_ns; /* the count is the sum of counts[], taken when reading */
    uint64_t sum_lo, sum_hi; /* 128-bit sum of durations */
    uint64_t counts[TTFT_TPOT_HIST_BUCKETS];
} ttft_tpot_hist;

/* The histograms bounded phases take, one a phase. */
typedef struct ttft_tpot__hist_pool {
    ttft_tpot_hist *pool;
    unsigned n, max;
    int bounded; /* new phases are bounded */
} ttft_tpot__hist_pool;

/* The most percentiles config.percentiles may choose. */
#define TTFT_TPOT_MAX_PERCENTILES 8

/* Statistics of a set of samples; durations in ns. With n == 0 every figure is 0 and means "none". */
typedef struct ttft_tpot_stats {
    uint64_t n, warmup_n;
    uint64_t tokens; /* sum of tokens */
    uint64_t min_ns, max_ns;
    double total_ns, mean_ns; /* the total is summed without overflow, then rounded to double */
    double p50_ns, p90_ns, p95_ns, p99_ns;
    uint64_t pct_ns[4]; /* p50, p90, p95, p99 to the nearest ns in integer arithmetic: exact where the
                           doubles above lose bits (past 2^53 ns); from a histogram, its rounded figure */
    int approx; /* 1: percentiles and mean from a histogram, within TTFT_TPOT_HIST_MAX_REL_ERR */
    uint64_t warmup_max_ns; /* a phase's slowest warmup sample (0: none); other sets leave it 0 */
    uint64_t ci_ns[3][2]; /* 95% intervals of p50, p90, p99: [lo, hi] in ns (ttft_tpot_ci95_ranks) */
    int has_ci[3];        /* 0: too few values for that interval (p50 needs 6, p90 36, p99 368) */
    unsigned pick_n;      /* the percentiles config.percentiles chose (0: none chosen, p50/p90/p99 shown) */
    uint32_t pick_pm[TTFT_TPOT_MAX_PERCENTILES]; /* each in thousandths of a percent: 99900 is p99.9 */
    uint64_t pick_ns[TTFT_TPOT_MAX_PERCENTILES]; /* each to the nearest ns, as pct_ns */
} ttft_tpot_stats;

/* floor(log2(v)), v > 0. */
static inline unsigned ttft_tpot__log2(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned e = 0;
    while (v >>= 1)
        e++;
    return e;
#endif
}

/* Histogram bucket of v: v itself under 128; above, 64 buckets per power of two. */
static inline unsigned ttft_tpot__hist_index(uint64_t v)
{
    unsigned e;
    if (v < 128)
        return (unsigned)v;
    e = ttft_tpot__log2(v);
    return (e - 6u) * 64u + (unsigned)(v >> (e - 6u));
}

static inline void ttft_tpot__hist_add(ttft_tpot_hist *h, uint64_t v, uint32_t tokens)
{
    h->counts[ttft_tpot__hist_index(v)]++;
    h->tokens += tokens;
    if (v < h->min_ns) /* rarely true: no store on the common path */
        h->min_ns = v;
    if (v > h->max_ns)
        h->max_ns = v;
    h->sum_lo += v;
    h->sum_hi += h->sum_lo < v; /* carry */
}

/* ---- Phases and warmup ----------------------------------------------------------------------- */

/* The roles, one list: the enum and every writer and reader of their names expand it.
   X(NAME, VALUE, TEXT) gives TTFT_TPOT_ROLE_NAME = VALUE, named TEXT in every output. */
#define TTFT_TPOT_ROLES(X)                                                                            \
    X(PREFILL, 0, "prefill") /* a request's prefill: the source of TTFT */                            \
    X(DECODE, 1, "decode")   /* one decode step: the source of TPOT */                                \
    X(KERNEL, 2, "kernel")   /* any other timed dispatch: raw aggregates only */                      \
    X(E2E, 3, "e2e")         /* a whole generate call: the mixed e2e rate */
#define TTFT_TPOT__ROLE_ENUM(name, value, text) TTFT_TPOT_ROLE_##name = (value),
typedef enum ttft_tpot_role { TTFT_TPOT_ROLES(TTFT_TPOT__ROLE_ENUM) } ttft_tpot_role;
#undef TTFT_TPOT__ROLE_ENUM

typedef struct ttft_tpot__phase_slot {
    size_t fast_cap;         /* below it the inline path stores: capacity, or 0 (first call, bounded, timeline,
                                sequences) */
    ttft_tpot_hist *hist;    /* bounded: its steady samples go here; NULL: exact */
    uint32_t default_tokens; /* tokens of a span ended without a count: 1 prefill/decode, 0 others */
    uint16_t fresh;          /* 1 until the phase's first call, which is warmup */
    uint16_t outgrown;       /* took its histogram when the storage was full: exact again after a clear */
    size_t first_at;         /* where its first call's sample is stored, when that call was warmup for
                                being first alone (no warmup section, no new shape): a merge makes it
                                steady where the merged whole called the phase before. SIZE_MAX: none */
    int role;                /* ttft_tpot_role */
    uint16_t watched;        /* a prefill or decode phase whose spans an attached layer's sample hook sees:
                                they take the out-of-line path (fast_cap 0); in role's padding */
    uint64_t prompt[3];      /* its steady samples that carry prompt tokens: how many, the tokens, their ns */
    char name[TTFT_TPOT_NAME_MAX];
} ttft_tpot__phase_slot;

/* The phase table, in registration order, and an index by name (open addressing, keyed hash). */
typedef struct ttft_tpot__phase_table {
    ttft_tpot__phase_slot *slots;
    unsigned n, max;
    uint32_t *index; /* phase + 1, 0 empty; never more than half full */
    uint32_t mask;
} ttft_tpot__phase_table;

/* Warmup per shape: the (phase, key) pairs seen, by open addressing. */
typedef struct ttft_tpot__shape_table {
    uint64_t *keys;   /* the key, with its phase in phases[] */
    uint32_t *phases; /* phase + 1, 0 empty */
    uint32_t *rows;   /* the phase its samples go to (ttft_tpot_shape_row) + 1, 0: its own phase */
    uint32_t mask;
    unsigned n, max;
    uint64_t dropped; /* spans with a new shape after the table was full: not flagged */
} ttft_tpot__shape_table;

/* ---- Storage --------------------------------------------------------------------------------- */

/* One stored sample: 16 bytes. */
typedef struct ttft_tpot_sample {
    uint64_t dur_ns;
    uint32_t tokens;
    uint16_t phase;
    uint16_t warmup; /* 1 when flagged warmup */
} ttft_tpot_sample;

/* The sample store: every stored sample in call order, and what did not fit. */
typedef struct ttft_tpot__store {
    ttft_tpot_sample *samples;
    uint64_t *starts; /* NULL unless config.timeline */
    uint32_t *seqs;   /* NULL unless config.sequences: each sample's sequences (ttft_tpot_span_set_sequences),
                         0 unset: one token a sequence */
    size_t n, capacity;
    size_t reserve;   /* slots past the capacity that only warmup samples take (max_phases + max_shapes) */
    uint64_t dropped; /* samples not kept: storage full, and no histogram to go on in */
    uint64_t outgrown; /* phases that went on in a histogram when the storage was full */
    uint64_t seq_lost; /* steps of several tokens a sequence kept without their sequences (no
                          config.sequences): their TPOT is their step time */
    uint64_t seq_hist; /* such steady steps that went on in a histogram, which keeps step times only */
} ttft_tpot__store;

/* Write sample i of the store: the one place a sample is written (its start time, when kept, is the
   caller's: the inline path never has one). */
static inline void ttft_tpot__store_put(ttft_tpot__store *st, size_t i, int phase, uint64_t dur, uint32_t tokens,
                                        int warm)
{
    ttft_tpot_sample *s = &st->samples[i];
    s->dur_ns = dur;
    s->tokens = tokens;
    s->phase = (uint16_t)phase;
    s->warmup = (uint16_t)warm;
}

/* ---- Device time ----------------------------------------------------------------------------- */

/* On a GPU or an NPU a launch returns before the kernel runs: a span around it times the enqueue, and
   the kernel's time lands in whichever later call synchronizes. The device's own timestamps say what
   it did. A span marked with ttft_tpot_span_set_device records its host time as usual (issue to
   return) and opens a ticket (its ttft_tpot_span.ticket after the end): an open device interval that
   the driver resolves when the device's timestamps are ready (after the step's synchronize), off the
   record path, in one of two forms:
     elapsed   the device time between two events: cudaEventElapsedTime (about 0.5 us resolution; in
               ms: ttft_tpot_ms_to_ns), hipEventElapsedTime, aclrtEventElapsedTime, torch's
               Event.elapsed_time;
     absolute  the device's begin and end on its own clock, in ns (aclrtEventGetTimestamp, CUPTI and
               MSPTI activity records), mapped onto the host clock through a clock pair: both clocks
               read together after a full synchronize, host = pair.host_ns + (device - pair.device_ns).
               A device whose clock the host can read (PoCL stamps with CLOCK_MONOTONIC_RAW; CUPTI's
               cuptiGetTimestamp) gets its pair as examples/opencl does: the collector's clock,
               the device's, the collector's again, the device reading paired with the midpoint of
               the two host reads (once a step: the two clocks drift apart, about 1e-5 a second).
               Only this form gives the queue delay (device begin - host issue), and where the
               runtime also stamps when it queued the command (OpenCL's CL_PROFILING_COMMAND_QUEUED,
               CUPTI's queued field), splits it: launch overhead (from the host issue to the runtime's
               queued stamp) and queue wait (from that stamp to the device begin).
   Nothing is lost quietly. A device span that gets no ticket (config.max_device intervals kept, or
   config.max_pending tickets open at once) keeps its host time and is counted as device_unresolved;
   a ticket still open at report time is counted as open; a resolution of an unknown or resolved
   ticket, or with end before begin, is refused (ETICKET, ERANGE), changes nothing and is counted as
   refused. A ticket is unknown to every other collector (each draws its tickets' epoch at init, from
   the entropy of its hashing key: two collectors share one with odds of 2^-31), to a collector it
   was merged into (the merged intervals are numbered there anew), and after ttft_tpot_clear. Ticket
   0 (a span that has none) resolves to nothing, OK, so a driver with profiling off needs no test. */

/* A device interval: stored in ticket order, its host sample linked. */
enum { TTFT_TPOT_DEVICE_OPEN = 1, TTFT_TPOT_DEVICE_ELAPSED = 2, TTFT_TPOT_DEVICE_ABSOLUTE = 3 };
typedef struct ttft_tpot_device_interval {
    uint64_t sample;    /* its host sample's index + 1 (ttft_tpot_model.samples); 0: none kept (a histogram) */
    uint64_t issue_ns;  /* host clock: when the host issued it (the span's begin); 0: unknown */
    uint64_t begin_ns;  /* host clock: when the device began it (absolute form); 0 otherwise */
    uint64_t queued_ns; /* host clock: when the runtime queued it (a queued stamp); 0 otherwise */
    uint64_t device_ns; /* its time on the device, once resolved */
    uint32_t phase, stream;
    uint8_t state;      /* TTFT_TPOT_DEVICE_* */
    uint8_t part;       /* a part of another interval (a kernel of a graph launch, ttft_tpot_device_part) */
    uint8_t warmup;     /* its host sample was flagged warmup */
    uint8_t reserved[5];
} ttft_tpot_device_interval;

/* The device intervals of a collector and what they lost. */
typedef struct ttft_tpot__device_log {
    ttft_tpot_device_interval *log;
    size_t n, max;         /* intervals kept, and room (config.max_device) */
    size_t open, max_open; /* tickets open, and at most (config.max_pending) */
    uint32_t epoch;        /* the tickets' epoch, below 2^31: drawn at init (another collector's tickets
                              are unknown here), and a clear begins another (so are older ones) */
    uint64_t unresolved;   /* device spans that got no ticket */
    uint64_t refused;      /* resolutions refused */
} ttft_tpot__device_log;

/* The host clock and the device clock read together, after a full synchronize (ns both). */
typedef struct ttft_tpot_clock_pair {
    uint64_t host_ns, device_ns;
} ttft_tpot_clock_pair;

/* One resolution: a ticket and its device time, elapsed, or absolute (begin and end on the device
   clock, ns), the absolute form optionally with the runtime's queued stamp (queued_ns, device clock,
   at or before begin; 0: none). Make one with the macros below (or zero it first): a stamp with a
   field left unset (a stack array) carries garbage, and an absolute flag of garbage is refused. */
typedef struct ttft_tpot_device_stamp {
    uint64_t ticket;
    int absolute;
    uint64_t elapsed_ns;
    uint64_t begin_ns, end_ns;
    uint64_t queued_ns;
} ttft_tpot_device_stamp;

/* A whole stamp of each form, every field set, as an expression (C and C++); the times are uint64_t. */
#ifdef __cplusplus
#define TTFT_TPOT__STAMP(t, a, e, b, d, q) ttft_tpot_device_stamp{t, a, e, b, d, q}
#else
#define TTFT_TPOT__STAMP(t, a, e, b, d, q) ((ttft_tpot_device_stamp){t, a, e, b, d, q})
#endif
#define TTFT_TPOT_STAMP_ELAPSED(ticket, elapsed_ns) TTFT_TPOT__STAMP((ticket), 0, (elapsed_ns), 0, 0, 0)
#define TTFT_TPOT_STAMP_ABSOLUTE(ticket, begin_ns, end_ns) TTFT_TPOT__STAMP((ticket), 1, 0, (begin_ns), (end_ns), 0)
#define TTFT_TPOT_STAMP_QUEUED(ticket, queued_ns, begin_ns, end_ns)                                   \
    TTFT_TPOT__STAMP((ticket), 1, 0, (begin_ns), (end_ns), (queued_ns))

/* ---- Collector and config -------------------------------------------------------------------- */

/* Zero it (TTFT_TPOT_ZERO), then set what differs from the defaults. */
typedef struct ttft_tpot_config {
    size_t capacity;          /* samples kept exactly (0: 65536); at most UINT32_MAX. Past it a phase goes
                                 on in a histogram; warmup samples take max_phases + max_shapes more */
    unsigned max_phases;      /* phases (0: 64); at most 65535 (a growing collector's reads: 65535) */
    int timeline;             /* nonzero: also keep each sample's start time (8 more bytes a sample) */
    int sequences;            /* nonzero: also keep each sample's sequences (4 more bytes a sample), for
                                 decode steps of several tokens a sequence (ttft_tpot_span_set_sequences);
                                 every span then takes the out-of-line path (a few ns more). A growing
                                 collector reading a trace takes them on at its first "# sequences:"
                                 line, as it takes start times at the first start */
    void *buffer;             /* optional caller storage of buffer_bytes (see ttft_tpot_bytes_needed) */
    size_t buffer_bytes;
    ttft_tpot_clock_fn clock; /* optional replacement clock */
    void *clock_user;
    const char *clock_name;   /* how the report names a replacement clock ("user clock") */
    void *alloc_user;         /* passed to TTFT_TPOT_MALLOC / TTFT_TPOT_FREE */
    int bounded;              /* nonzero: every phase keeps its steady samples in a histogram */
    unsigned hist_slots;      /* phases that may be bounded or outgrow the storage (0: max_phases when
                                 bounded, else max_phases up to 64) */
    unsigned max_shapes;      /* (phase, shape key) pairs remembered for warmup per shape (0: 64) */
    int grow;                 /* nonzero: a trace read (ttft_tpot_restore) enlarges the samples,
                                 phases (to 65535) and histograms it needs (allocating), and so does an
                                 attached layer's tables; recording never does */
    size_t max_device;        /* device intervals kept (Device time; 0: 65536; 56 bytes each, touched only
                                 as intervals arrive) */
    size_t max_pending;       /* device tickets open at once (0: 1024, or max_device when smaller) */
    double percentiles[TTFT_TPOT_MAX_PERCENTILES]; /* the percentiles the figures show beside p50, p90,
                                 p95 and p99, ascending in (0, 100) to 0.001, a 0 after the last (all 0:
                                 none); the JSON adds each beyond those ("p99.9"), the serving lines show
                                 them instead of p50/p90/p99 */
    int refusals_reported;    /* nonzero: the caller reports each refused call itself (a binding raises
                                 it), so refusals are not counted (rejected, device refusals); losses
                                 (dropped, unresolved) still are */
} ttft_tpot_config;

typedef struct ttft_tpot_layer ttft_tpot_layer; /* Layers, below */

/* The collector. Fields are visible so the record path can be inlined; read them through functions,
   but for layer, which a layer's header reads to find its own (never set it: ttft_tpot_attach). */
struct ttft_tpot {
    ttft_tpot_layer *layer;          /* public: the layer attached, or NULL */
    ttft_tpot__store store;          /* the samples (Recording) */
    ttft_tpot__phase_table phase;    /* Phases and warmup */
    ttft_tpot__hist_pool hist;       /* bounded phases' histograms (Statistics) */
    ttft_tpot__shape_table shape;    /* warmup per shape (Phases and warmup) */
    ttft_tpot__device_log dev;       /* Device time */
    uint64_t rejected; /* calls refused: unknown phase, invalid duration, span misuse */
    uint64_t refusal;  /* what a refusal adds to its count: 1, or 0 with config.refusals_reported */
    uint64_t spans_open; /* spans begun and not ended: what they timed is in no figure */
    uint64_t spans_cancelled; /* spans ended by ttft_tpot_span_cancel: in no figure either */
    void *nvtx_domain;   /* the NVTX domain "ttft_tpot" (TTFT_TPOT_NVTX), else NULL */
    unsigned warmup_depth;
    uint16_t warm_all; /* warmup_depth != 0 */
    int enabled;
    ttft_tpot_clock_fn clock;
    void *clock_user;
    void *alloc_user;
    void *owned; /* the one allocation made by init, NULL with a caller buffer */
    int grow;      /* config.grow */
    unsigned grown; /* parts moved to allocations of their own by growing (TTFT_TPOT__PART_*) */
    uint64_t clock_read_ns;  /* median cost of one clock read, measured at init; 0: not measured */
    char clock_name[32];
    int clock_from_trace;    /* clock_* describe the clock of the first trace read */
    uint64_t started_ns;     /* the realtime clock (ns since 1970) at init: when the process began to
                                record; read from a trace, its "# started:" line; 0 unknown */
    int traces_read;         /* traces read into it: the first one's start replaces init's */
    uint32_t pick_pm[TTFT_TPOT_MAX_PERCENTILES]; /* config.percentiles in thousandths of a percent */
    unsigned pick_n;
    uint64_t key[2]; /* SipHash key of the name and id indexes, drawn at init (HASHING, above) */
    size_t run_at[TTFT_TPOT_MAX_RUNS]; /* the first stored sample of each run (ttft_tpot_run_begin) */
    size_t run_end[TTFT_TPOT_MAX_RUNS]; /* the stored sample after each run; SIZE_MAX: the last run is
                                           open (its samples go on to the end) */
    unsigned runs;
    uint64_t runs_dropped; /* run_begin calls past TTFT_TPOT_MAX_RUNS: their samples join the last run */
    uint64_t full_at[2]; /* the limits losses read from a trace met (capacity, max_shapes of the
                            recording collector) */
    unsigned full_known; /* bit k: full_at[k] was read (else the limit is c's own) */
    void *reading;          /* a trace being read into it (ttft_tpot_restore), or NULL */
};

/* ---- Recording ------------------------------------------------------------------------------- */

/* A span in flight. Zero-initialised means "never begun". The setters fill the fields after state. */
typedef struct ttft_tpot_span {
    ttft_tpot *c;
    uint64_t start; /* c's clock at its begin (begin_at's start); a binding that reads the clock itself
                       after making a running span (state 1) may set it, before the end */
    int phase;
    int state; /* 0 never begun, 1 running, 2 disabled (records nothing), 3 ended */
    uint64_t tokens, shape, dur; /* tokens TTFT_TPOT__DEFAULT_TOKENS, shape TTFT_TPOT_NO_SHAPE: unset */
    uint32_t prompt;
    unsigned char has_prompt, has_dur;
    unsigned char device; /* ttft_tpot_span_set_device: the end opens a ticket */
    unsigned char nvtx;   /* an NVTX range was pushed at its begin (TTFT_TPOT_NVTX) */
    uint32_t stream;
    uint32_t sequences;   /* ttft_tpot_span_set_sequences; 0 unset: one token a sequence */
    uint64_t ticket;      /* after the end: its device ticket, 0 none (not set_device, inert, not kept,
                             or no room: counted as device_unresolved) */
} ttft_tpot_span;

#define TTFT_TPOT__DEFAULT_TOKENS ((uint64_t)1 << 32) /* a span's tokens unset: the phase's default count */

/* The shape key of a sample without a shape: the one key a shape cannot have. */
#define TTFT_TPOT_NO_SHAPE UINT64_MAX

/* Everything the inline path leaves, out of line: an unknown phase, a phase's first call, full
   storage, start times, a warmup sample of a bounded phase, a prompt, sequences, a device ticket.
   The span's phase (its shape's row) and duration are given; returns its device ticket (0: none), or a
   negative error. */
TTFT_TPOT_DEF int64_t ttft_tpot__push_span(const ttft_tpot_span *s, int phase, uint64_t dur, int new_shape);

/* Whether (phase, key) is new, remembering it: out of line, since it looks up a table. */
TTFT_TPOT_DEF int ttft_tpot__shape_first(ttft_tpot *c, int *phase, uint64_t key);

/* The platform clock; the collector's, inline where <time.h> declares CLOCK_MONOTONIC (a strict
   -std=c99 file without _POSIX_C_SOURCE calls ttft_tpot__now instead). */
TTFT_TPOT_DEF uint64_t ttft_tpot__now(void);

static inline uint64_t ttft_tpot__clock(const ttft_tpot *c)
{
    if (c->clock)
        return c->clock(c->clock_user);
#if defined(CLOCK_MONOTONIC) && !defined(_WIN32)
    {
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
            return 0;
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
#else
    return ttft_tpot__now();
#endif
}

/* Record one sample on the common paths, inline: a called exact phase with room (one comparison
   decides: fast_cap is 0 until the first call), and a steady sample of a bounded phase. 1 when it was
   kept here; 0: ttft_tpot__push_span takes it. */
static inline int ttft_tpot__push_fast(ttft_tpot *c, int phase, uint64_t dur, uint64_t count, int new_shape)
{
    if ((unsigned)phase < c->phase.n) {
        ttft_tpot__phase_slot *p = &c->phase.slots[phase];
        uint16_t warm = (uint16_t)(c->warm_all | new_shape); /* not fresh: fresh phases go slow */
        uint32_t tokens = count == TTFT_TPOT__DEFAULT_TOKENS ? p->default_tokens : (uint32_t)count;
        if (c->store.n < p->fast_cap) {
            ttft_tpot__store_put(&c->store, c->store.n++, phase, dur, tokens, warm);
            return 1;
        }
        if (p->hist && !warm && !(p->fresh | p->watched)) {
            ttft_tpot__hist_add(p->hist, dur, tokens);
            return 1;
        }
    }
    return 0;
}

#ifdef TTFT_TPOT_NVTX
/* A timed span's NVTX range: pushed at its begin, popped at its end or cancel (on the same thread). */
TTFT_TPOT_DEF void ttft_tpot__nvtx_push(const ttft_tpot *c, int phase);
TTFT_TPOT_DEF void ttft_tpot__nvtx_pop(const ttft_tpot *c);
#endif

/* A span of phase, running when timed (its start read from the clock), untimed for a duration
   measured elsewhere (start 0: unknown). With c NULL or disabled it is inert: end records nothing. */
static inline ttft_tpot_span ttft_tpot__span_open(ttft_tpot *c, int phase, int timed)
{
    ttft_tpot_span s;
    s.c = c;
    s.phase = phase;
    s.state = 2;
    s.start = 0;
    if (c && c->enabled) {
        s.state = 1;
        c->spans_open++; /* until its end: a span never ended is counted, not silently lost */
        if (timed)
            s.start = ttft_tpot__clock(c);
    }
    s.tokens = TTFT_TPOT__DEFAULT_TOKENS;
    s.shape = TTFT_TPOT_NO_SHAPE;
    s.dur = 0;
    s.prompt = 0;
    s.has_prompt = s.has_dur = s.device = s.nvtx = 0;
#ifdef TTFT_TPOT_NVTX
    if (s.state == 1 && timed) {
        ttft_tpot__nvtx_push(c, phase);
        s.nvtx = 1;
    }
#endif
    s.stream = s.sequences = 0;
    s.ticket = 0;
    return s;
}

/* What the end and the cancel check first: 1 when s was running (it is ended now, and no longer
   counted open), else 0 with *rc: OK for an inert span, EINVAL (s NULL), ESTATE (never begun, or
   ended: counted as rejected when the collector is known). */
static inline int ttft_tpot__span_close(ttft_tpot_span *s, int *rc)
{
    *rc = TTFT_TPOT_EINVAL;
    if (!s)
        return 0;
    if (s->state != 1) {
        *rc = s->state == 2 ? TTFT_TPOT_OK : TTFT_TPOT_ESTATE;
        if (s->state == 3 && s->c)
            s->c->rejected += s->c->refusal;
        return 0;
    }
    s->state = 3;
    s->c->spans_open--; /* below 0 (a copy of a span ended too): read as none (ttft_tpot__spans_open) */
#ifdef TTFT_TPOT_NVTX
    if (s->nvtx)
        ttft_tpot__nvtx_pop(s->c);
#endif
    return 1;
}

/* ---- Report model ---------------------------------------------------------------------------- */

/* Every figure a report shows is computed once, into a ttft_tpot_model (ttft_tpot_model_compute);
   the writers below and the tools read it and compute nothing. The sets a figure is taken over are
   defined at the top of this file (METRICS). A model is also how a tool reads a collector: its
   samples, runs, phases and device intervals, in place. */

/* The headline metrics (definitions at the top of this file). */
typedef struct ttft_tpot_summary {
    int has_ttft_first;
    uint64_t ttft_first_ns;
    int ttft_first_warmup; /* the first prefill-role sample is flagged warmup (not after a clear) */
    int ttft_first_slower; /* 1: it was slower than the steady p50 (without one, than the linked prefill
                              kernel's fastest run), so its warmup shows; 0: no slower; -1: nothing to
                              compare */
    ttft_tpot_stats ttft_steady; /* prefill-role, not warmup */
    ttft_tpot_stats tpot;        /* decode-role, not warmup */
    uint64_t tpot_excluded;      /* decode-role samples flagged warmup */
    int has_output_tok_s;
    double output_tok_s;
    ttft_tpot_stats e2e; /* e2e-role samples, all of them */
    int has_e2e_tok_s;
    double e2e_tok_s;
    int has_prefill_kernel;
    uint64_t prefill_kernel_min_ns; /* the linked prefill kernel's fastest sample */
    uint64_t prefill_counted, prefill_tokens; /* steady prefill-role samples that carry prompt tokens,
                                                 and those tokens */
    int has_prefill_tok_s;
    double prefill_tok_s; /* prompt tokens / the sum of those samples' durations */
    uint64_t samples, dropped, rejected;
    uint64_t tpot_multi;  /* steady decode steps stored that emitted more than one token a sequence
                             (ttft_tpot_span_set_sequences): TPOT takes theirs per output token */
    int has_acceptance;   /* tpot_multi > 0: the acceptance length, tokens a sequence a step, of the
                             steady decode steps stored: */
    double acceptance_mean; /* all their tokens / all their sequences (vLLM's mean acceptance length) */
    double acceptance_p50, acceptance_p90; /* over the steps, each step's tokens / sequences */
} ttft_tpot_summary;

#define TTFT_TPOT_SPIKES_LISTED 8 /* isolated spikes a steady state lists (it counts all of them) */

/* A series' warmup, measured: MSER-5 over its values in call order, warmup included (a decode-role
   phase's samples, or a layer's: the requests' TTFT in submit order), and its p50 after the cut; whether it has
   a steady state; its isolated spikes. */
typedef struct ttft_tpot_steady_state {
    int measured;          /* every value of the series is stored (not a bounded phase), and one at least */
    uint64_t flagged;      /* values flagged warmup */
    uint64_t truncation;   /* values MSER-5 cuts, from the first */
    int drift;             /* no steady state: White's rule fires and its cut moves the p50 (METRICS) */
    int has_p50;           /* a value is left after the cut */
    double p50_ns;         /* their p50, and the same to the ns */
    uint64_t p50_exact_ns;
    uint64_t white_cut;    /* where White's rule cuts (values, from the first) when it fires on the
                              series without its isolated spikes (METRICS), else 0 */
    uint64_t steady_p50_ns; /* the p50 of its steady values (not flagged warmup), 0 with none */
    uint64_t spikes;       /* isolated spikes (METRICS): values above twice that p50, all of them */
    uint64_t spike_step[TTFT_TPOT_SPIKES_LISTED]; /* the first ones: their index in the series */
    uint64_t spike_ns[TTFT_TPOT_SPIKES_LISTED];   /* and their value */
} ttft_tpot_steady_state;

/* Runs (ttft_tpot_run_begin): three figures a run, each over the run's steady stored samples, and
   their spread across the runs that have it. */
enum { TTFT_TPOT_RUN_TTFT, TTFT_TPOT_RUN_TPOT, TTFT_TPOT_RUN_TOK_S, TTFT_TPOT_RUN_FIGURES };
#define TTFT_TPOT_RUN_CV_FLAG 0.05 /* runs whose coefficient of variation passes 5% are flagged */
#define TTFT_TPOT_RUN_HEAVY_TAIL 5 /* a step over this many times its run's TPOT p50: a heavy tail */
typedef struct ttft_tpot_run_figure {
    double v[TTFT_TPOT_MAX_RUNS];          /* run r's: steady TTFT p50 or TPOT p50 in ns, or output tok/s */
    unsigned char has[TTFT_TPOT_MAX_RUNS]; /* run r has the figure */
    unsigned n;                            /* runs that have it */
    double mean, sd, cv;                   /* sd with n - 1: 0 unless n > 1; cv = sd / mean: 0 unless
                                              has_cv */
    int has_cv;                            /* n > 1 and mean > 0 */
    int varies;                            /* has_cv and cv over TTFT_TPOT_RUN_CV_FLAG */
    int has_ci;                            /* n > 1 */
    double ci95[2];                        /* the mean's 95% t-interval: mean -+ t975(n - 1) sd / sqrt(n),
                                              its low end clamped at 0 (and widened: below) */
    int widened; /* output tok/s with a heavy tail (a run's steady step over TTFT_TPOT_RUN_HEAVY_TAIL
                    times its TPOT p50): the low end is mean - 2 t975(n - 1) sd / sqrt(n) */
} ttft_tpot_run_figure;
typedef struct ttft_tpot_runs {
    unsigned n;       /* runs marked */
    uint64_t dropped; /* run_begin calls past TTFT_TPOT_MAX_RUNS */
    int bounded;      /* a prefill or decode phase keeps steady samples in a histogram: no run has a figure */
    ttft_tpot_run_figure fig[TTFT_TPOT_RUN_FIGURES];
    size_t first[TTFT_TPOT_MAX_RUNS], end[TTFT_TPOT_MAX_RUNS]; /* run r's stored samples: [first[r], end[r]) */
} ttft_tpot_runs;

/* One phase's figures. */
typedef struct ttft_tpot_phase_figures {
    const char *name; /* the collector's: valid while it lives */
    int role;
    ttft_tpot_stats all;    /* every sample, warmup included (warmup_n, warmup_max_ns) */
    ttft_tpot_stats steady; /* warmup excluded */
    ttft_tpot_steady_state steady_state; /* decode-role phases */
    double decode_share; /* kernel role: its time inside steady decode steps over their time; a kernel
                            span ends before the step that dispatched it, so the kernels since the last
                            prefill, decode or e2e sample belong to the next one (stored samples);
                            inclusive: a span that holds other kernel spans counts their time too */
    double decode_share_self; /* the same of its exclusive (self) time: less the kernel spans it holds
                                 (found by start times: a timeline; without one, the inclusive share) */
    int nests;                /* its spans hold other kernel spans (a timeline shows it) */
    ttft_tpot_stats device; /* its resolved device intervals of steady samples (n 0: none) */
    ttft_tpot_stats queue;  /* their queue delays, device begin - host issue (absolute form) */
    ttft_tpot_stats launch; /* of those with a queued stamp, runtime queued - host issue ... */
    ttft_tpot_stats wait;   /* ... and device begin - runtime queued (launch + wait = queue delay) */
    ttft_tpot_stats pairs, records; /* where its intervals are of both forms (n 0 otherwise): the device
                                       time of its event pairs (elapsed form), which hold the launch
                                       gap, and of its begin and end stamps (absolute form) */
} ttft_tpot_phase_figures;

/* Device time: the headline figures. A step (a prefill-, decode- or e2e-role sample) takes as its
   device time its own interval when it has one, else the sum of the intervals of the kernel samples
   it dispatched (those since the step before, as decode_share counts them; parts not counted twice).
   TTFT and TPOT stay wall-clock: these are their device counterparts. */
#define TTFT_TPOT_HOST_BOUND 0.5 /* decode steps whose device busy fraction is below it are host-bound */
typedef struct ttft_tpot_device_figures {
    uint64_t intervals, parts;  /* resolved; of those, parts of launches */
    uint64_t elapsed;           /* of those, event pairs (elapsed form): each holds the launch gap before
                                   its kernel, so a small kernel and the busy share read high */
    uint64_t open, unresolved, refused; /* tickets open at report time; device spans without a ticket;
                                           resolutions refused (also with TTFT_TPOT_SKIP_DEVICE) */
    uint64_t queued;            /* of those, with the runtime's queued stamp */
    uint64_t queue_clamped;     /* device begins mapped before their host issue: queue delay 0 */
    uint64_t queued_clamped;    /* queued stamps mapped before their host issue: launch overhead 0 */
    uint64_t clamped_max_ns;    /* by how much at most, the begins: the clock pair is off by that */
    uint64_t queued_clamped_max_ns; /* the same of the queued stamps */
    ttft_tpot_stats ttft_steady; /* steady prefill-role steps with device time: "TTFT (steady, kernel)" */
    ttft_tpot_stats tpot;        /* steady decode-role steps with device time */
    uint64_t busy_steps;         /* those decode steps */
    int has_busy;                /* busy_steps > 0 and their wall time > 0 */
    double busy_fraction;        /* their device time / their wall time */
    uint64_t *step_ns;           /* by stored sample: a step's device time, a kernel sample's own
                                    (parts included); UINT64_MAX: none. NULL without device data */
    uint64_t ttft_steps, ttft_hist; /* the steady prefill steps (stored and in histograms), and of those
                                       in histograms: with no sample, they have no device time here */
    uint64_t tpot_steps, tpot_hist; /* the same for the steady decode steps */
    uint64_t held;               /* stored samples whose device time sums to 2^63 - 2 ns or more: held there */
} ttft_tpot_device_figures;

/* What a layer adds to the collector's counts: to rejected, and the keys of a trace's "# counts:" line
   that are a layer's (the serving layer's requests and events, and the limits they met). */
typedef struct ttft_tpot_layer_counts {
    uint64_t rejected;
    uint64_t requests_dropped, requests_refused, events_lost;
    uint64_t max_requests, max_request_events;
} ttft_tpot_layer_counts;

/* Everything a collector lost or refused, with the limits it met: the limit that made a loss is the
   recording collector's when the losses came from a trace, so a trace's report names the same sizes as
   the live one. */
typedef struct ttft_tpot_losses {
    uint64_t dropped, rejected, outgrown, shapes_dropped, runs_dropped, spans_open; /* rejected: an attached
                                                         layer's refusals too */
    uint64_t sequences_lost, sequences_in_histogram; /* steps of several tokens a sequence whose TPOT is
                                                         their step time: no config.sequences; a histogram */
    uint64_t spans_cancelled;      /* spans ended by ttft_tpot_span_cancel */
    uint64_t capacity, max_shapes; /* the limits met */
    ttft_tpot_layer_counts layer;  /* an attached layer's (its counts hook's) */
} ttft_tpot_losses;

/* What an attached layer's figures add to the text report (ttft_tpot_model.layer_report, bits). */
enum { TTFT_TPOT_LAYER_SEEN = 1, /* it has something to report: not "Nothing to report" */
       TTFT_TPOT_LAYER_LEADS = 2 }; /* its section leads the text, the driver's own steps after it */

/* The report model. */
typedef struct ttft_tpot_model {
    const ttft_tpot *collector; /* computed from */
    const ttft_tpot_sample *samples; /* its stored samples in call order, n_samples of them, read in
                                        place: how writers and tools that draw samples read them */
    size_t n_samples;
    const uint64_t *starts;     /* their start times; NULL without config.timeline */
    const uint32_t *sequences;  /* their sequences (0: one token a sequence); NULL without config.sequences */
    const char *clock_name;     /* "unknown" when none */
    uint64_t clock_read_ns;     /* 0: not measured */
    uint64_t started_ns;        /* when its process began to record, realtime ns since 1970; 0 unknown */
    ttft_tpot_summary head;     /* the headline */
    unsigned phases;
    ttft_tpot_phase_figures *phase; /* [phases], by phase index */
    unsigned *order;                /* the phase indexes in report order: by first stored sample, then
                                       those without one */
    ttft_tpot_runs runs;
    ttft_tpot_losses losses;
    ttft_tpot_device_figures device;
    const ttft_tpot_device_interval *intervals; /* the device intervals in ticket order, read in place */
    size_t n_intervals;
    void *layer;           /* the attached layer's figures (its compute hook's), NULL without one */
    unsigned layer_report; /* TTFT_TPOT_LAYER_* */
    int prefill_kernel;    /* the phase whose fastest sample bounds steady TTFT below (options), or -1 */
    unsigned skipped; /* the parts left out (ttft_tpot_model_options.skip) */
    void *alloc_user; /* the collector's config.alloc_user: what its memory is allocated with */
} ttft_tpot_model;

/* What ttft_tpot_model_compute leaves out (its fields stay 0): TTFT_TPOT_SKIP_* ORed. */
enum { TTFT_TPOT_SKIP_LAYER = 1,    /* the attached layer's figures */
       TTFT_TPOT_SKIP_SHARES = 2,   /* each kernel's decode_share */
       TTFT_TPOT_SKIP_SAMPLES = 4,  /* head, the phases' figures (not their names) and runs' figures */
       TTFT_TPOT_SKIP_DEVICE = 8,   /* the device figures (not the intervals) */
       TTFT_TPOT_SKIP_ALL = 15,     /* a model to read the collector through, computing nothing */
       TTFT_TPOT_SKIP_PHASES = 16,  /* and without phase and order (NULL): it allocates nothing */
       TTFT_TPOT_SKIP_EXPOSITION = 32 }; /* the layer's figures only an exposition prints (the serving
                                            layer's histograms): a report that prints none */
typedef struct ttft_tpot_model_options {
    unsigned skip;
    int prefill_kernel; /* a kernel phase + 1 (0: none): the text shows its fastest sample as a lower
                           bound of steady TTFT (a trace does not carry it) */
} ttft_tpot_model_options;

/* The sets of stored samples a series can name (ttft_tpot_series.set): the steady stored samples of a
   role (TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_*: prefill's are steady TTFT, decode's TPOT, each step per
   output token), or of a phase (TTFT_TPOT_SET_PHASE + its index). A bounded phase's histogram holds no
   sample: the figures of its set count more than its stored samples. Below TTFT_TPOT_SET_ROLE: a
   layer's sets (the serving layer's request metrics). */
enum { TTFT_TPOT_SET_ROLE = 64, TTFT_TPOT_SET_PHASE = 128 };

/* What ttft_tpot_series_stats takes its figures over: a set of the collector's stored samples, or any
   values (set -1), a series in its order. */
typedef struct ttft_tpot_series {
    int set;                    /* TTFT_TPOT_SET_*, or -1: values */
    int warmup;                 /* with a set: its warmup samples too (a phase's row: every sample) */
    const uint64_t *values;     /* with set -1: the values, in the series' order (not changed) */
    uint64_t *scratch;          /* or, for statistics alone (no steady state), the values in memory of the
                                   caller's that they may reorder: no copy is made */
    size_t n;                   /* their number; with a set, ttft_tpot_series_stats sets it: the samples */
    const unsigned char *flags; /* with values: each one's warmup flag, for the steady state (NULL: none) */
    uint64_t scale;             /* the values are in 1/scale ns (0 or 1: ns): the figures come back in ns */
    uint64_t *out;              /* not NULL: the set's values are written here too, in call order ... */
    size_t cap;                 /* ... at most cap of them (a decode set's: each step per output token) */
} ttft_tpot_series;

/* ---- Writers (the writer, text, JSON) -------------------------------------------------------- */

/* Output gathered in a block and written with one fwrite a block (a system call for each line costs
   as much as formatting it). Zero it (TTFT_TPOT_ZERO), then set f (a FILE *), b and cap: b is cap
   bytes of the caller's (a stack array, say). With f NULL the writer fills b alone, cut short when it
   is full and always ended with a NUL: a string. err: a write failed (ttft_tpot_write(w, NULL) says
   so). A layer's hooks write into the collector's writer, so its sections fall where they belong. */
typedef struct ttft_tpot_writer {
    void *f;
    char *b;
    size_t n, cap;
    int err;
} ttft_tpot_writer;

#ifndef TTFT_TPOT_NO_STDIO

/* What ttft_tpot_model_write writes. */
enum { TTFT_TPOT_FORMAT_TEXT = 0, /* the text report */
       TTFT_TPOT_FORMAT_JSON = 1, /* the JSON report (schema ttft_tpot/v1) */
       TTFT_TPOT_FORMAT_JSON_OPEN = 2 }; /* ... without its closing "}\n", for a tool that adds keys */

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Layers ---------------------------------------------------------------------------------- */

/* Where a layer's hooks are called in the text report and in a trace. */
enum { TTFT_TPOT_SECTION_LEAD = 0, /* text: before the driver's own steps (its figures lead) */
       TTFT_TPOT_SECTION_TAIL = 1, /* text: after the warnings (its figures do not lead) */
       TTFT_TPOT_SECTION_EVENTS = 2, /* trace: rows and directives after the device intervals */
       TTFT_TPOT_SECTION_DIRECTIVES = 3 }; /* trace: directives before the closing # counts: line */


typedef struct ttft_tpot_restore_item ttft_tpot_restore_item; /* below */

/* A prefill- or decode-role span as it ends (ttft_tpot_span_end), for a layer's sample hook: what a
   layer sees of an engine step. A sample restored from a trace or merged is not one. */
typedef struct ttft_tpot_layer_sample {
    int phase, role;    /* TTFT_TPOT_ROLE_PREFILL or _DECODE */
    uint32_t tokens;    /* its output tokens */
    uint32_t sequences; /* the sequences a decode step advanced (ttft_tpot_span_set_sequences); 0: not given */
    uint64_t prompt;    /* its prompt tokens (ttft_tpot_span_set_prompt); 0 none */
    int warmup;         /* flagged warmup: a first call, a new shape or a warmup section */
    int kept;           /* recorded (stored or in its histogram); 0: dropped (counted) */
} ttft_tpot_layer_sample;

/* An extension of a collector (ttft_tpot_attach): a table of hooks, each called with state (every one
   may be NULL), and what the collector keeps current in it. The serving layer (ttft_tpot_serve.h) is
   one: requests, their figures and their exposition, beside the collector's samples. */
struct ttft_tpot_layer {
    const char *name; /* what it is ("serve"): how a layer's header tells its own from another's */
    void *state;
    void (*clear)(void *state);                       /* ttft_tpot_clear */
    int (*merge)(void *state, const void *src, int plan); /* ttft_tpot_merge: src's layer state into
                                                         state; plan: only say whether it fits (OK, or
                                                         what merge returns); then do it (it fits) */
    int (*compute)(void *state, ttft_tpot_model *m);  /* its figures into m->layer and m->layer_report,
                                                         after the collector's: OK, ENOMEM */
    void (*model_free)(void *state, ttft_tpot_model *m); /* release m->layer */
    void (*counts)(const void *state, ttft_tpot_layer_counts *k); /* what it lost (ttft_tpot_layer_counts) */
    void (*text)(const ttft_tpot_model *m, ttft_tpot_writer *w, int section); /* TTFT_TPOT_SECTION_
                                                         LEAD or _TAIL, as m->layer_report says */
    void (*json)(const ttft_tpot_model *m, ttft_tpot_writer *w); /* the value of the JSON report's
                                                         "requests" (null without a layer) */
    void (*trace)(const void *state, ttft_tpot_writer *w, int section); /* _EVENTS, _DIRECTIVES */
    int (*restore)(void *state, ttft_tpot_restore_item *item); /* a trace read: its BEGIN, COUNTS, COMMIT and
                                                         ROLLBACK (ttft_tpot_restore) */
    void (*sample)(void *state, const ttft_tpot_layer_sample *x); /* each prefill or decode span that
                                                         ends, not refused; set before ttft_tpot_attach
                                                         (those spans then leave the inline path) */
    /* kept current by the collector it is attached to */
    const ttft_tpot *c;
    int enabled;  /* recording is on (ttft_tpot_enable) */
    int warmup;   /* inside a warmup section (ttft_tpot_warmup_begin) */
    int grow;     /* config.grow */
    uint64_t refusal; /* what a refusal adds to its count: 1, or 0 with config.refusals_reported */
    void *alloc_user; /* config.alloc_user, for TTFT_TPOT_MALLOC */
};

/* What a trace holds, put back by ttft_tpot_restore (the trace reader's call): a read is BEGIN, the
   items of one trace, then COMMIT, or ROLLBACK on the first error; a layer's items go to its own
   restore call (ttft_tpot_serve_restore). */
enum {
    TTFT_TPOT_RESTORE_BEGIN,         /* a trace begins: what follows is staged, the collector unchanged */
    TTFT_TPOT_RESTORE_COMMIT,        /* it was read whole: checked against itself, then it joins */
    TTFT_TPOT_RESTORE_ROLLBACK,      /* it was not: the collector is as it was at BEGIN */
    TTFT_TPOT_RESTORE_PHASE,         /* name (len), role: found or added; its id into phase */
    TTFT_TPOT_RESTORE_SAMPLE,        /* phase, start_ns, dur_ns, tokens, warmup: a sample line */
    TTFT_TPOT_RESTORE_SEQUENCES,     /* n: the sequences of the sample line just restored (a decode step) */
    TTFT_TPOT_RESTORE_RUN,           /* n 0: a run begins at the next sample; n 1: the run ends there */
    TTFT_TPOT_RESTORE_HIST,          /* phase, hist, n (its values): a bounded phase's histogram */
    TTFT_TPOT_RESTORE_PROMPT,        /* phase, v[0..2]: its steady prefills' prompt sums (N, TOKENS, NS) */
    TTFT_TPOT_RESTORE_DEVICE,        /* interval (its sample: the sample line it names, from 1; 0 none) */
    TTFT_TPOT_RESTORE_DEVICE_QUEUED, /* n: the queued stamp of the interval just restored */
    TTFT_TPOT_RESTORE_DEVICE_LOST,   /* v[0], v[1]: device spans unresolved, resolutions refused */
    TTFT_TPOT_RESTORE_COUNTS,        /* v[]: a "# counts:" line's values by key (TTFT_TPOT_COUNT_*),
                                        given: which keys it named (bits) */
    TTFT_TPOT_RESTORE_CLOCK,         /* name (len), n: the clock that recorded it and its cost a read */
    TTFT_TPOT_RESTORE_STARTED        /* n: the realtime ns at which its process began to record */
};

/* The keys of a "# counts:" line, one list: the writer, the reader and ttft_tpot_restore expand it.
   X(KEY, LIMIT): a loss, or (LIMIT 1) a limit it met. The serving layer's keys are filled by it. */
#define TTFT_TPOT_COUNTS(X)                                                                           \
    X(dropped, 0) X(rejected, 0) X(shapes_dropped, 0) X(requests_dropped, 0) X(requests_refused, 0)   \
    X(events_lost, 0) X(runs_dropped, 0) X(outgrown, 0) X(spans_open, 0) X(sequences_lost, 0)         \
    X(sequences_in_histogram, 0) X(spans_cancelled, 0) X(capacity, 1) X(max_requests, 1)              \
    X(max_request_events, 1) X(max_shapes, 1)
#define TTFT_TPOT__COUNT_ENUM(key, limit) TTFT_TPOT_COUNT_##key,
enum { TTFT_TPOT_COUNTS(TTFT_TPOT__COUNT_ENUM) TTFT_TPOT_COUNT_KEYS };
#undef TTFT_TPOT__COUNT_ENUM

/* One item for ttft_tpot_restore. line: where it stands in the trace (a check at COMMIT says which
   line failed, into line). err: room for what a refusal (EPARSE) says, without the trace's name and
   line. */
struct ttft_tpot_restore_item {
    int kind;                 /* TTFT_TPOT_RESTORE_* */
    unsigned long line;
    const char *name;         /* PHASE, CLOCK: not NUL-terminated; len bytes */
    size_t len;
    int role;                 /* PHASE */
    int phase;                /* SAMPLE, HIST, PROMPT; PHASE's result */
    uint64_t start_ns, dur_ns, tokens;
    int warmup;               /* SAMPLE: the line's flag, kept as written */
    uint64_t n;
    uint64_t v[TTFT_TPOT_COUNT_KEYS];
    unsigned given;
    const ttft_tpot_hist *hist;
    const ttft_tpot_device_interval *interval;
    char *err;
    size_t errlen;
};

/* ================================ functions ==================================================== */

/* Every public function of this header, in one block, by section (the INDEX at the top lists them). */

/* ---- Errors ---------------------------------------------------------------------------------- */

/* Name of an error code, "ok" for 0. */
TTFT_TPOT_DEF const char *ttft_tpot_strerror(int err);

/* ---- Phases and warmup ----------------------------------------------------------------------- */

/* Register a phase, or find it again: returns its id (>= 0), the same id for the same name and role.
   EINVAL (c or name NULL, role unknown), ENAME (empty, TTFT_TPOT_NAME_MAX bytes or longer, not valid
   UTF-8, or holding a character a terminal does not show as text: a C0 or C1 control (U+0000-U+001F,
   U+007F-U+009F) or a bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069); request ids
   follow the same rule), EROLE (name taken by another role), EPHASE (table full). */
TTFT_TPOT_DEF int ttft_tpot_phase(ttft_tpot *c, const char *name, ttft_tpot_role role);

/* A row of its own for the samples of phase with shape key key (a matrix shape, a batch size): the
   phase "PHASE[NAME]", of phase's role, which spans of (phase, key) go to from now on, each row with
   its own first-call warmup and figures; the driver names each key once and keeps timing phase with
   the key. Returns the row's phase id (the same for the same name), or EINVAL (c or name NULL),
   EPHASE (unknown phase, or the phase table is full), ENAME (the row's name is not a valid phase
   name: TTFT_TPOT_NAME_MAX bytes or longer, say), EROLE (that name has another role), EFULL
   (config.max_shapes pairs are known). Naming a key again sends its later samples to the new row. */
TTFT_TPOT_DEF int ttft_tpot_shape_row(ttft_tpot *c, int phase, uint64_t key, const char *name);

/* Make a phase bounded: from now on its steady samples go to a histogram (warmup samples stay exact).
   OK (also when it already is); EINVAL (c NULL); EPHASE (unknown phase); ENOMEM (all of
   config.hist_slots are taken). */
TTFT_TPOT_DEF int ttft_tpot_phase_bounded(ttft_tpot *c, int phase);

/* Every sample recorded between begin and end is flagged warmup, and every request submitted (an
   attached serving layer's); sections nest. EINVAL (c NULL); warmup_end without a matching begin:
   ESTATE, counted as rejected. */
TTFT_TPOT_DEF int ttft_tpot_warmup_begin(ttft_tpot *c);
TTFT_TPOT_DEF int ttft_tpot_warmup_end(ttft_tpot *c);

/* ---- Device time ----------------------------------------------------------------------------- */

/* Resolve n tickets, a step's in one call (pair: the clock pair of absolute stamps; NULL when all are
   elapsed). Each stamp is applied or refused alone: a refused one changes nothing and is counted.
   OK when every stamp applied; otherwise the first refusal's code: ETICKET (unknown, resolved, or of
   an earlier epoch), ERANGE (end before begin, queued after begin, a device time of 2^62 ns or more,
   or a begin or queued stamp that maps outside the host clock), EINVAL (absolute without a pair, or
   a queued stamp on the elapsed form); *refused (may be NULL) gets how many were refused. EINVAL (c
   NULL, or stamps NULL while n > 0: nothing counted). A disabled collector resolves too: its tickets
   were opened while it recorded. One ticket: ttft_tpot_device_resolve(c, &stamp, 1, pair, NULL). */
TTFT_TPOT_DEF int ttft_tpot_device_resolve(ttft_tpot *c, const ttft_tpot_device_stamp *stamps, size_t n,
                                           const ttft_tpot_clock_pair *pair, size_t *refused);

/* A part of a launch: one host dispatch that runs many kernels (a CUDA graph replay) has one ticket
   for the whole; the kernels' own events, when the driver has them, add a device interval each for
   phase (a kernel-role row of its own, with no host samples), linked to the launch's sample and
   stream. stamp->ticket is ignored; the launch's ticket may be open or resolved. OK; ETICKET
   (unknown launch), EPHASE (unknown phase), ERANGE, EINVAL as ttft_tpot_device_resolve (counted as
   refused); EFULL (config.max_device kept: counted as device_unresolved). */
TTFT_TPOT_DEF int ttft_tpot_device_part(ttft_tpot *c, uint64_t launch, int phase, const ttft_tpot_device_stamp *stamp,
                                        const ttft_tpot_clock_pair *pair);

/* ---- Collector and config -------------------------------------------------------------------- */

/* Bytes of storage init needs for cfg (NULL: defaults); 0 when the sizes overflow. */
TTFT_TPOT_DEF size_t ttft_tpot_bytes_needed(const ttft_tpot_config *cfg);

/* Set up c from cfg (NULL: defaults). Storage is cfg->buffer when given, else one allocation; recording
   never allocates (with cfg->grow, a trace read may: parts it outgrows move to allocations of their
   own). A capacity or max_phases of 0 means the default (there is no empty collector). The key of
   the name and id indexes is drawn here (HASHING, above).
   Returns OK; EINVAL (c NULL, capacity over UINT32_MAX, max_phases over 65535, hist_slots over
   max_phases, percentiles invalid); ENOMEM (allocation failed or buffer smaller than
   ttft_tpot_bytes_needed). On error c is zeroed, safe to free. The collector starts enabled. A zeroed
   collector (never set up, or freed) records nothing and reports empty; ttft_tpot_phase, a trace read
   and merge into it return EINVAL. */
TTFT_TPOT_DEF int ttft_tpot_init(ttft_tpot *c, const ttft_tpot_config *cfg);

/* Release what init (and a growing trace read) allocated; c is zeroed. An attached layer is detached
   (free it after). NULL or an already freed collector: nothing happens. */
TTFT_TPOT_DEF void ttft_tpot_free(ttft_tpot *c);

/* Empty c for a new interval: samples, histograms, an attached layer's records and every count of
   what was lost go; phases, their roles, their first-call state and the shapes seen stay (warmup is
   once per process), and so does what a layer keeps across intervals (the serving layer's live
   exposition). NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_clear(ttft_tpot *c);

/* Add src's samples, histograms and its layer's records to dst, phases matched by name (added to dst
   when new), for per-thread collectors reported together. A phase's first call is warmup once in the
   merged whole: src's first call of a phase dst had called before becomes steady (unless it was
   warmup for another reason too: a warmup section, a new shape); merge order is call order. All or
   nothing: EINVAL (NULL, dst == src, or src has a layer and dst none), EROLE (a name has another role
   in dst), EPHASE (dst's phase table is full), EFULL (a histogram would pass 2^63 values or tokens),
   ENOMEM (no histogram slot for a bounded phase, or no memory), or what the layer's merge refuses
   (the serving layer: EINVAL, their bucket bounds differ; EREQUEST, a request id is in both; EFULL,
   its tables cannot hold src's). Samples past dst's capacity are counted as dropped. */
TTFT_TPOT_DEF int ttft_tpot_merge(ttft_tpot *dst, const ttft_tpot *src);

/* Turn recording on (nonzero) or off. Off: spans record nothing and read no clock. NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_enable(ttft_tpot *c, int on);

/* Begin a run: the samples recorded from now on, until the next run begins, are one run of a repeated
   generation, reported one by one and across runs (mean, sd, CV of steady TTFT p50, TPOT p50 and
   output throughput). Samples before the first run belong to none (a warmup run, say). A trace read
   and a merge end the last run before their samples and after them: the runs of each trace are its
   own, and samples of a trace without runs belong to none. OK (also when disabled: nothing is
   marked); EINVAL (c NULL); EFULL (TTFT_TPOT_MAX_RUNS runs already: not marked, counted in
   runs_dropped, its samples join the last run while it has not ended). */
TTFT_TPOT_DEF int ttft_tpot_run_begin(ttft_tpot *c);

/* ---- Recording ------------------------------------------------------------------------------- */

/* Recording has one begin (ttft_tpot_span_begin, or _begin_at), one end (ttft_tpot_span_end) and
   setters between them, in any order, for what a sample carries beside its phase and duration:
     ttft_tpot_span_set_tokens     the tokens it produced (unset: the phase's default, 1 for prefill and
                                   decode, 0 for kernel and e2e);
     ttft_tpot_span_set_prompt     the prompt tokens a prefill-role sample processed (the prefill rate);
     ttft_tpot_span_set_shape      the shape key it ran with (the first sample of each (phase, key) is
                                   warmup, as graph capture or compilation happens once per shape);
     ttft_tpot_span_set_duration   a duration measured elsewhere (a device timer), recorded instead of
                                   the time since begin;
     ttft_tpot_span_set_sequences  the sequences a multi-token decode step advanced;
     ttft_tpot_span_set_device     its device time comes later, on a stream (a ticket). */

/* c's clock now: its config.clock, else the platform clock (for c NULL too: CLOCK above). The time a
   request event's time or ttft_tpot_span_begin_at takes. Any thread may read the platform clock. */
static inline uint64_t ttft_tpot_clock_now(const ttft_tpot *c)
{
    return c ? ttft_tpot__clock(c) : ttft_tpot__now();
}

/* Begin a span of phase: reads the clock. With c NULL or disabled the span is inert: no clock read,
   the setters and end record nothing. */
static inline ttft_tpot_span ttft_tpot_span_begin(ttft_tpot *c, int phase)
{
    return ttft_tpot__span_open(c, phase, 1);
}

/* Begin a span of phase that started at start_ns on c's clock (0: unknown), reading no clock: for a
   binding that reads the clock itself, a start known elsewhere, or a duration measured elsewhere
   (start 0, then ttft_tpot_span_set_duration). Inert as ttft_tpot_span_begin. */
static inline ttft_tpot_span ttft_tpot_span_begin_at(ttft_tpot *c, int phase, uint64_t start_ns)
{
    ttft_tpot_span s = ttft_tpot__span_open(c, phase, 0);
    if (s.state == 1)
        s.start = start_ns;
    return s;
}

/* The setters. Each may be called any number of times before the end (the last value counts); on a
   NULL span they do nothing. What they set is checked at the end. */
static inline void ttft_tpot_span_set_tokens(ttft_tpot_span *s, uint32_t tokens)
{
    if (s)
        s->tokens = tokens;
}

static inline void ttft_tpot_span_set_prompt(ttft_tpot_span *s, uint32_t prompt_tokens)
{
    if (s) {
        s->prompt = prompt_tokens;
        s->has_prompt = 1;
    }
}

/* TTFT_TPOT_NO_SHAPE: none. The key is looked up at the end, after the clock is read, so the span
   does not time it. A key named with ttft_tpot_shape_row records into its row; when config.max_shapes
   pairs are known, a new pair is counted in shapes_dropped, not flagged. */
static inline void ttft_tpot_span_set_shape(ttft_tpot_span *s, uint64_t key)
{
    if (s)
        s->shape = key;
}

static inline void ttft_tpot_span_set_duration(ttft_tpot_span *s, uint64_t dur_ns)
{
    if (s) {
        s->dur = dur_ns;
        s->has_dur = 1;
    }
}

/* A decode step that emitted more than one token a sequence (speculative decoding, multi-token
   prediction): the sequences it advanced, its tokens (ttft_tpot_span_set_tokens) being the tokens it
   produced for them all (accepted tokens). Its TPOT is then duration x sequences / tokens, and its
   acceptance length tokens / sequences. Checked at the end: a decode-role phase (EROLE), 1 to its
   tokens (ERANGE), both counted as rejected. Kept with config.sequences; without it the sample is
   kept, its TPOT its step time, and counted (ttft_tpot_losses.sequences_lost). */
static inline void ttft_tpot_span_set_sequences(ttft_tpot_span *s, uint32_t sequences)
{
    if (s)
        s->sequences = sequences;
}

/* The device part of this span comes later, on stream (the driver's number for a device queue: a
   track of its own in the Chrome trace): its end opens a ticket (s->ticket) that the driver resolves
   with the device's timestamps (Device time, above). */
static inline void ttft_tpot_span_set_device(ttft_tpot_span *s, uint32_t stream)
{
    if (s) {
        s->device = 1;
        s->stream = stream;
    }
}

/* End a span, recording its duration (the time since begin, or the duration set) with what was set.
   Returns OK (also for an inert span, and past the storage, in the phase's histogram), EINVAL (s
   NULL), ESTATE (never begun, or ended twice: counted as rejected when the collector is known),
   EPHASE (unknown phase), EROLE (a prompt on a phase that is not prefill-role), EINVAL (a prompt of
   0 tokens), all three counted as rejected, or EFULL (kept nowhere: no histogram slot left, or a
   warmup sample past the reserve; counted as dropped). A clock that steps back records 0 ns. */
static inline int ttft_tpot_span_end(ttft_tpot_span *s)
{
    uint64_t dur;
    int64_t r;
    int first = 0, phase, rc;
    if (!ttft_tpot__span_close(s, &rc))
        return rc;
    dur = s->dur;
    if (!s->has_dur) {
        uint64_t now = ttft_tpot__clock(s->c);
        now = now < s->start ? s->start : now; /* a clock that steps back: 0 ns (a max: no zero to hold) */
        dur = now - s->start;
    }
    phase = s->phase; /* a local: the span's address never escapes, so it stays in registers */
    if (s->shape != TTFT_TPOT_NO_SHAPE)
        first = ttft_tpot__shape_first(s->c, &phase, s->shape); /* may pick its row */
    if (!(s->has_prompt | s->device | (s->sequences != 0)) && ttft_tpot__push_fast(s->c, phase, dur, s->tokens, first))
        return TTFT_TPOT_OK;
    {
        ttft_tpot_span copy = *s; /* the span's own address never escapes: it stays in registers */
        r = ttft_tpot__push_span(&copy, phase, dur, first);
    }
    s->ticket = r > 0 ? (uint64_t)r : 0;
    return r < 0 ? (int)r : TTFT_TPOT_OK;
}

/* End a span without recording it: a step abandoned on an error path. Nothing is kept; the span no
   longer counts as open and counts as cancelled (spans_cancelled, in every report). Returns OK (also
   for an inert span), EINVAL (s NULL) or ESTATE (never begun, or ended: counted as rejected when the
   collector is known). */
static inline int ttft_tpot_span_cancel(ttft_tpot_span *s)
{
    int rc;
    if (!ttft_tpot__span_close(s, &rc))
        return rc;
    s->c->spans_cancelled++;
    return TTFT_TPOT_OK;
}

/* A duration in ms, as device timers give it, to ns: the exact value of the double, rounded to the
   nearest ns (half up), up to 18446744073709.55 ms, the last double below 2^64 ns. OK, or ERANGE when
   ms is negative (-0.0 is 0), NaN, infinite or 2^64 ns or more (*ns untouched), told by its bits under
   any compiler option (FAST MATH); EINVAL (ns NULL). */
TTFT_TPOT_DEF int ttft_tpot_ms_to_ns(double ms, uint64_t *ns);

/* Span macros. BEGIN declares `var` in the enclosing scope; end it exactly once, on the same thread.
   TTFT_TPOT_TIME wraps a statement or block, its tokens set. With TTFT_TPOT_DISABLE they expand to
   nothing (the collector and phase expressions are not evaluated). */
#ifndef TTFT_TPOT_DISABLE
#define TTFT_TPOT_SPAN_BEGIN(var, c, phase) ttft_tpot_span var = ttft_tpot_span_begin((c), (phase))
#define TTFT_TPOT_SPAN_END(var) ((void)ttft_tpot_span_end(&(var)))
#define TTFT_TPOT_SPAN_SET_TOKENS(var, tokens) ttft_tpot_span_set_tokens(&(var), (tokens))
#define TTFT_TPOT_SPAN_SET_PROMPT(var, prompt_tokens) ttft_tpot_span_set_prompt(&(var), (prompt_tokens))
#define TTFT_TPOT_SPAN_SET_SHAPE(var, key) ttft_tpot_span_set_shape(&(var), (key))
#define TTFT_TPOT_SPAN_SET_DURATION(var, dur_ns) ttft_tpot_span_set_duration(&(var), (dur_ns))
#define TTFT_TPOT_SPAN_SET_DEVICE(var, stream) ttft_tpot_span_set_device(&(var), (stream))
#define TTFT_TPOT_TIME(c, phase, tokens, stmt)                                                        \
    do {                                                                                              \
        ttft_tpot_span ttft_tpot__span = ttft_tpot_span_begin((c), (phase));                          \
        stmt;                                                                                         \
        ttft_tpot_span_set_tokens(&ttft_tpot__span, (tokens));                                        \
        (void)ttft_tpot_span_end(&ttft_tpot__span);                                                   \
    } while (0)
#else
#define TTFT_TPOT_SPAN_BEGIN(var, c, phase) ((void)sizeof(c), (void)sizeof(phase))
#define TTFT_TPOT_SPAN_END(var) ((void)0)
#define TTFT_TPOT_SPAN_SET_TOKENS(var, tokens) ((void)sizeof(tokens))
#define TTFT_TPOT_SPAN_SET_PROMPT(var, prompt_tokens) ((void)sizeof(prompt_tokens))
#define TTFT_TPOT_SPAN_SET_SHAPE(var, key) ((void)sizeof(key))
#define TTFT_TPOT_SPAN_SET_DURATION(var, dur_ns) ((void)sizeof(dur_ns))
#define TTFT_TPOT_SPAN_SET_DEVICE(var, stream) ((void)sizeof(stream))
#define TTFT_TPOT_TIME(c, phase, tokens, stmt)                                                        \
    do {                                                                                              \
        (void)sizeof(c);                                                                              \
        stmt;                                                                                         \
    } while (0)
#endif

/* ---- Report model ---------------------------------------------------------------------------- */

/* Compute every figure of c into *m (options NULL: all of them): O(n) time in the stored samples (and
   the layer's records), and temporary memory of 8 bytes each. m reads c's names and samples: free it
   with ttft_tpot_model_free before c. OK; EINVAL (c or m NULL, or the prefill kernel option names no
   phase); ENOMEM. m is zeroed on error (safe to free). With TTFT_TPOT_SKIP_PHASES it allocates nothing
   and cannot fail for memory. */
TTFT_TPOT_DEF int ttft_tpot_model_compute(const ttft_tpot *c, const ttft_tpot_model_options *options,
                                          ttft_tpot_model *m);

/* Release what ttft_tpot_model_compute allocated; m is zeroed. NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_model_free(ttft_tpot_model *m);

/* The statistics of a series (ttft_tpot_series), by the definitions every report uses (METRICS): into
   out (may be NULL) n, min, max, total, mean, p50/p90/p95/p99 and their 95% intervals, and c's chosen
   percentiles (config.percentiles); a set's also its tokens and warmup_n, a bounded phase's from its
   histogram (approx). Into ss (may be NULL) the series' steady state (MSER-5, White's rule checked,
   its isolated spikes), warmup values flagged as s->flags says. A set's values are also written to
   s->out (at most s->cap), and s->n says how many it has. c gives the allocator and the percentiles:
   nothing is recorded into it. O(n) time; temporary memory: 8 bytes a value (values), or for a set
   in the store, 280 KB of scratch and 8 bytes a value near its percentiles' ranks. OK (n 0: every
   figure 0); EINVAL (c or s NULL, no such set, values NULL while n > 0); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_series_stats(const ttft_tpot *c, ttft_tpot_series *s, ttft_tpot_stats *out,
                                     ttft_tpot_steady_state *ss);

/* Sort v[0, n) ascending in O(n): a radix sort by bytes, skipping the bytes every value shares (an
   insertion sort below 32 values). tmp: room for n values, scratch. OK; EINVAL (v or tmp NULL while
   n > 0). */
TTFT_TPOT_DEF int ttft_tpot_sort(uint64_t *v, size_t n, uint64_t *tmp);

/* The distribution-free 95% interval of the p-th percentile (0 < p < 100) of n values: the order
   statistics x(lo) and x(hi) (1-based ranks, smallest first), with B ~ Binomial(n, p/100), lo the
   largest rank with P(B < lo) <= 0.025 and hi the smallest with P(B >= hi) <= 0.025, so that
   P(x(lo) <= true percentile <= x(hi)) >= 95% for independent samples. Returns 1, or 0 when n is too
   small for either end (no lo >= 1, or no hi <= n: p50 needs 6 values, p90 36, p99 368). No libm, and
   about 4e5 steps at most for any n: exact binomial tails while n p (1 - p) <= 1e8; past it, the
   Cornish-Fisher expansion of the binomial's quantile, whose error there is below 1e-6 of a rank (the
   same ranks but where the exact tail lies within that of 0.025). */
TTFT_TPOT_DEF int ttft_tpot_ci95_ranks(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi);

/* The 97.5th percentile of Student's t with df degrees of freedom, the factor of a 95% t-interval of
   the mean of df + 1 values: a table to df 30, then Hill's expansion in 1/df (within 3e-8 of the exact
   quantile); 0 for df 0. No libm. */
TTFT_TPOT_DEF double ttft_tpot_t975(uint64_t df);

/* ---- Writers (the writer, text, JSON) -------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* The text report of a collector: ttft_tpot_model_compute, the text (TTFT_TPOT_FORMAT_TEXT), free. */
TTFT_TPOT_DEF int ttft_tpot_report(const ttft_tpot *c, FILE *out);

/* A model in a format (TTFT_TPOT_FORMAT_*): the text report, or the JSON report (schema ttft_tpot/v1).
   Every figure is computed before the first byte is written. EINVAL (NULL, an unknown format, or a
   model computed without its samples' or its layer's figures: nothing written), EIO (the stream
   reports a write error: what reached it is unspecified). The text leads with what the run is for: a
   serving run (an attached layer that leads) with the per-request figures, then the driver's own
   steps; a single-stream run with TTFT, TPOT and throughput. A row whose source is absent (no
   prefill-, decode- or e2e-role sample) is left out, and an empty collector says "Nothing to report";
   JSON keeps every key, null. A figure whose source exists but cannot be computed is n/a with the
   reason, never 0. */
TTFT_TPOT_DEF int ttft_tpot_model_write(const ttft_tpot_model *m, FILE *out, int format);

/* printf into w (fmt NULL: write the block out, and say whether every write reached the stream: OK or
   EIO), whatever LC_NUMERIC says. The conversions of printf for integers (d i u x c, with l ll z and
   width, precision and the - 0 + space flags), strings (s) and doubles (f e g, '.' the decimal point), and
   the report's own (no printf has them: a compiler's format checks do not apply):
     %T  a duration, a double of ns, in a unit that reads well: "7.99 s", "52.70 ms", "93 ns"
     %R  a double with the precision's decimals (%.2R), or 3 significant digits where that would
         print a positive value as 0: no figure reads 0 that is not
     %P  a chosen percentile's name, a uint32_t in thousandths of a percent (99900: "p99.9")
     %J  a JSON string of a char * (quoted, escaped; bytes that are not UTF-8 as U+FFFD)
     %L  a JSON ms of a double of ns, to the ns (null where it is no finite duration)
     %M  a JSON ms of a uint64_t of ns, exact (6 decimals, trailing zeros trimmed)
     %N  a JSON number of an int (has) and a double: %.17g, or null without one
     %S  a JSON statistics object of a const ttft_tpot_stats * ({"n":..,"mean":..}, or null with n 0)
     %W  a JSON steady-state object of a const ttft_tpot_steady_state * (null where not measured)
     %K  a series' isolated spikes as text, of a const char * name, a const char * word and a const
         ttft_tpot_steady_state *: "decode_step: 1 isolated spike: step 170 at 9.00 ms (3.0x the
         steady p50)\n", or nothing without a spike
     %C  a name as a CSV field of a char * (quoted where it holds a comma or a quote, or starts with
         '#' or a space)
   Returns OK; EINVAL (w NULL, its block NULL, or a conversion it does not know: nothing of it
   written). */
TTFT_TPOT_DEF int ttft_tpot_write(ttft_tpot_writer *w, const char *fmt, ...);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Trace I/O ------------------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* Trace format v1 (CSV): "phase,role,start_ns,dur_ns,tokens,warmup", one line a sample in call order,
   then an attached layer's rows (the serving layer's request events). What samples cannot say
   travels in directive lines, which a reader that does not know them takes for comments: "# clock:",
   "# started:" (when the process began to record: the realtime clock in ns, so that a comparison
   can tell whether its sides' processes ran interleaved), "# run:" and "# run: end" (where a run
   begins, and where one ends before the next begins),
   "# phase:" (the phase table, in order), "# hist:" (a bounded phase's histogram), "# prompt:" (a
   prefill phase's prompt-token sums), "# sequences:" (the sequences of the decode step on the line
   above: ttft_tpot_span_set_sequences), "# device:" (a device interval, its sample counted among the
   trace's sample lines), "# device_queued:" (the runtime's queued stamp of the interval above it),
   "# device_lost:" and "# counts:" (dropped, rejected, shapes_dropped, runs_dropped, outgrown and
   the rest of TTFT_TPOT_COUNTS, and the limits they met), and a layer's own (ttft_tpot_serve.h). So
   the report of a trace equals the live report, except for the prefill-kernel option, which a trace
   does not carry (man ttft_tpot_report: TRACE FORMAT). write: every stored sample (start_ns 0 without
   config.timeline) and the directives; EINVAL (nothing written), EIO (what reached the stream is
   unspecified). It writes through a 256 KiB block from the allocator, or through 16 KiB on its stack
   when that allocation fails: it never fails for memory. ttft_tpot_trace_read (ttft_tpot_tools.h)
   reads one back. */
TTFT_TPOT_DEF int ttft_tpot_trace_write(const ttft_tpot *c, FILE *out);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Layers ---------------------------------------------------------------------------------- */

/* Attach layer to c: from now on c calls its hooks (ttft_tpot_layer) where its reports, traces,
   clears and merges meet the layer's part, and keeps layer->c, enabled, warmup, grow, refusal and
   alloc_user current. One layer a collector; layer must outlive the attachment (NULL detaches). OK;
   EINVAL (c NULL, or a layer is attached already). */
TTFT_TPOT_DEF int ttft_tpot_attach(ttft_tpot *c, ttft_tpot_layer *layer);

/* A name as the collector's indexes key it (a layer's index of request ids keys them so): with hash
   NULL, whether name[0, len) is a valid name (ttft_tpot_phase's rule): OK or ENAME; else its keyed
   hash (SipHash-1-3 under c's key: HASHING, above) into *hash, unchecked (a name found in an index was
   checked when it was added): OK. EINVAL (c or name NULL). */
TTFT_TPOT_DEF int ttft_tpot_name_hash(const ttft_tpot *c, const char *name, size_t len, uint64_t *hash);

/* Put back what a trace holds, item by item (TTFT_TPOT_RESTORE_*), as recording would have kept it: a
   sample's warmup flag as written, a bounded phase's steady samples into its histogram (its first and
   its warmup ones exact), past the capacity into histograms or dropped and counted; a growing
   collector (config.grow) makes room first. Items between BEGIN and COMMIT are staged: COMMIT checks
   them against one another (prompt sums against the samples they describe, the layer's counts) and
   joins them, ROLLBACK (or a failed COMMIT) leaves c as it was at BEGIN. A layer attached to c takes
   the BEGIN, COUNTS, COMMIT and ROLLBACK too. Returns OK (PHASE: the id, also in item->phase); EPARSE
   (item->err says why; at COMMIT item->line says which line); ENOMEM; EINVAL (NULL, an unknown kind,
   an item outside BEGIN and COMMIT, a zeroed collector). Compiled where TTFT_TPOT_LAYERS is defined
   (COMPILE-TIME OPTIONS). */
#ifndef TTFT_TPOT_NO_STDIO
TTFT_TPOT_DEF int ttft_tpot_restore(ttft_tpot *c, ttft_tpot_restore_item *item);
#endif

#ifdef __cplusplus
}
#endif
#endif /* TTFT_TPOT_H */

/* ================================ implementation ================================================ */
#if defined(TTFT_TPOT_IMPLEMENTATION) && !defined(TTFT_TPOT_IMPLEMENTED)
#define TTFT_TPOT_IMPLEMENTED

#if defined(TTFT_TPOT_MALLOC) != defined(TTFT_TPOT_FREE)
#error "ttft_tpot.h: define both TTFT_TPOT_MALLOC and TTFT_TPOT_FREE, or neither"
#endif
#if defined(TTFT_TPOT_REALLOC) && !defined(TTFT_TPOT_MALLOC)
#error "ttft_tpot.h: TTFT_TPOT_REALLOC goes with TTFT_TPOT_MALLOC and TTFT_TPOT_FREE"
#endif
#ifndef TTFT_TPOT_MALLOC
#include <stdlib.h>
#define TTFT_TPOT_MALLOC(sz, u) ((void)(u), malloc(sz))
#define TTFT_TPOT_FREE(p, u) ((void)(u), free(p))
#define TTFT_TPOT_REALLOC(p, old, sz, u) ((void)(u), (void)(old), realloc((p), (sz)))
#endif
#ifndef TTFT_TPOT_ASSERT
#include <assert.h>
#define TTFT_TPOT_ASSERT(x) assert(x)
#endif

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <time.h>
#ifndef CLOCK_MONOTONIC
#error "ttft_tpot.h: CLOCK_MONOTONIC is not declared: compile this file with -D_POSIX_C_SOURCE=199309L"
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h> /* getpid, for the hash key */
#define TTFT_TPOT__PID() ((uint64_t)getpid())
#endif
#endif
#if defined(_WIN32)
#define TTFT_TPOT__PID() ((uint64_t)GetCurrentProcessId())
#endif
#ifndef TTFT_TPOT__PID
#define TTFT_TPOT__PID() 0u
#endif

#include <stdlib.h> /* qsort */
#include <string.h>
#ifndef TTFT_TPOT_NO_STDIO
#include <stdarg.h> /* the writers' printf into a block */
#endif

/* Strict floating point in the implementation, whatever the file is compiled with (FAST MATH, at the
   top): -ffast-math may turn x / 1e6 into x * 1e-6 or fuse a * b + c, and a report built that way
   would differ in its last digits from the report of its trace read by a strictly built tool.
   Popped at the end of the implementation. */
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(precise, on, push)
#elif defined(__GNUC__) && !defined(__CUDACC__) /* nvcc's front end takes no GCC optimize pragma */
#pragma GCC push_options
#pragma GCC optimize("no-fast-math", "fp-contract=off")
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push /* g++'s -Wuseless-cast: a cast between size_t and uint64_t one platform needs */
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TTFT_TPOT__DEFAULT_CAPACITY 65536u
#define TTFT_TPOT__DEFAULT_DEVICE 65536u /* intervals: a few hundred steps of a real model's kernels */
#define TTFT_TPOT__DEFAULT_PHASES 64u
#define TTFT_TPOT__TWO64 18446744073709551616.0

/* ---- Errors ---------------------------------------------------------------------------------- */

TTFT_TPOT_DEF const char *ttft_tpot_strerror(int err)
{
    switch (err) {
#define TTFT_TPOT__ERR_CASE(name, value, text)                                                        \
    case value:                                                                                       \
        return text;
        TTFT_TPOT_ERRORS(TTFT_TPOT__ERR_CASE)
#undef TTFT_TPOT__ERR_CASE
    default:
        return "unknown error";
    }
}

/* ---- Clock ----------------------------------------------------------------------------------- */

#if defined(_WIN32)
#define TTFT_TPOT__CLOCK_NAME "QueryPerformanceCounter"
#else
#define TTFT_TPOT__CLOCK_NAME "CLOCK_MONOTONIC"
#endif

TTFT_TPOT_DEF uint64_t ttft_tpot__now(void)
{
#if defined(_WIN32)
    /* Split ticks into seconds and remainder before scaling, so the product cannot overflow. */
    LARGE_INTEGER f, t;
    uint64_t q, r;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&t);
    q = (uint64_t)t.QuadPart / (uint64_t)f.QuadPart;
    r = (uint64_t)t.QuadPart % (uint64_t)f.QuadPart;
    return q * 1000000000u + r * 1000000000u / (uint64_t)f.QuadPart;
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The realtime clock in ns since 1970, 0 when unreadable: when a process began to record, so that a
   comparison can tell whether its sides' processes ran interleaved. */
static uint64_t ttft_tpot__realtime(void)
{
#if defined(_WIN32)
    FILETIME ft; /* 100 ns ticks since 1601 */
    uint64_t t;
    GetSystemTimeAsFileTime(&ft);
    t = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
    return t > 116444736000000000ull ? (t - 116444736000000000ull) * 100u : 0;
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The earlier of two start times, 0 (unknown) if either is: collectors read or merged together. */
static uint64_t ttft_tpot__earliest(uint64_t a, uint64_t b)
{
    return a && b ? (a < b ? a : b) : 0;
}

static int ttft_tpot__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The median cost of one read of the platform clock: 255 back-to-back reads. */
static uint64_t ttft_tpot__clock_cost(void)
{
    uint64_t t[256], prev = ttft_tpot__now();
    int i;
    for (i = 0; i < 255; i++) {
        uint64_t now = ttft_tpot__now();
        t[i] = now > prev ? now - prev : 0;
        prev = now;
    }
    qsort(t, 255, sizeof t[0], ttft_tpot__cmp_u64);
    return t[127] ? t[127] : 1;
}

/* ---- Names, hashing and numbers -------------------------------------------------------------- */

/* v's bits, read through a volatile copy: inlined into a fast-math caller, v may be a product the
   compiler takes to be finite, and it could then fold a test of the bits away; a volatile read it
   cannot see through. */
static uint64_t ttft_tpot__bits(double v)
{
    volatile double opaque = v;
    double w = opaque;
    uint64_t bits;
    memcpy(&bits, &w, sizeof bits);
    return bits;
}

/* Whether v is finite, from its bits: a comparison such as v == v is what -ffinite-math-only lets a
   compiler fold away (and other compilers than gcc and clang ignore the pragmas above). */
static int ttft_tpot__finite(double v)
{
    return (ttft_tpot__bits(v) >> 52 & 0x7FFu) != 0x7FFu;
}

/* 128-bit unsigned arithmetic (C99 has no wider integer): products of counts and durations, and sums
   of durations, which cannot pass 2^128 (fewer than 2^64 values below 2^64). */
typedef struct ttft_tpot__u128 {
    uint64_t hi, lo;
} ttft_tpot__u128;

/* a * b, in halves of 32 bits. */
static ttft_tpot__u128 ttft_tpot__mul(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    ttft_tpot__u128 r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

/* v / d for a quotient below 2^64 and 0 < d < 2^32, in 32-bit digits: the quotient, and the
   remainder in *rem. */
static uint64_t ttft_tpot__div128(ttft_tpot__u128 v, uint32_t d, uint64_t *rem)
{
    const uint64_t word[4] = {v.hi >> 32, v.hi & 0xFFFFFFFFu, v.lo >> 32, v.lo & 0xFFFFFFFFu};
    uint64_t r = 0, q = 0;
    int k;
    for (k = 0; k < 4; k++) {
        uint64_t cur = r << 32 | word[k];
        q = q << 32 | cur / d; /* the digits above 2^64 are 0: the quotient fits */
        r = cur % d;
    }
    *rem = r;
    return q;
}

/* v >> s for 1 <= s <= 127, rounded half up (the last bit shifted out is added): OK, or ERANGE when the
   result takes more than 64 bits. */
static int ttft_tpot__shr_round(ttft_tpot__u128 v, unsigned s, uint64_t *out)
{
    uint64_t half = s <= 64 ? v.lo >> (s - 1) & 1u : v.hi >> (s - 65) & 1u, q_hi, q_lo;
    q_lo = s < 64 ? v.lo >> s | v.hi << (64 - s) : v.hi >> (s - 64);
    q_hi = s < 64 ? v.hi >> s : 0;
    q_lo += half;
    q_hi += q_lo < half;
    *out = q_lo;
    return q_hi ? TTFT_TPOT_ERANGE : TTFT_TPOT_OK;
}

/* sqrt(v) for v >= 0 (0 for anything else), without libm: Newton's iteration from a power of two above it. */
static double ttft_tpot__sqrt(double v)
{
    double x = 1;
    int i;
    if (!ttft_tpot__finite(v) || v <= 0)
        return 0;
    while (x * x < v)
        x *= 2;
    for (i = 0; i < 80; i++)
        x = 0.5 * (x + v / x);
    return x;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one; its code point in *out. */
static size_t ttft_tpot__utf8_cp(const unsigned char *s, size_t avail, uint32_t *out)
{
    size_t len, i;
    uint32_t cp;
    *out = s[0];
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        cp = s[0] & 0x1Fu;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        cp = s[0] & 0x0Fu;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (avail < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    *out = cp;
    return len;
}

#ifndef TTFT_TPOT_NO_STDIO /* the writers' */
/* The bytes of the UTF-8 character at s (avail bytes there), 0 when it is none. */
static size_t ttft_tpot__utf8_len(const unsigned char *s, size_t avail)
{
    uint32_t cp;
    return ttft_tpot__utf8_cp(s, avail, &cp);
}
#endif

/* Length of the character at s when a terminal shows it as text, else 0: valid UTF-8 that is not a
   C0 or C1 control (C1 U+0080-U+009F holds CSI, U+009B), DEL, or a bidirectional override or isolate
   (U+202A-U+202E, U+2066-U+2069: they reorder what follows on the line). */
static size_t ttft_tpot__printable(const unsigned char *s, size_t avail)
{
    uint32_t cp;
    size_t k = ttft_tpot__utf8_cp(s, avail, &cp);
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
        return 0;
    return k;
}

/* A phase name or request id: 1..NAME_MAX-1 bytes of printable UTF-8 (ttft_tpot__printable). */
static int ttft_tpot__name_ok(const char *name, size_t len)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t i = 0, k;
    if (len == 0 || len >= TTFT_TPOT_NAME_MAX)
        return 0;
    for (; i < len; i += k)
        if ((k = ttft_tpot__printable(s + i, len - i)) == 0)
            return 0;
    return 1;
}

/* SipHash-1-3 (Aumasson and Bernstein) of s under key k: names and request ids may come from
   clients, so their indexes are keyed; without the key, colliding names cannot be crafted. rounds:
   c compression and d finalisation rounds (1 and 3 here; the tests check 2-4 against the paper). */
#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_M_X64) || defined(_M_ARM64)
#define TTFT_TPOT__LE 1 /* the first byte of 8 loaded at once is the lowest: words load whole */
#endif

#define TTFT_TPOT__ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
static inline void ttft_tpot__sipround(uint64_t *v, int rounds)
{
    for (; rounds > 0; rounds--) {
        v[0] += v[1], v[1] = TTFT_TPOT__ROTL(v[1], 13), v[1] ^= v[0], v[0] = TTFT_TPOT__ROTL(v[0], 32);
        v[2] += v[3], v[3] = TTFT_TPOT__ROTL(v[3], 16), v[3] ^= v[2];
        v[0] += v[3], v[3] = TTFT_TPOT__ROTL(v[3], 21), v[3] ^= v[0];
        v[2] += v[1], v[1] = TTFT_TPOT__ROTL(v[1], 17), v[1] ^= v[2], v[2] = TTFT_TPOT__ROTL(v[2], 32);
    }
}

static uint64_t ttft_tpot__siphash(const uint64_t *k, const void *s, size_t len, int c_rounds, int d_rounds)
{
    const unsigned char *p = (const unsigned char *)s;
    uint64_t v[4], m;
    size_t i, j;
    v[0] = k[0] ^ 0x736f6d6570736575ull;
    v[1] = k[1] ^ 0x646f72616e646f6dull;
    v[2] = k[0] ^ 0x6c7967656e657261ull;
    v[3] = k[1] ^ 0x7465646279746573ull;
    for (i = 0; i <= len; i += 8) { /* whole words, then the last one with the length in its top byte */
        m = i + 8 <= len ? 0 : (uint64_t)len << 56;
#ifdef TTFT_TPOT__LE
        if (i + 8 <= len)
            memcpy(&m, p + i, 8);
        else
#endif
            for (j = 0; j < 8 && i + j < len; j++)
                m |= (uint64_t)p[i + j] << (8 * j); /* little-endian on every host */
        v[3] ^= m;
        ttft_tpot__sipround(v, c_rounds);
        v[0] ^= m;
        if (i + 8 > len)
            break; /* that was the last word */
    }
    v[2] ^= 0xff;
    ttft_tpot__sipround(v, d_rounds);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* SipHash-1-3 of the 16 bytes of a and b, little-endian, taken as words: a shape key and its phase. */
static uint64_t ttft_tpot__siphash_pair(const uint64_t *k, uint64_t a, uint64_t b)
{
    const uint64_t m[3] = {a, b, (uint64_t)16 << 56}; /* the last word: the length */
    uint64_t v[4];
    int i;
    v[0] = k[0] ^ 0x736f6d6570736575ull;
    v[1] = k[1] ^ 0x646f72616e646f6dull;
    v[2] = k[0] ^ 0x6c7967656e657261ull;
    v[3] = k[1] ^ 0x7465646279746573ull;
    for (i = 0; i < 3; i++) {
        v[3] ^= m[i];
        ttft_tpot__sipround(v, 1);
        v[0] ^= m[i];
    }
    v[2] ^= 0xff;
    ttft_tpot__sipround(v, 3);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
#undef TTFT_TPOT__ROTL

static uint64_t ttft_tpot__hash(const ttft_tpot *c, const char *s, size_t len)
{
    return ttft_tpot__siphash(c->key, s, len, 1, 3);
}

/* An index entry: the number + 1 in its low 25 bits (2^24 requests or 65535 phases at most), and above
   them 7 more bits of the name's hash, so that a probe compares only the names whose tag matches (a
   name's record, read at random, is the costly part of a probe). */
#define TTFT_TPOT__IDX_NUM 0x01FFFFFFu
#define TTFT_TPOT__IDX_TAG(h) ((uint32_t)((h) >> 57) << 25)

/* Where name (len bytes, hash h) sits in the phase index (phase + 1 each, 0 empty): its slot, or the
   empty slot that ends its probe. The index is at most half full, so a probe ends; under a secret key
   it takes 1.5 slots on average (HASHING, above). */
static uint32_t ttft_tpot__probe_h(const ttft_tpot *c, const char *name, size_t len, uint64_t h)
{
    const uint32_t *index = c->phase.index;
    uint32_t mask = c->phase.mask, i = (uint32_t)h & mask, tag = TTFT_TPOT__IDX_TAG(h);
    for (; index[i]; i = (i + 1) & mask) {
        const char *have = c->phase.slots[(index[i] & TTFT_TPOT__IDX_NUM) - 1].name;
        if ((index[i] & ~TTFT_TPOT__IDX_NUM) == tag && memcmp(have, name, len) == 0 && have[len] == '\0')
            break;
    }
    return i;
}

static uint32_t ttft_tpot__probe(const ttft_tpot *c, const char *name, size_t len)
{
    return ttft_tpot__probe_h(c, name, len, ttft_tpot__hash(c, name, len));
}

/* Phase k into the index (one hash for its slot and its tag). */
static void ttft_tpot__index_put(ttft_tpot *c, unsigned k)
{
    const char *name = c->phase.slots[k].name;
    size_t len = strlen(name);
    uint64_t h = ttft_tpot__hash(c, name, len);
    c->phase.index[ttft_tpot__probe_h(c, name, len, h)] = (k + 1) | TTFT_TPOT__IDX_TAG(h);
}

/* ---- Statistics (exact and bounded) ---------------------------------------------------------- */

static void ttft_tpot__hist_reset(ttft_tpot_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min_ns = UINT64_MAX; /* min > max: empty */
}

static void ttft_tpot__hist_merge(ttft_tpot_hist *dst, const ttft_tpot_hist *src)
{
    unsigned i;
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS; i++)
        dst->counts[i] += src->counts[i];
    dst->tokens += src->tokens;
    dst->min_ns = src->min_ns < dst->min_ns ? src->min_ns : dst->min_ns;
    dst->max_ns = src->max_ns > dst->max_ns ? src->max_ns : dst->max_ns;
    dst->sum_lo += src->sum_lo;
    dst->sum_hi += src->sum_hi + (dst->sum_lo < src->sum_lo);
}

#ifndef TTFT_TPOT__SELECT_ROUNDS
#define TTFT_TPOT__SELECT_ROUNDS 8 /* + 2 log2 n; a test sets 0 to take the sort fallback every time */
#endif

/* Rearrange x[lo, hi) so that x[k] holds the value it would hold sorted, smaller-or-equal values
   before it and larger-or-equal after. Quickselect (median of three, Hoare partition); after
   2*log2(n) rounds without converging it sorts the rest, so the worst case is O(n log n). */
static void ttft_tpot__select(uint64_t *x, size_t lo, size_t hi, size_t k)
{
    size_t budget = TTFT_TPOT__SELECT_ROUNDS, m;
    for (m = hi - lo; m > 1 && budget; m >>= 1)
        budget += 2;
    while (hi - lo > 16) {
        size_t mid = lo + (hi - lo) / 2, i, j;
        uint64_t a = x[lo], b = x[mid], e = x[hi - 1], pv, t;
        if (budget-- == 0) {
            qsort(x + lo, hi - lo, sizeof *x, ttft_tpot__cmp_u64);
            return;
        }
        /* move the median of three to lo: it is the pivot, which keeps both sides non-empty */
        if ((a <= b && b <= e) || (e <= b && b <= a)) {
            x[mid] = a;
            x[lo] = b;
        } else if ((a <= e && e <= b) || (b <= e && e <= a)) {
            x[hi - 1] = a;
            x[lo] = e;
        }
        pv = x[lo];
        i = lo - 1; /* wraps when lo is 0; unsigned wrap is defined and undone by the first i++ */
        j = hi;
        for (;;) {
            do
                j--;
            while (x[j] > pv);
            do
                i++;
            while (x[i] < pv);
            if (i >= j)
                break;
            t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
        /* x[lo..j] <= pv <= x[j+1..hi) */
        if (k <= j)
            hi = j + 1;
        else
            lo = j + 1;
    }
    for (m = lo + 1; m < hi; m++) { /* insertion sort of the last few */
        uint64_t v = x[m];
        size_t q = m;
        while (q > lo && x[q - 1] > v) {
            x[q] = x[q - 1];
            q--;
        }
        x[q] = v;
    }
}

/* v + f/d * (next - v) (f < d <= 100000), the interpolation of a percentile between ranks, as a double
   and, in integers, to the nearest ns (f/d of the gap split into whole parts of d and the rest, so
   nothing overflows or rounds before the end). */
static void ttft_tpot__interp(uint64_t v, uint64_t next, uint64_t f, uint64_t d, double *out, uint64_t *out_ns)
{
    uint64_t gap = next - v;
    *out = f ? (double)v + (double)f / (double)d * (double)gap : (double)v;
    *out_ns = v + f * (gap / d) + (f * (gap % d) + d / 2) / d;
}

/* The values at ranks rank[0, nr) (ascending, all in [lo, hi)) of x into val; x[lo, hi) is reordered.
   The middle rank is selected first, then the ranks on each side within their side alone, so the
   work is about log2 nr passes over the span, not one a rank. The depth is log2 of at most
   TTFT_TPOT__MAX_RANKS. */
static void ttft_tpot__select_span(uint64_t *x, size_t lo, size_t hi, const uint64_t *rank, size_t nr, uint64_t *val)
{
    while (nr) {
        size_t h = nr / 2, k = (size_t)rank[h], a = h, b = h + 1;
        ttft_tpot__select(x, lo, hi, k);
        val[h] = x[k];
        for (; a > 0 && rank[a - 1] == k; a--) /* the same rank again: the same value */
            val[a - 1] = x[k];
        for (; b < nr && rank[b] == k; b++)
            val[b] = x[k];
        ttft_tpot__select_span(x, lo, k, rank, a, val);
        rank += b, val += b, nr -= b;
        lo = k + 1;
    }
}

static void ttft_tpot__select_ranks(uint64_t *x, size_t n, const uint64_t *rank, size_t nr, uint64_t *val)
{
    ttft_tpot__select_span(x, 0, n, rank, nr, val);
}

/* Binomial(n, q) weights relative to the mode's (r = q / (1 - q)), walked from the mode down (dir
   -1) or up (+1) while above 1e-30 of it: returns their sum; *end: the last index taken, *w_end its
   weight. w(i + 1) / w(i) = (n - i) / (i + 1) * r. */
static double ttft_tpot__binom_side(uint64_t n, double r, uint64_t mode, int dir, uint64_t *end, double *w_end)
{
    double w = 1, sum = 0, next;
    uint64_t i = mode;
    for (; dir < 0 ? i > 0 : i < n; i = dir < 0 ? i - 1 : i + 1) {
        next = w * (dir < 0 ? (double)i / ((double)(n - i + 1) * r) : (double)(n - i) * r / (double)(i + 1));
        if (next < 1e-30)
            break;
        w = next;
        sum += w;
    }
    *end = i;
    *w_end = w;
    return sum;
}

/* Past this n p (1 - p) the interval's ranks come from ttft_tpot__ci95_far: the exact walk would take
   about 37 sqrt of it steps. */
#define TTFT_TPOT__CI_WALK_MAX 1e8

/* The ranks of ttft_tpot_ci95_ranks for a large n in O(1): B's 2.5% and 97.5% points from the
   Cornish-Fisher expansion of its quantile (skewness and kurtosis terms) with the continuity
   correction. Its error is O(1 / (n p (1 - p))) of a rank, so past TTFT_TPOT__CI_WALK_MAX it gives
   the exact walk's ranks but within about 1e-6 of a rank's edge (the tests compare the two where both
   run). n p / 100 is split exactly into its whole and its hundredths, so no rank is lost to doubles. */
static void ttft_tpot__ci95_far(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi)
{
    const double z = 1.959963984540054; /* the standard normal's 97.5% point */
    double q = p / 100.0, var = (double)n * q * (1 - q), sd = ttft_tpot__sqrt(var);
    double g1 = (1 - 2 * q) / sd, g2 = (1 - 6 * q * (1 - q)) / var, x, w;
    uint64_t whole, rem;
    int64_t t;
    int side;
    whole = ttft_tpot__div128(ttft_tpot__mul(n, p), 100, &rem); /* n p / 100 = whole + rem / 100 */
    for (side = -1; side <= 1; side += 2) {
        double zz = side * z;
        double z3 = zz * zz * zz;
        w = zz + (zz * zz - 1) * g1 / 6 + (z3 - 3 * zz) * g2 / 24 - (2 * z3 - 5 * zz) * g1 * g1 / 36;
        x = (double)rem / 100 + sd * w - 0.5; /* F(k) reaches the point at k = whole + x: |x| < 2^40 */
        t = (int64_t)x;                       /* toward 0; then the floor for lo, the ceiling for hi */
        t += side < 0 ? -(x < (double)t) : (x > (double)t);
        *(side < 0 ? lo : hi) = whole + (uint64_t)t + 1; /* 1-based: the rank above k */
    }
}

/* The ranks of ttft_tpot_ci95_ranks by an exact walk of the binomial's weights: O(sqrt(n p (1 - p))). */
static int ttft_tpot__ci95_walk(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi)
{
    double q = p / 100.0, r = q / (1.0 - q), total, w, w_b, cum = 0;
    uint64_t mode, a, b, i;
    int have_lo, have_hi = 0;
    mode = (uint64_t)((double)(n + 1) * q);
    mode = mode > n ? n : mode;
    total = 1 + ttft_tpot__binom_side(n, r, mode, -1, &a, &w) + ttft_tpot__binom_side(n, r, mode, 1, &b, &w_b);
    have_lo = a > 0; /* below a the weights are negligible: P(B <= a - 1) <= 0.025 */
    *lo = a;
    for (i = a;; i++) { /* cum = P(B <= i), from a up */
        cum += w;
        if (cum / total <= 0.025) { /* B < i + 1 */
            have_lo = 1;
            *lo = i + 1;
        }
        if (cum / total >= 0.975) { /* P(B >= i + 1) <= 0.025 */
            have_hi = i + 1 <= n;
            *hi = i + 1;
            break;
        }
        if (i == b)
            break;
        w *= (double)(n - i) * r / (double)(i + 1);
    }
    return have_lo && have_hi;
}

TTFT_TPOT_DEF int ttft_tpot_ci95_ranks(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi)
{
    if (!lo || !hi || n == 0 || p == 0 || p >= 100)
        return 0;
    if ((double)n * (p / 100.0) * (1 - p / 100.0) <= TTFT_TPOT__CI_WALK_MAX)
        return ttft_tpot__ci95_walk(n, p, lo, hi);
    ttft_tpot__ci95_far(n, p, lo, hi); /* both ends are then far inside 1..n */
    return 1;
}

#ifndef TTFT_TPOT_NO_STDIO /* the writers' */
/* The smallest n with an interval of the p-th percentile (p50: 6, p90: 36, p99: 368). */
static uint64_t ttft_tpot__ci95_min_n(unsigned p)
{
    uint64_t n, lo, hi;
    for (n = 1; p > 0 && p < 100 && n < 100000; n++)
        if (ttft_tpot_ci95_ranks(n, p, &lo, &hi))
            return n;
    return 0;
}
#endif

TTFT_TPOT_DEF double ttft_tpot_t975(uint64_t df)
{
    static const double table[30] = {
        12.7062047364321, 4.30265272991127, 3.18244630528426, 2.7764451051978,  2.57058183661474,
        2.44691184879168, 2.3646242510103,  2.30600413503337, 2.26215716274099, 2.22813885196494,
        2.20098516008295, 2.17881282966342, 2.16036865646101, 2.14478668791693, 2.13144954555932,
        2.11990529922101, 2.10981557783318, 2.10092204024096, 2.09302405440826, 2.08596344726584,
        2.07961384472766, 2.07387306790401, 2.06865761041904, 2.06389856162802, 2.05953855275329,
        2.05552943864287, 2.05183051648028, 2.04840714179524, 2.0452296421327,  2.04227245630124};
    const double z = 1.959963984540054, z2 = z * z; /* the normal's 97.5th percentile */
    double v = (double)df;
    if (df == 0)
        return 0;
    if (df <= 30)
        return table[df - 1];
    return z + z * (z2 + 1) / 4 / v + z * ((5 * z2 + 16) * z2 + 3) / 96 / (v * v) +
           z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384 / (v * v * v) +
           z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160 / (v * v * v * v);
}

static const unsigned ttft_tpot__pcts[4] = {50, 90, 95, 99};

static void ttft_tpot__set_pcts(ttft_tpot_stats *st, const double *v, const uint64_t *ns)
{
    st->p50_ns = v[0];
    st->p90_ns = v[1];
    st->p95_ns = v[2];
    st->p99_ns = v[3];
    memcpy(st->pct_ns, ns, sizeof st->pct_ns);
}

/* One pass of the radix sort: from[0, n) into to[0, n), stable, by byte `shift / 8`. */
static void ttft_tpot__radix_pass(const uint64_t *from, uint64_t *to, size_t n, unsigned shift)
{
    size_t at[256], i, sum = 0, b;
    memset(at, 0, sizeof at);
    for (i = 0; i < n; i++)
        at[from[i] >> shift & 255u]++;
    for (b = 0; b < 256; b++) { /* counts to the first slot of each byte value */
        size_t k = at[b];
        at[b] = sum;
        sum += k;
    }
    for (i = 0; i < n; i++)
        to[at[from[i] >> shift & 255u]++] = from[i];
}

/* v[0, n) sorted, into v or tmp (room for n): returns which holds them. */
static uint64_t *ttft_tpot__sort_in(uint64_t *v, size_t n, uint64_t *tmp)
{
    uint64_t differ = 0, *from = v, *to = tmp, *t;
    size_t i, k;
    unsigned shift;
    if (n < 32) { /* insertion sort: a pass over 256 counters would cost more */
        for (i = 1; i < n; i++) {
            uint64_t x = v[i];
            for (k = i; k > 0 && v[k - 1] > x; k--)
                v[k] = v[k - 1];
            v[k] = x;
        }
        return v;
    }
    for (i = 1; i < n; i++)
        differ |= v[i] ^ v[0]; /* the bits some value does not share with the first */
    for (shift = 0; shift < 64; shift += 8) {
        if (!(differ >> shift & 255u))
            continue; /* every value has this byte: the pass would not move one */
        ttft_tpot__radix_pass(from, to, n, shift);
        t = from, from = to, to = t;
    }
    return from;
}

TTFT_TPOT_DEF int ttft_tpot_sort(uint64_t *v, size_t n, uint64_t *tmp)
{
    uint64_t *sorted;
    if (n > 0 && (!v || !tmp))
        return TTFT_TPOT_EINVAL;
    if ((sorted = ttft_tpot__sort_in(v, n, tmp)) != v)
        memcpy(v, sorted, n * sizeof *v);
    return TTFT_TPOT_OK;
}

/* Narrowing: a finer log-linear index than the bounded histogram's, 1024 buckets per power of two
   (values under 2048 exact), so the bucket of a rank holds few values. */
#define TTFT_TPOT__FINE_BUCKETS 56320u
#define TTFT_TPOT__NARROW_MIN 4096 /* sets this large are narrowed; smaller ones selected whole */
#define TTFT_TPOT__MAX_RANKS 30    /* a set's order statistics: 4 percentiles x 2, 3 intervals x 2, 8 picks x 2 */

static unsigned ttft_tpot__fine_index(uint64_t v)
{
    unsigned e;
    if (v < 2048)
        return (unsigned)v;
    e = ttft_tpot__log2(v);
    return (e - 10u) * 1024u + (unsigned)(v >> (e - 10u));
}

/* What one pass over a set learns: its 128-bit sum, min and max, and (for a large set) how many of
   its values fall in each fine bucket. */
typedef struct ttft_tpot__scan {
    uint64_t lo, hi, mn, mx;
    size_t n;
} ttft_tpot__scan;

/* Add v to s (s->n counts it). */
static void ttft_tpot__scan_one(ttft_tpot__scan *s, uint64_t v)
{
    if (s->n++ == 0)
        s->mn = s->mx = v;
    s->lo += v;
    s->hi += s->lo < v; /* carry */
    s->mn = v < s->mn ? v : s->mn;
    s->mx = v > s->mx ? v : s->mx;
}

/* Add x[0, n) to s, and to the bucket counters slot (NULL: none). */
static void ttft_tpot__scan_add(ttft_tpot__scan *s, const uint64_t *x, size_t n, uint32_t *slot)
{
    size_t i;
    for (i = 0; i < n; i++) {
        ttft_tpot__scan_one(s, x[i]);
        if (slot)
            slot[ttft_tpot__fine_index(x[i])]++;
    }
}

/* The fine buckets that hold ranks rank[0, nr) (ascending) of a set counted in slot[], merged into
   kept[0, *nk) (ascending, each once). */
static void ttft_tpot__kept_add(const uint32_t *slot, const uint64_t *rank, size_t nr, unsigned *kept, unsigned *nk)
{
    uint64_t cum = 0;
    unsigned b = 0, j, k;
    size_t r;
    for (r = 0; r < nr; r++) {
        for (; cum + slot[b] <= rank[r]; b++)
            cum += slot[b];
        for (j = 0; j < *nk && kept[j] < b; j++)
            continue;
        if (j < *nk && kept[j] == b)
            continue;
        for (k = (*nk)++; k > j; k--)
            kept[k] = kept[k - 1];
        kept[j] = b;
    }
}

/* rank[0, nr) (ascending) of the set counted in slot[] as ranks among the values of the kept buckets
   alone: each less the values below its bucket that lie in buckets not kept. */
static void ttft_tpot__shift_ranks(const uint32_t *slot, const unsigned *kept, unsigned nk, const uint64_t *rank,
                                   size_t nr, uint64_t *shifted)
{
    uint64_t cum = 0, below = 0;
    unsigned b = 0, j = 0;
    size_t r;
    for (r = 0; r < nr; r++) {
        for (; cum + slot[b] <= rank[r]; b++) {
            cum += slot[b];
            for (; j < nk && kept[j] < b; j++)
                continue;
            below += j < nk && kept[j] == b ? 0 : slot[b];
        }
        shifted[r] = rank[r] - below;
    }
}

/* The values of x[from, to) whose bucket is marked, swapped to x[at, ...) (at <= from; what was there
   goes where they were): returns the end of the moved values. mark: the kept buckets' bytes set. */
static size_t ttft_tpot__front(uint64_t *x, size_t from, size_t to, size_t at, const unsigned char *mark)
{
    uint64_t t;
    size_t i;
    for (i = from; i < to; i++)
        if (mark[ttft_tpot__fine_index(x[i])]) {
            t = x[at];
            x[at++] = x[i];
            x[i] = t;
        }
    return at;
}

static void ttft_tpot__mark_kept(unsigned char *mark, const unsigned *kept, unsigned nk, unsigned char on)
{
    unsigned j;
    for (j = 0; j < nk; j++)
        mark[kept[j]] = on;
}

/* Phase's stored values past its first skip (call order), only its steady ones with steady, and only
   those whose bucket is marked with mark (NULL: all), copied to x: returns how many. */
static size_t ttft_tpot__copy_stored(const ttft_tpot *c, int phase, uint64_t skip, int steady,
                                     const unsigned char *mark, uint64_t *x)
{
    uint64_t seen = 0;
    size_t i, f = 0;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if ((int)s->phase == phase && seen++ >= skip && !(steady && s->warmup) &&
            (!mark || mark[ttft_tpot__fine_index(s->dur_ns)]))
            x[f++] = s->dur_ns;
    }
    return f;
}

/* A set whose values were left in the store (not gathered): phase's stored values past its first skip,
   only its steady ones with steady. */
typedef struct ttft_tpot__in_store {
    const ttft_tpot *c;
    int phase, steady;
    uint64_t skip;
} ttft_tpot__in_store;

/* The values of a set whose bucket is marked at the front of x: moved there from x[0, n), or (in) copied
   there from the store. Returns how many. */
static size_t ttft_tpot__front_of(const ttft_tpot__in_store *in, uint64_t *x, size_t n, const unsigned char *mark)
{
    return in ? ttft_tpot__copy_stored(in->c, in->phase, in->skip, in->steady, mark, x)
              : ttft_tpot__front(x, 0, n, 0, mark);
}

/* Scratch of the exact statistics: fine bucket counters and marks; and the percentiles chosen
   (config.percentiles), which every set computes. */
typedef struct ttft_tpot__narrow {
    uint32_t *slot;
    unsigned char *mark; /* all 0 between uses */
    const uint32_t *pick_pm;
    unsigned pick_n;
} ttft_tpot__narrow;

/* The values at ranks rank_val[0, nr) (ascending; their values replace them) of a large set x[0, n) (or
   in the store: in), narrowed: nw->slot (its values' bucket counts) tells the bucket of every rank; the
   values of those buckets are swapped (or copied) to the front of x, and selection runs over them
   alone, each rank shifted down by the values of the buckets left out below it. nw->mark:
   TTFT_TPOT__FINE_BUCKETS bytes, all 0. */
static void ttft_tpot__narrowed_ranks(uint64_t *x, size_t n, const ttft_tpot__in_store *in, const ttft_tpot__narrow *nw,
                                      uint64_t *rank_val, size_t nr)
{
    uint64_t shifted[TTFT_TPOT__MAX_RANKS];
    unsigned kept[TTFT_TPOT__MAX_RANKS], nk = 0;
    size_t m;
    ttft_tpot__kept_add(nw->slot, rank_val, nr, kept, &nk);
    ttft_tpot__shift_ranks(nw->slot, kept, nk, rank_val, nr, shifted);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 1);
    m = ttft_tpot__front_of(in, x, n, nw->mark);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 0);
    ttft_tpot__select_ranks(x, m, shifted, nr, rank_val);
}

static const unsigned ttft_tpot__ci_pcts[3] = {50, 90, 99};

/* The ranks of percentile pm (thousandths of a percent) of n values: (n - 1) pm / 100000 in 128 bits,
   its whole part into rank[0] and the next rank (the last for the maximum) into rank[1]; returns the
   fraction in 100000ths. */
static uint64_t ttft_tpot__pick_ranks(uint64_t n, uint32_t pm, uint64_t *rank)
{
    uint64_t f;
    rank[0] = ttft_tpot__div128(ttft_tpot__mul(n - 1, pm), 100000, &f);
    rank[1] = rank[0] + 1 < n ? rank[0] + 1 : rank[0];
    return f;
}

/* The order statistics a set of n values needs: floor(h) and the next rank of each percentile and
   chosen percentile, each interval's two; rank[0, nr) ascending, who[] says whose each is (2j and 2j + 1
   percentile j's, 8 + 2j and 9 + 2j interval j's, 14 + 2j and 15 + 2j chosen percentile j's); val[]
   their values once selected. */
typedef struct ttft_tpot__ranks {
    uint64_t rank[TTFT_TPOT__MAX_RANKS], val[TTFT_TPOT__MAX_RANKS], f[TTFT_TPOT_MAX_PERCENTILES];
    unsigned who[TTFT_TPOT__MAX_RANKS], nr;
    size_t n;
} ttft_tpot__ranks;

/* The ranks of n values (n > 0) into rk, sorted; which intervals n has into st->has_ci. */
static void ttft_tpot__ranks_of(size_t n, const ttft_tpot__narrow *nw, ttft_tpot_stats *st, ttft_tpot__ranks *rk)
{
    uint64_t lo, hi, t, *rank;
    unsigned *who, nr = 0, i, j, w;
    memset(rk, 0, sizeof *rk);
    rank = rk->rank;
    who = rk->who;
    for (j = 0; j < 4; j++) {
        uint64_t h = (uint64_t)(n - 1) * ttft_tpot__pcts[j];
        rank[nr] = h / 100;
        who[nr++] = 2 * j;
        rank[nr] = h / 100 + 1 < n ? h / 100 + 1 : h / 100;
        who[nr++] = 2 * j + 1;
    }
    for (j = 0; j < 3; j++)
        if ((st->has_ci[j] = ttft_tpot_ci95_ranks(n, ttft_tpot__ci_pcts[j], &lo, &hi)) != 0) {
            rank[nr] = lo - 1;
            who[nr++] = 8 + 2 * j;
            rank[nr] = hi - 1;
            who[nr++] = 9 + 2 * j;
        }
    for (j = 0; j < nw->pick_n; j++) {
        rk->f[j] = ttft_tpot__pick_ranks(n, nw->pick_pm[j], &rank[nr]);
        who[nr] = 14 + 2 * j, who[nr + 1] = 15 + 2 * j;
        nr += 2;
    }
    for (i = 1; i < nr; i++) /* insertion sort of the few ranks, carrying who */
        for (j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
            t = rank[j], rank[j] = rank[j - 1], rank[j - 1] = t;
            w = who[j], who[j] = who[j - 1], who[j - 1] = w;
        }
    rk->nr = nr;
    rk->n = n;
}

/* The percentiles, chosen percentiles and intervals into st, from the values selected at rk's ranks. */
static void ttft_tpot__ranks_to(const ttft_tpot__ranks *rk, const ttft_tpot__narrow *nw, ttft_tpot_stats *st)
{
    uint64_t got[TTFT_TPOT__MAX_RANKS], v_ns[4], n = rk->n;
    double v[4], unused;
    unsigned i, j;
    for (i = 0; i < rk->nr; i++)
        got[rk->who[i]] = rk->val[i];
    for (j = 0; j < 4; j++)
        ttft_tpot__interp(got[2 * (size_t)j], got[2 * (size_t)j + 1], (n - 1) * ttft_tpot__pcts[j] % 100, 100, &v[j],
                          &v_ns[j]);
    ttft_tpot__set_pcts(st, v, v_ns);
    for (j = 0; j < 3; j++)
        if (st->has_ci[j]) {
            st->ci_ns[j][0] = got[8 + 2 * j];
            st->ci_ns[j][1] = got[9 + 2 * j];
        }
    st->pick_n = nw->pick_n;
    for (j = 0; j < nw->pick_n; j++) {
        st->pick_pm[j] = nw->pick_pm[j];
        ttft_tpot__interp(got[14 + 2 * j], got[15 + 2 * j], rk->f[j], 100000, &unused, &st->pick_ns[j]);
    }
}

/* Percentiles, the chosen ones and 95% intervals of x[0, n) (n > 0) into st; x is reordered. Their ranks
   are selected in one sweep. slot: x's bucket counts (narrowing), or NULL. */
static void ttft_tpot__order_stats(uint64_t *x, size_t n, const uint32_t *slot, const ttft_tpot__narrow *nw,
                                   ttft_tpot_stats *st)
{
    ttft_tpot__ranks rk;
    ttft_tpot__ranks_of(n, nw, st, &rk);
    if (slot) {
        memcpy(rk.val, rk.rank, rk.nr * sizeof *rk.val);
        ttft_tpot__narrowed_ranks(x, n, NULL, nw, rk.val, rk.nr);
    } else
        ttft_tpot__select_ranks(x, n, rk.rank, rk.nr, rk.val);
    ttft_tpot__ranks_to(&rk, nw, st);
}

/* The two ranks the p50 of m values (m > 0) lies between into rank; returns its fraction in 100ths. */
static uint64_t ttft_tpot__p50_ranks(size_t m, uint64_t *rank)
{
    uint64_t h = (uint64_t)(m - 1) * 50;
    rank[0] = h / 100;
    rank[1] = h / 100 + 1 < m ? h / 100 + 1 : h / 100;
    return h % 100;
}

/* The p50 of x[0, m) (m > 0; x is reordered), and the same to the ns. */
static void ttft_tpot__p50(uint64_t *x, size_t m, double *v, uint64_t *ns)
{
    uint64_t rank[2], val[2], f = ttft_tpot__p50_ranks(m, rank);
    ttft_tpot__select_ranks(x, m, rank, 2, val);
    ttft_tpot__interp(val[0], val[1], f, 100, v, ns);
}

/* n, min, max, total and mean from a set's scan. */
static void ttft_tpot__scan_to(const ttft_tpot__scan *s, ttft_tpot_stats *st)
{
    st->n = s->n;
    if (s->n == 0)
        return;
    st->min_ns = s->mn;
    st->max_ns = s->mx;
    st->total_ns = (double)s->hi * TTFT_TPOT__TWO64 + (double)s->lo;
    st->mean_ns = st->total_ns / (double)s->n;
}

/* min, max, total, mean, percentiles and intervals of x[0, n) from its scan s (slot: its bucket
   counts, NULL when the set was too small to count); x is reordered. n and tokens are the caller's. */
static void ttft_tpot__finish_scan(uint64_t *x, const ttft_tpot__scan *s, const uint32_t *slot,
                                   const ttft_tpot__narrow *nw, ttft_tpot_stats *st)
{
    ttft_tpot__scan_to(s, st);
    if (s->n)
        ttft_tpot__order_stats(x, s->n, slot, nw, st);
}

/* A set gathered for its statistics: x[0, m), the last warm of them warmup; the phase they are of, or
   (phase -1) the role; pre: the scan of its steady values made while they were gathered (its bucket
   counts in the work's slot), or NULL. */
typedef struct ttft_tpot__gathered {
    uint64_t *x;
    size_t m, warm;
    int phase, role;
    const ttft_tpot__scan *pre;
} ttft_tpot__gathered;

/* The statistics of a large phase's steady values (m - warm of them; s: their scan, slot: their bucket
   counts) into steady, and with its warm ones x[m - warm, m) into st, narrowed in one pass for both: the
   buckets of both sets' ranks are moved to the front of x, the steady values first, then the warm
   ones, and each set selects its ranks there. The steady values are x[0, m - warm), or (in) still in
   the store. s and slot take in the warm values; x is reordered. */
static void ttft_tpot__finish_both(const ttft_tpot__in_store *in, const ttft_tpot__gathered *set, ttft_tpot__scan *s,
                                   const ttft_tpot__narrow *nw, ttft_tpot_stats *steady, ttft_tpot_stats *st)
{
    uint64_t *x = set->x;
    uint32_t *slot = nw->slot;
    size_t m = set->m, warm = set->warm;
    ttft_tpot__ranks a, b; /* steady, all */
    uint64_t sa[TTFT_TPOT__MAX_RANKS], sb[TTFT_TPOT__MAX_RANKS];
    unsigned kept[2 * TTFT_TPOT__MAX_RANKS], nk = 0;
    size_t f, g, i;
    ttft_tpot__scan_to(s, steady);
    ttft_tpot__ranks_of(m - warm, nw, steady, &a);
    ttft_tpot__kept_add(slot, a.rank, a.nr, kept, &nk);
    if (warm) {
        ttft_tpot__scan_add(s, x + m - warm, warm, slot);
        ttft_tpot__scan_to(s, st);
        ttft_tpot__ranks_of(m, nw, st, &b);
        ttft_tpot__kept_add(slot, b.rank, b.nr, kept, &nk);
        ttft_tpot__shift_ranks(slot, kept, nk, b.rank, b.nr, sb);
        for (i = m - warm; i < m; i++) /* slot counts the steady values again */
            slot[ttft_tpot__fine_index(x[i])]--;
    }
    ttft_tpot__shift_ranks(slot, kept, nk, a.rank, a.nr, sa);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 1);
    f = ttft_tpot__front_of(in, x, m - warm, nw->mark);
    g = ttft_tpot__front(x, m - warm, m, f, nw->mark);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 0);
    ttft_tpot__select_ranks(x, f, sa, a.nr, a.val);
    ttft_tpot__ranks_to(&a, nw, steady);
    if (warm) {
        ttft_tpot__select_ranks(x, g, sb, b.nr, b.val);
        ttft_tpot__ranks_to(&b, nw, st);
    }
}

/* MSER-5 (White 1997): where the warmup of a series ends, measured. sum[0, m): the sums of its
   consecutive batches of 5 values (Z_j = sum_j / 5; the argmin does not depend on the scale), as
   doubles: 5 values past 2^62 ns sum past 2^64, which a uint64_t would saturate (a rising series
   read as flat); below 2^53 each sum is exact. For
   d = 0 .. m/2, MSER(d) = sum over j > d of (Z_j - mean of Z_{d+1..m})^2 / (m - d)^2; returns the
   smallest minimiser d*, in batches. The tail's sums are kept from the last batch back, as deviations
   from the last batch (so little cancels), and compared without dividing: with k batches in the
   tail, MSER = (k S2 - S1^2) / k^3. *white: White's rule, the minimiser over every cut that leaves 5
   batches or more (a short series, m < 10: half of them, 2 at least), where it cuts half of them or
   more (the series may keep rising or falling: a queue under a burst rises from its first request to
   its last); else 0. */
static uint64_t ttft_tpot__mser5_cuts(const double *sum, uint64_t m, uint64_t *white)
{
    double s1 = 0, s2 = 0, best = 0, best_k3 = 1, all = 0, all_k3 = 1, shift = m ? sum[m - 1] : 0;
    uint64_t d, k = 0, at = 0, at_all = 0, tail = m / 2 < 5 ? (m / 2 < 2 ? 2 : m / 2) : 5;
    for (d = m; d-- > 0;) { /* the tail Z_{d+1..m} in 1-based terms is sum[d .. m) */
        double z = sum[d] - shift, kk, num;
        k++;
        s1 += z;
        s2 += z * z;
        kk = (double)k;
        num = kk * s2 - s1 * s1;
        num = num > 0 ? num : 0;
        if (d <= m / 2 && (k == m - m / 2 || num * best_k3 <= best * kk * kk * kk)) {
            best = num; /* <=: going back, the last tie is the smallest d */
            best_k3 = kk * kk * kk;
            at = d;
        }
        if (k >= tail && (k == tail || num * all_k3 <= all * kk * kk * kk)) {
            all = num;
            all_k3 = kk * kk * kk;
            at_all = d;
        }
    }
    *white = m >= 4 && 2 * at_all >= m ? at_all : 0;
    return at;
}

/* One side of White's cut: its steady values' range, and their p50's 95% interval where they have one. */
typedef struct ttft_tpot__side {
    size_t n;
    int has_ci;
    uint64_t min, max, lo, hi;
} ttft_tpot__side;

/* x[0, n) (reordered) as a side; a large one narrowed with nw's scratch (NULL: selected whole). */
static void ttft_tpot__side_of(uint64_t *x, size_t n, const ttft_tpot__narrow *nw, ttft_tpot__side *sd)
{
    uint64_t rank[2], val[2];
    int narrow = nw && n >= TTFT_TPOT__NARROW_MIN;
    size_t i;
    if (narrow)
        memset(nw->slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *nw->slot);
    sd->n = n;
    sd->min = UINT64_MAX, sd->max = 0;
    for (i = 0; i < n; i++) {
        sd->min = x[i] < sd->min ? x[i] : sd->min;
        sd->max = x[i] > sd->max ? x[i] : sd->max;
        if (narrow)
            nw->slot[ttft_tpot__fine_index(x[i])]++;
    }
    if ((sd->has_ci = ttft_tpot_ci95_ranks(n, 50, &rank[0], &rank[1])) == 0)
        return;
    rank[0]--, rank[1]--; /* 1-based */
    val[0] = rank[0], val[1] = rank[1];
    if (narrow)
        ttft_tpot__narrowed_ranks(x, n, NULL, nw, val, 2);
    else
        ttft_tpot__select_ranks(x, n, rank, 2, val);
    sd->lo = val[0], sd->hi = val[1];
}

/* Whether the level moved across White's cut (METRICS): the two p50 intervals are disjoint; where a
   side has none, the two ranges are (every value of one side beyond every value of the other). An
   empty side: no. */
static int ttft_tpot__apart(const ttft_tpot__side *a, const ttft_tpot__side *b)
{
    if (!a->n || !b->n)
        return 0;
    if (a->has_ci && b->has_ci)
        return a->hi < b->lo || b->hi < a->lo;
    return a->max < b->min || b->max < a->min;
}

/* The two sides of a series' White's cut (ttft_tpot__apart): x[0, n) its steady values in order, the
   first k of them before the cut; x is reordered. nw: as ttft_tpot__side_of. */
static int ttft_tpot__moves(uint64_t *x, size_t n, size_t k, const ttft_tpot__narrow *nw)
{
    ttft_tpot__side a, b;
    ttft_tpot__side_of(x, k, nw, &a);
    ttft_tpot__side_of(x + k, n - k, nw, &b);
    return ttft_tpot__apart(&a, &b);
}

/* Isolated spikes (METRICS), found in one pass over a series: ttft_tpot__spot_start, each value in
   order (ttft_tpot__spot), then ttft_tpot__spot_end. A value above the limit is judged once its right
   neighbour is seen; the rest cost a comparison. Each spike is replaced by the p50 in the series'
   batch sums sum[0, m) (MSER-5's), so that White's rule can be asked again without it. */
typedef struct ttft_tpot__spotter {
    uint64_t p50, limit, n; /* the series' steady p50, twice it (UINT64_MAX past 2^64); values seen */
    uint64_t v;             /* the last value, where it is above the limit */
    int high, left_high, steady; /* the last value is above it; the one before it; the last is steady */
    double *sum;
    uint64_t m;
} ttft_tpot__spotter;

static void ttft_tpot__spot_start(ttft_tpot__spotter *sp, uint64_t p50, double *sum, uint64_t m)
{
    memset(sp, 0, sizeof *sp);
    sp->p50 = p50;
    sp->limit = p50 <= UINT64_MAX / 2 ? 2 * p50 : UINT64_MAX;
    sp->sum = sum, sp->m = m;
}

/* The last value, above the limit, with its right neighbour above it or not. */
static void ttft_tpot__spot_judge(ttft_tpot__spotter *sp, ttft_tpot_steady_state *ss, int right_high)
{
    uint64_t at = sp->n - 1;
    if (!sp->steady || sp->left_high || right_high)
        return;
    if (ss->spikes < TTFT_TPOT_SPIKES_LISTED) {
        ss->spike_step[ss->spikes] = at;
        ss->spike_ns[ss->spikes] = sp->v;
    }
    ss->spikes++;
    if (at / 5 < sp->m)
        sp->sum[at / 5] = sp->sum[at / 5] - (double)sp->v + (double)sp->p50;
}

static void ttft_tpot__spot(ttft_tpot__spotter *sp, ttft_tpot_steady_state *ss, uint64_t v, int steady)
{
    int high = v > sp->limit;
    if (high | sp->high) { /* else the state is what it was: nothing above the limit nearby */
        if (sp->high)
            ttft_tpot__spot_judge(sp, ss, high);
        sp->left_high = sp->high;
        sp->high = high, sp->steady = steady, sp->v = v;
    }
    sp->n++;
}

static void ttft_tpot__spot_end(ttft_tpot__spotter *sp, ttft_tpot_steady_state *ss)
{
    if (sp->high)
        ttft_tpot__spot_judge(sp, ss, 0);
}

/* The statistics of x[0, n), reordered (ttft_tpot__finish). */
static void ttft_tpot__fill(uint64_t *x, size_t n, const ttft_tpot__narrow *nw, ttft_tpot_stats *st)
{
    ttft_tpot__scan s;
    uint32_t *slot = n >= TTFT_TPOT__NARROW_MIN ? nw->slot : NULL; /* none for small sets */
    memset(&s, 0, sizeof s);
    if (slot)
        memset(slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *slot);
    ttft_tpot__scan_add(&s, x, n, slot);
    ttft_tpot__finish_scan(x, &s, slot, nw, st);
}

/* The values histogram bucket i holds, [*lo, *hi]: the inverse of ttft_tpot__hist_index. */
static void ttft_tpot__bucket_range(unsigned i, uint64_t *lo, uint64_t *hi)
{
    unsigned e = i / 64 + 5;
    *lo = i < 128 ? i : (uint64_t)(i % 64 + 64) << (e - 6);
    *hi = i < 128 ? i : *lo + (((uint64_t)1 << (e - 6)) - 1);
}

/* Read the k-th smallest value of a histogram back as its bucket's midpoint. */
static double ttft_tpot__hist_rank(const ttft_tpot_hist *h, uint64_t k)
{
    uint64_t seen = 0, lo, hi;
    double mid;
    unsigned i;
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS - 1; i++) {
        seen += h->counts[i];
        if (seen > k)
            break;
    }
    ttft_tpot__bucket_range(i, &lo, &hi);
    mid = (double)lo + (double)(hi - lo) / 2.0;
    mid = mid < (double)h->min_ns ? (double)h->min_ns : mid;
    return mid > (double)h->max_ns ? (double)h->max_ns : mid;
}

/* A non-negative double below 2^64, to the nearest integer. */
static uint64_t ttft_tpot__round_ns(double v)
{
    return v + 0.5 < TTFT_TPOT__TWO64 ? (uint64_t)(v + 0.5) : UINT64_MAX;
}

/* The percentile pm (thousandths of a percent) of a histogram of n values, for any count. */
static double ttft_tpot__hist_pct(const ttft_tpot_hist *h, uint64_t n, uint32_t pm)
{
    uint64_t rank[2], f = ttft_tpot__pick_ranks(n, pm, rank);
    double v;
    v = ttft_tpot__hist_rank(h, rank[0]);
    return f ? v + (double)f / 100000.0 * (ttft_tpot__hist_rank(h, rank[1]) - v) : v;
}

/* What a histogram may hold when it is read from a trace or merged: 2^63 values and tokens, so that
   recording into it cannot pass 2^64 (2^63 more samples take centuries). */
#define TTFT_TPOT__HIST_MAX ((uint64_t)1 << 63)

/* Whether a histogram of n values and tokens can take n_add more values with tokens_add tokens. */
static int ttft_tpot__hist_room(uint64_t n, uint64_t tokens, uint64_t n_add, uint64_t tokens_add)
{
    return n <= TTFT_TPOT__HIST_MAX && n_add <= TTFT_TPOT__HIST_MAX - n && tokens <= TTFT_TPOT__HIST_MAX &&
           tokens_add <= TTFT_TPOT__HIST_MAX - tokens;
}

/* The values a histogram holds. */
static uint64_t ttft_tpot__hist_count(const ttft_tpot_hist *h)
{
    uint64_t n = 0;
    unsigned i;
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS; i++)
        n += h->counts[i];
    return n;
}

static void ttft_tpot__hist_fill(const ttft_tpot_hist *h, const ttft_tpot__narrow *nw, ttft_tpot_stats *st)
{
    unsigned i;
    st->n = ttft_tpot__hist_count(h);
    st->approx = 1;
    if (st->n == 0)
        return;
    st->min_ns = h->min_ns;
    st->max_ns = h->max_ns;
    st->total_ns = (double)h->sum_hi * TTFT_TPOT__TWO64 + (double)h->sum_lo;
    st->mean_ns = st->total_ns / (double)st->n;
    st->p50_ns = ttft_tpot__hist_pct(h, st->n, 50000);
    st->p90_ns = ttft_tpot__hist_pct(h, st->n, 90000);
    st->p95_ns = ttft_tpot__hist_pct(h, st->n, 95000);
    st->p99_ns = ttft_tpot__hist_pct(h, st->n, 99000);
    st->pick_n = nw->pick_n;
    for (i = 0; i < nw->pick_n; i++) {
        st->pick_pm[i] = nw->pick_pm[i];
        st->pick_ns[i] = ttft_tpot__round_ns(ttft_tpot__hist_pct(h, st->n, nw->pick_pm[i]));
    }
    st->pct_ns[0] = ttft_tpot__round_ns(st->p50_ns);
    st->pct_ns[1] = ttft_tpot__round_ns(st->p90_ns);
    st->pct_ns[2] = ttft_tpot__round_ns(st->p95_ns);
    st->pct_ns[3] = ttft_tpot__round_ns(st->p99_ns);
    for (i = 0; i < 3; i++) { /* the intervals' order statistics, read back as the rest are */
        uint64_t lo, hi;
        if ((st->has_ci[i] = ttft_tpot_ci95_ranks(st->n, ttft_tpot__ci_pcts[i], &lo, &hi)) != 0) {
            st->ci_ns[i][0] = ttft_tpot__round_ns(ttft_tpot__hist_rank(h, lo - 1));
            st->ci_ns[i][1] = ttft_tpot__round_ns(ttft_tpot__hist_rank(h, hi - 1));
        }
    }
}

static void ttft_tpot__narrow_free(const ttft_tpot *c, ttft_tpot__narrow *nw)
{
    if (nw->slot)
        TTFT_TPOT_FREE(nw->slot, c->alloc_user);
    if (nw->mark)
        TTFT_TPOT_FREE(nw->mark, c->alloc_user);
    nw->slot = NULL;
    nw->mark = NULL;
}

/* The narrowing scratch, for sets of up to n values: none when they are too small to narrow. */
static int ttft_tpot__narrow_init(const ttft_tpot *c, ttft_tpot__narrow *nw, size_t n)
{
    nw->slot = NULL;
    nw->mark = NULL;
    nw->pick_pm = c->pick_pm;
    nw->pick_n = c->pick_n;
    if (n < TTFT_TPOT__NARROW_MIN)
        return TTFT_TPOT_OK;
    nw->slot = (uint32_t *)TTFT_TPOT_MALLOC(TTFT_TPOT__FINE_BUCKETS * sizeof *nw->slot, c->alloc_user);
    nw->mark = (unsigned char *)TTFT_TPOT_MALLOC(TTFT_TPOT__FINE_BUCKETS, c->alloc_user);
    if (!nw->slot || !nw->mark) {
        ttft_tpot__narrow_free(c, nw);
        return TTFT_TPOT_ENOMEM;
    }
    memset(nw->mark, 0, TTFT_TPOT__FINE_BUCKETS);
    return TTFT_TPOT_OK;
}

/* Working memory of the statistics, taken once for a whole report: room for cap durations (the
   largest set), the narrowing scratch, and a histogram for sets that take in a bounded phase (only
   when the collector has one). */
typedef struct ttft_tpot__work {
    uint64_t *x;
    size_t cap;
    ttft_tpot__narrow nw;
    ttft_tpot_hist *h;
} ttft_tpot__work;

static void ttft_tpot__work_free(const ttft_tpot *c, ttft_tpot__work *w)
{
    if (w->x)
        TTFT_TPOT_FREE(w->x, c->alloc_user);
    ttft_tpot__narrow_free(c, &w->nw);
    if (w->h)
        TTFT_TPOT_FREE(w->h, c->alloc_user);
}

static int ttft_tpot__work_init(const ttft_tpot *c, ttft_tpot__work *w, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->cap = cap;
    w->x = (uint64_t *)TTFT_TPOT_MALLOC((cap ? cap : 1) * sizeof(uint64_t), c->alloc_user);
    w->h = c->hist.n ? (ttft_tpot_hist *)TTFT_TPOT_MALLOC(sizeof(ttft_tpot_hist), c->alloc_user) : NULL;
    if (!w->x || (c->hist.n && !w->h) || ttft_tpot__narrow_init(c, &w->nw, cap) != TTFT_TPOT_OK) {
        ttft_tpot__work_free(c, w);
        return TTFT_TPOT_ENOMEM;
    }
    return TTFT_TPOT_OK;
}

/* The bounded phases' histograms a set takes in, merged into w->h: phase's own (phase >= 0), or
   every phase's of role. 0 when none holds a sample. */
static int ttft_tpot__set_hists(const ttft_tpot *c, ttft_tpot__work *w, int phase, int role)
{
    unsigned p = phase >= 0 ? (unsigned)phase : 0, end = phase >= 0 ? p + 1 : c->phase.n;
    int merged = 0;
    for (; p < end; p++) {
        const ttft_tpot_hist *h = c->phase.slots[p].hist;
        if (!h || h->max_ns < h->min_ns || (phase < 0 && c->phase.slots[p].role != role))
            continue;
        if (!merged)
            ttft_tpot__hist_reset(w->h);
        merged = 1;
        ttft_tpot__hist_merge(w->h, h);
    }
    return merged;
}

/* Statistics of x[0, m) together with the bounded phases' histograms that match (phase, or role when
   phase < 0): exact by selection when no histogram takes part. tokens and warmup_n of the stored
   samples are already in st. */
static void ttft_tpot__finish_set(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot__gathered *g,
                                  ttft_tpot_stats *st)
{
    size_t i;
    if (!ttft_tpot__set_hists(c, w, g->phase, g->role)) {
        ttft_tpot__fill(g->x, g->m, &w->nw, st);
        return;
    }
    st->tokens += w->h->tokens;
    for (i = 0; i < g->m; i++)
        ttft_tpot__hist_add(w->h, g->x[i], 0);
    ttft_tpot__hist_fill(w->h, &w->nw, st);
}

#ifndef TTFT_TPOT_NO_STDIO /* the writers' */
/* A chosen percentile's name, pm in thousandths of a percent: 99900 is "p99.9", 50000 "p50", into buf (8
   bytes hold any; fewer: cut short, still ended). */
static const char *ttft_tpot__percentile_name(char *buf, size_t len, uint32_t pm)
{
    char t[8];
    unsigned whole = pm / 1000 % 100, frac = pm % 1000, digits = 3, k;
    size_t n = 0;
    t[n++] = 'p';
    if (whole >= 10)
        t[n++] = (char)('0' + whole / 10);
    t[n++] = (char)('0' + whole % 10);
    while (frac && frac % 10 == 0) /* 99.900 is 99.9 */
        frac /= 10, digits--;
    if (frac) {
        t[n++] = '.';
        for (k = digits; k > 0; k--, frac /= 10)
            t[n + k - 1] = (char)('0' + frac % 10);
        n += digits;
    }
    if (!buf || len == 0)
        return buf;
    n = n < len - 1 ? n : len - 1;
    memcpy(buf, t, n);
    buf[n] = '\0';
    return buf;
}
#endif

/* ---- Phases and warmup ----------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO /* the writers' */
/* A role's name (TTFT_TPOT_ROLES), or "?" when unknown. */
static const char *ttft_tpot__role_name(int role)
{
#define TTFT_TPOT__ROLE_NAME(name, value, text) text,
    static const char *const names[] = {TTFT_TPOT_ROLES(TTFT_TPOT__ROLE_NAME)};
#undef TTFT_TPOT__ROLE_NAME
    return role >= 0 && role < 4 ? names[role] : "?";
}
#endif

static int ttft_tpot__lookup(const ttft_tpot *c, const char *name, size_t len)
{
    uint32_t i = ttft_tpot__probe(c, name, len);
    return c->phase.index[i] ? (int)(c->phase.index[i] & TTFT_TPOT__IDX_NUM) - 1 : TTFT_TPOT_EPHASE;
}

/* Index phases [from, n): after an add, or to rebuild the index after a rollback. */
static void ttft_tpot__phase_index(ttft_tpot *c, unsigned from)
{
    unsigned p;
    if (from == 0)
        memset(c->phase.index, 0, ((size_t)c->phase.mask + 1) * sizeof *c->phase.index);
    for (p = from; p < c->phase.n; p++)
        ttft_tpot__index_put(c, p);
}

static int ttft_tpot__add_phase(ttft_tpot *c, const char *name, size_t len, int role)
{
    ttft_tpot__phase_slot *p;
    int id;
    if (role < 0 || role > 3)
        return TTFT_TPOT_EINVAL;
    if (len == 0 || len >= TTFT_TPOT_NAME_MAX)
        return TTFT_TPOT_ENAME;
    id = ttft_tpot__lookup(c, name, len); /* a name found is valid: it was checked when added */
    if (id >= 0)
        return c->phase.slots[id].role == role ? id : TTFT_TPOT_EROLE;
    if (!ttft_tpot__name_ok(name, len))
        return TTFT_TPOT_ENAME;
    if (c->phase.n >= c->phase.max)
        return TTFT_TPOT_EPHASE;
    p = &c->phase.slots[c->phase.n];
    memset(p, 0, sizeof *p);
    memcpy(p->name, name, len);
    p->role = role;
    p->default_tokens = role == TTFT_TPOT_ROLE_PREFILL || role == TTFT_TPOT_ROLE_DECODE;
    p->fresh = 1;
    p->first_at = SIZE_MAX;
    if (c->hist.bounded && c->hist.n < c->hist.max) { /* slots are as many as phases when bounded */
        p->hist = &c->hist.pool[c->hist.n++];
        ttft_tpot__hist_reset(p->hist);
    }
    p->fast_cap = 0; /* the first call takes the slow path, which opens the inline one */
    p->watched = c->layer && c->layer->sample && role <= TTFT_TPOT_ROLE_DECODE;
    ttft_tpot__phase_index(c, c->phase.n++);
    return (int)c->phase.n - 1;
}

/* The phase has been called: its next sample is not a first call, and an exact phase of a collector
   without start times stores inline from now on. */
static void ttft_tpot__phase_called(const ttft_tpot *c, ttft_tpot__phase_slot *p)
{
    p->fresh = 0;
    p->fast_cap = p->hist || p->watched || c->store.starts || c->store.seqs ? 0 : c->store.capacity;
}

TTFT_TPOT_DEF int ttft_tpot_phase_bounded(ttft_tpot *c, int phase)
{
    ttft_tpot__phase_slot *p;
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (phase < 0 || (unsigned)phase >= c->phase.n)
        return TTFT_TPOT_EPHASE;
    p = &c->phase.slots[phase];
    if (p->hist)
        return TTFT_TPOT_OK;
    if (c->hist.n >= c->hist.max)
        return TTFT_TPOT_ENOMEM;
    p->hist = &c->hist.pool[c->hist.n++];
    ttft_tpot__hist_reset(p->hist);
    p->fast_cap = 0;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_phase(ttft_tpot *c, const char *name, ttft_tpot_role role)
{
    if (!c || !name || !c->phase.slots)
        return TTFT_TPOT_EINVAL;
    return ttft_tpot__add_phase(c, name, strlen(name), (int)role);
}

TTFT_TPOT_DEF int ttft_tpot_warmup_begin(ttft_tpot *c)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    c->warmup_depth++;
    c->warm_all = 1;
    if (c->layer)
        c->layer->warmup = 1;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_warmup_end(ttft_tpot *c)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (c->warmup_depth == 0) {
        c->rejected += c->refusal;
        return TTFT_TPOT_ESTATE;
    }
    c->warmup_depth--;
    c->warm_all = c->warmup_depth != 0;
    if (c->layer)
        c->layer->warmup = c->warm_all;
    return TTFT_TPOT_OK;
}

/* Where (phase, key) sits in the shape table: its slot, or the empty one that ends its probe. Keyed
   like names and ids (a driver may take its keys from clients' request shapes). */
static uint32_t ttft_tpot__shape_slot(const ttft_tpot *c, int phase, uint64_t key)
{
    uint32_t i = (uint32_t)ttft_tpot__siphash_pair(c->key, key, (uint64_t)(unsigned)phase) & c->shape.mask;
    for (; c->shape.phases[i]; i = (i + 1) & c->shape.mask)
        if (c->shape.phases[i] == (uint32_t)phase + 1 && c->shape.keys[i] == key)
            break;
    return i;
}

/* Remember (phase, key) in slot i, the empty one that ended its probe. */
static void ttft_tpot__shape_put(ttft_tpot *c, uint32_t i, int phase, uint64_t key)
{
    c->shape.phases[i] = (uint32_t)phase + 1;
    c->shape.keys[i] = key;
    c->shape.n++;
}

/* Whether (*phase, key) is new, remembering it; a full table remembers nothing more. A key with a
   row of its own (ttft_tpot_shape_row) is not new: *phase becomes its row, whose first call is. */
static int ttft_tpot__shape_new(ttft_tpot *c, int *phase, uint64_t key)
{
    uint32_t i = ttft_tpot__shape_slot(c, *phase, key);
    if (c->shape.phases[i]) {
        *phase = c->shape.rows[i] ? (int)c->shape.rows[i] - 1 : *phase;
        return 0;
    }
    if (c->shape.n == c->shape.max) {
        c->shape.dropped++;
        return 0;
    }
    ttft_tpot__shape_put(c, i, *phase, key);
    return 1;
}

TTFT_TPOT_DEF int ttft_tpot_shape_row(ttft_tpot *c, int phase, uint64_t key, const char *name)
{
    char row[TTFT_TPOT_NAME_MAX];
    size_t base, len;
    uint32_t i;
    int id;
    if (!c || !name || !c->phase.slots)
        return TTFT_TPOT_EINVAL;
    if (phase < 0 || (unsigned)phase >= c->phase.n)
        return TTFT_TPOT_EPHASE;
    base = strlen(c->phase.slots[phase].name);
    len = strlen(name);
    if (len == 0 || base + len + 2 >= sizeof row)
        return TTFT_TPOT_ENAME;
    memcpy(row, c->phase.slots[phase].name, base); /* "PHASE[NAME]" */
    row[base] = '[';
    memcpy(row + base + 1, name, len);
    row[base + len + 1] = ']';
    i = ttft_tpot__shape_slot(c, phase, key);
    if (!c->shape.phases[i] && c->shape.n == c->shape.max)
        return TTFT_TPOT_EFULL;
    if ((id = ttft_tpot__add_phase(c, row, base + len + 2, c->phase.slots[phase].role)) < 0)
        return id;
    if (!c->shape.phases[i]) /* known from now on: the row's own first call is its warmup */
        ttft_tpot__shape_put(c, i, phase, key);
    c->shape.rows[i] = (uint32_t)id + 1;
    return id;
}

/* Add src's phases to dst (found by name, or added), with their histograms and first-call state;
   map[p] is then dst's id of src's phase p, and called[p] 1 when dst had called it before (src's first
   call is then not the first of the whole). The caller has checked that everything fits. */
static void ttft_tpot__phases_merge(ttft_tpot *dst, const ttft_tpot *src, int *map, unsigned char *called)
{
    unsigned p, k;
    for (p = 0; p < src->phase.n; p++) {
        const ttft_tpot__phase_slot *sp = &src->phase.slots[p];
        int id = ttft_tpot__add_phase(dst, sp->name, strlen(sp->name), sp->role);
        TTFT_TPOT_ASSERT(id >= 0); /* planned */
        if (sp->hist && sp->hist->max_ns >= sp->hist->min_ns) {
            ttft_tpot_phase_bounded(dst, id);
            ttft_tpot__hist_merge(dst->phase.slots[id].hist, sp->hist);
        }
        called[p] = !dst->phase.slots[id].fresh;
        if (!sp->fresh && dst->phase.slots[id].fresh) {
            ttft_tpot__phase_called(dst, &dst->phase.slots[id]);
            dst->phase.slots[id].first_at = SIZE_MAX; /* the sample's place: ttft_tpot__store_merge */
        }
        for (k = 0; k < 3; k++)
            dst->phase.slots[id].prompt[k] += sp->prompt[k];
        map[p] = id;
    }
}

/* ---- Storage --------------------------------------------------------------------------------- */

/* The rest of a sample stored at i out of line: its start time (where start times are kept), no
   sequences yet. */
static void ttft_tpot__store_start(ttft_tpot__store *st, size_t i, uint64_t start)
{
    if (st->starts)
        st->starts[i] = start;
    if (st->seqs)
        st->seqs[i] = 0;
}

/* Where a sample goes: the one policy of recording (ttft_tpot__keep) and of the trace reader, which
   stages its samples and slots past the collector's (staged, slots_staged) until the read succeeds.
   Stored while the storage has room (the reserve past the capacity takes warmup samples only); past
   it, a steady sample goes on in its phase's histogram, and a phase without one takes a free slot (it
   outgrew the storage: its percentiles become approximate); otherwise it is dropped. */
enum { TTFT_TPOT__TO_STORE, TTFT_TPOT__TO_HIST, TTFT_TPOT__TO_OUTGROW, TTFT_TPOT__TO_DROP };
static int ttft_tpot__keep_where(const ttft_tpot *c, int phase, int warm, size_t staged, unsigned slots_staged)
{
    if (c->store.n + staged < c->store.capacity + (warm ? c->store.reserve : 0))
        return TTFT_TPOT__TO_STORE;
    if (warm)
        return TTFT_TPOT__TO_DROP;
    if (c->phase.slots[phase].hist)
        return TTFT_TPOT__TO_HIST;
    return c->hist.n + slots_staged < c->hist.max ? TTFT_TPOT__TO_OUTGROW : TTFT_TPOT__TO_DROP;
}

/* Keep a sample where ttft_tpot__keep_where says. OK or EFULL (dropped: counted). */
static int ttft_tpot__keep(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint32_t tokens, int warm)
{
    ttft_tpot__phase_slot *p = &c->phase.slots[phase];
    switch (ttft_tpot__keep_where(c, phase, warm, 0, 0)) {
    case TTFT_TPOT__TO_STORE:
        ttft_tpot__store_put(&c->store, c->store.n, phase, dur, tokens, warm);
        ttft_tpot__store_start(&c->store, c->store.n++, start);
        return TTFT_TPOT_OK;
    case TTFT_TPOT__TO_OUTGROW:
        ttft_tpot_phase_bounded(c, phase); /* a slot is free: it takes one */
        p->outgrown = 1;
        c->store.outgrown++;
        /* fall through */
    case TTFT_TPOT__TO_HIST:
        ttft_tpot__hist_add(p->hist, dur, tokens);
        return TTFT_TPOT_OK;
    default:
        c->store.dropped++;
        return TTFT_TPOT_EFULL;
    }
}

/* A recorded step's sequences: kept with its stored sample, or, for a step of several tokens a
   sequence, counted where they cannot be (no config.sequences, or in a histogram). */
static void ttft_tpot__sequences_keep(ttft_tpot *c, size_t before, uint64_t hist_before, int phase,
                                      uint32_t sequences, int multi)
{
    const ttft_tpot_hist *h = c->phase.slots[phase].hist; /* the phase may have outgrown the storage now */
    if (c->store.n > before && c->store.seqs)
        c->store.seqs[before] = sequences;
    else if (c->store.n > before)
        c->store.seq_lost += multi != 0;
    else if (h && ttft_tpot__hist_count(h) > hist_before)
        c->store.seq_hist += multi != 0;
}

/* The last run ends at stored sample at, if it is open: a trace read and a merge close it before
   their samples and after them, so that the runs of one stay their own. */
static void ttft_tpot__run_close(ttft_tpot *c, size_t at)
{
    if (c->runs && c->run_end[c->runs - 1] == SIZE_MAX)
        c->run_end[c->runs - 1] = at;
}

/* A run beginning at stored sample at, which ends the one before: OK, or EFULL (counted: its samples
   join the last run while that is open). */
static int ttft_tpot__run_mark(ttft_tpot *c, size_t at)
{
    if (c->runs == TTFT_TPOT_MAX_RUNS) {
        c->runs_dropped++;
        return TTFT_TPOT_EFULL;
    }
    ttft_tpot__run_close(c, at);
    c->run_at[c->runs] = at;
    c->run_end[c->runs++] = SIZE_MAX;
    return TTFT_TPOT_OK;
}

/* Where run r ends: the sample after it. */
static size_t ttft_tpot__run_end(const ttft_tpot *c, unsigned r)
{
    return c->run_end[r] == SIZE_MAX ? c->store.n : c->run_end[r];
}

/* Append src's samples, their phases renumbered by map; what does not fit is counted, and so is
   what src dropped. src's runs begin and end in dst where src's samples land; dst's open run ends
   where they begin, and src's last run where they end. where[i]: src's sample i's index + 1 in dst,
   0 when it was not stored (past the capacity a warmup may take the reserve while a steady sample
   before it went on in a histogram, so the two numberings part). */
static void ttft_tpot__store_merge(ttft_tpot *dst, const ttft_tpot *src, const int *map,
                                   const unsigned char *called, size_t *where)
{
    const ttft_tpot__store *st = &src->store;
    ttft_tpot__phase_slot *p;
    size_t i, n;
    uint64_t hist;
    uint32_t q;
    unsigned r = 0;
    int first;
    ttft_tpot__run_close(dst, dst->store.n);
    for (i = 0; i <= st->n; i++) {
        const ttft_tpot_sample *x;
        if (r > 0 && ttft_tpot__run_end(src, r - 1) == i)
            ttft_tpot__run_close(dst, dst->store.n);
        for (; r < src->runs && src->run_at[r] == i; r++)
            (void)ttft_tpot__run_mark(dst, dst->store.n);
        if (i == st->n)
            break;
        x = &st->samples[i];
        p = &dst->phase.slots[map[x->phase]];
        first = i == src->phase.slots[x->phase].first_at; /* warmup for being src's first call alone */
        q = st->seqs ? st->seqs[i] : 0;
        if (first && called[x->phase] && p->hist) { /* not the whole's first: steady, in the histogram */
            ttft_tpot__hist_add(p->hist, x->dur_ns, x->tokens);
            dst->store.seq_hist += q && q != x->tokens;
            where[i] = 0;
            continue;
        }
        n = dst->store.n;
        hist = p->hist ? ttft_tpot__hist_count(p->hist) : 0;
        (void)ttft_tpot__keep(dst, map[x->phase], st->starts ? st->starts[i] : 0, x->dur_ns, x->tokens,
                              first && called[x->phase] ? 0 : x->warmup);
        if (q)
            ttft_tpot__sequences_keep(dst, n, hist, map[x->phase], q, q != x->tokens);
        where[i] = dst->store.n != n ? dst->store.n : 0;
        if (first && !called[x->phase]) /* the whole's first call: where it lies now */
            p->first_at = where[i] ? n : SIZE_MAX;
    }
    ttft_tpot__run_close(dst, dst->store.n);
    dst->store.dropped += st->dropped;
    dst->store.outgrown += st->outgrown;
    dst->store.seq_lost += st->seq_lost;
    dst->store.seq_hist += st->seq_hist;
}

/* ---- Device time ----------------------------------------------------------------------------- */

/* A device time this long is no measurement (146 years): refused, so that sums of two stay exact. */
#define TTFT_TPOT__DEVICE_MAX_NS (((uint64_t)1 << 62) - 1)

/* A sample's device time (a sum of intervals, or of its kernels') is held here, and counted. */
#define TTFT_TPOT__DEVICE_SUM_MAX (((uint64_t)1 << 63) - 2)

/* *n += k, held at UINT64_MAX: a count of losses read from traces cannot wrap to a small one. */
static void ttft_tpot__device_count(uint64_t *n, uint64_t k)
{
    *n = *n + k < *n ? UINT64_MAX : *n + k;
}

/* A ticket: the epoch in the high 32 bits, the interval's index + 1 in the low, so that 0 is none. */
static uint64_t ttft_tpot__ticket_of(const ttft_tpot *c, size_t i)
{
    return (uint64_t)c->dev.epoch << 32 | (uint64_t)(i + 1);
}

/* The interval a ticket names in this epoch, or NULL. */
static ttft_tpot_device_interval *ttft_tpot__ticket_at(ttft_tpot *c, uint64_t ticket)
{
    uint64_t i = (ticket & 0xFFFFFFFFu) - 1;
    if ((ticket >> 32) != c->dev.epoch || (ticket & 0xFFFFFFFFu) == 0 || i >= c->dev.n)
        return NULL;
    return &c->dev.log[i];
}

/* Open a ticket for the sample just kept (sample: its index + 1, 0 none): the ticket, or 0 when there
   is no room (counted as device_unresolved). */
static uint64_t ttft_tpot__device_open(ttft_tpot *c, int phase, uint64_t sample, uint64_t issue, uint32_t stream,
                                       int warm)
{
    ttft_tpot_device_interval *d;
    if (c->dev.n >= c->dev.max || c->dev.open >= c->dev.max_open) {
        ttft_tpot__device_count(&c->dev.unresolved, 1);
        return 0;
    }
    d = &c->dev.log[c->dev.n];
    memset(d, 0, sizeof *d);
    d->sample = sample;
    d->issue_ns = issue;
    d->phase = (uint32_t)phase;
    d->stream = stream;
    d->state = TTFT_TPOT_DEVICE_OPEN;
    d->warmup = (uint8_t)(warm != 0);
    c->dev.open++;
    return ttft_tpot__ticket_of(c, c->dev.n++);
}

/* A device clock reading on the host clock: host = pair.host + (x - pair.device). OK, ERANGE (outside
   the host clock). */
static int ttft_tpot__map_device(const ttft_tpot_clock_pair *pair, uint64_t x, uint64_t *host)
{
    uint64_t off;
    if (x >= pair->device_ns) {
        off = x - pair->device_ns;
        if (off > UINT64_MAX - pair->host_ns)
            return TTFT_TPOT_ERANGE;
        *host = pair->host_ns + off;
        return TTFT_TPOT_OK;
    }
    off = pair->device_ns - x;
    if (off >= pair->host_ns)
        return TTFT_TPOT_ERANGE;
    *host = pair->host_ns - off;
    return TTFT_TPOT_OK;
}

/* A stamp's device time, and its begin and queued stamp on the host clock (0 for the elapsed form,
   and queued 0 without one): OK, ERANGE, EINVAL. */
static int ttft_tpot__stamp_times(const ttft_tpot_device_stamp *st, const ttft_tpot_clock_pair *pair,
                                  uint64_t *dev, uint64_t *begin, uint64_t *queued)
{
    *begin = *queued = 0;
    if (!st->absolute) {
        *dev = st->elapsed_ns;
        return st->queued_ns ? TTFT_TPOT_EINVAL : *dev > TTFT_TPOT__DEVICE_MAX_NS ? TTFT_TPOT_ERANGE : TTFT_TPOT_OK;
    }
    if (!pair)
        return TTFT_TPOT_EINVAL;
    if (st->end_ns < st->begin_ns || st->end_ns - st->begin_ns > TTFT_TPOT__DEVICE_MAX_NS ||
        st->queued_ns > st->begin_ns)
        return TTFT_TPOT_ERANGE;
    *dev = st->end_ns - st->begin_ns;
    if (st->queued_ns && ttft_tpot__map_device(pair, st->queued_ns, queued) != TTFT_TPOT_OK)
        return TTFT_TPOT_ERANGE;
    return ttft_tpot__map_device(pair, st->begin_ns, begin);
}

/* Resolve one interval with a stamp: OK, or the refusal (nothing changed). */
static int ttft_tpot__device_apply(ttft_tpot *c, const ttft_tpot_device_stamp *st, const ttft_tpot_clock_pair *pair)
{
    ttft_tpot_device_interval *d;
    uint64_t dev, begin, queued;
    int rc;
    if (st->ticket == 0)
        return TTFT_TPOT_OK;
    if (!(d = ttft_tpot__ticket_at(c, st->ticket)) || d->state != TTFT_TPOT_DEVICE_OPEN)
        return TTFT_TPOT_ETICKET;
    if ((rc = ttft_tpot__stamp_times(st, pair, &dev, &begin, &queued)) != TTFT_TPOT_OK)
        return rc;
    d->device_ns = dev;
    d->begin_ns = begin;
    d->queued_ns = queued;
    d->state = (uint8_t)(st->absolute ? TTFT_TPOT_DEVICE_ABSOLUTE : TTFT_TPOT_DEVICE_ELAPSED);
    c->dev.open--;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_device_resolve(ttft_tpot *c, const ttft_tpot_device_stamp *stamps, size_t n,
                                           const ttft_tpot_clock_pair *pair, size_t *refused)
{
    size_t i, bad = 0;
    int first = TTFT_TPOT_OK;
    if (refused)
        *refused = 0;
    if (!c || (!stamps && n))
        return TTFT_TPOT_EINVAL;
    for (i = 0; i < n; i++) {
        int rc = ttft_tpot__device_apply(c, &stamps[i], pair);
        if (rc == TTFT_TPOT_OK)
            continue;
        bad++;
        first = first == TTFT_TPOT_OK ? rc : first;
    }
    ttft_tpot__device_count(&c->dev.refused, bad * c->refusal);
    if (refused)
        *refused = bad;
    return first;
}

TTFT_TPOT_DEF int ttft_tpot_device_part(ttft_tpot *c, uint64_t launch, int phase, const ttft_tpot_device_stamp *stamp,
                                        const ttft_tpot_clock_pair *pair)
{
    const ttft_tpot_device_interval *l;
    ttft_tpot_device_interval *d;
    uint64_t dev, begin, queued;
    int rc;
    if (!c || !stamp)
        return TTFT_TPOT_EINVAL;
    if (launch == 0)
        return TTFT_TPOT_OK;
    rc = !(l = ttft_tpot__ticket_at(c, launch)) || l->part ? TTFT_TPOT_ETICKET
         : phase < 0 || (unsigned)phase >= c->phase.n ? TTFT_TPOT_EPHASE
                                                      : ttft_tpot__stamp_times(stamp, pair, &dev, &begin, &queued);
    if (rc != TTFT_TPOT_OK) {
        ttft_tpot__device_count(&c->dev.refused, c->refusal);
        return rc;
    }
    if (c->dev.n >= c->dev.max) {
        ttft_tpot__device_count(&c->dev.unresolved, 1);
        return TTFT_TPOT_EFULL;
    }
    d = &c->dev.log[c->dev.n++];
    *d = *l;
    d->phase = (uint32_t)phase;
    d->device_ns = dev;
    d->begin_ns = begin;
    d->queued_ns = queued;
    d->state = (uint8_t)(stamp->absolute ? TTFT_TPOT_DEVICE_ABSOLUTE : TTFT_TPOT_DEVICE_ELAPSED);
    d->part = 1;
    return TTFT_TPOT_OK;
}

/* Empty the log for a new interval: a new epoch, so that tickets of the old one are unknown. */
static void ttft_tpot__device_clear(ttft_tpot *c)
{
    c->dev.n = c->dev.open = 0;
    c->dev.unresolved = c->dev.refused = 0;
    c->dev.epoch = (c->dev.epoch + 1) & 0x7FFFFFFFu; /* a ticket stays below 2^63 */
}

/* Append src's intervals to dst's (numbered there: src's tickets name none of them), their phases
   mapped and their samples through where (ttft_tpot__store_merge: none when not stored); what does
   not fit is counted as unresolved. */
static void ttft_tpot__device_merge(ttft_tpot *dst, const ttft_tpot *src, const int *map, const size_t *where)
{
    size_t i;
    ttft_tpot__device_count(&dst->dev.unresolved, src->dev.unresolved);
    ttft_tpot__device_count(&dst->dev.refused, src->dev.refused);
    for (i = 0; i < src->dev.n; i++) {
        ttft_tpot_device_interval d = src->dev.log[i];
        if (dst->dev.n >= dst->dev.max) {
            ttft_tpot__device_count(&dst->dev.unresolved, src->dev.n - i);
            return;
        }
        d.phase = (uint32_t)map[d.phase];
        d.sample = d.sample && d.sample <= src->store.n ? where[d.sample - 1] : 0;
        dst->dev.open += d.state == TTFT_TPOT_DEVICE_OPEN;
        dst->dev.log[dst->dev.n++] = d;
    }
}

/* ---- Collector and config -------------------------------------------------------------------- */

/* The smallest power of two >= 2n (open addressing stays under half full), at least 2. */
static uint32_t ttft_tpot__table_size(unsigned n)
{
    uint32_t t = 2;
    while (t < 2u * n)
        t <<= 1;
    return t;
}

/* What cfg asks for, and where each part sits in the one block: phases, histograms, samples, start
   times, sequences, device intervals, shape keys, then the uint32_t tables (each part a multiple of 8
   bytes). */
typedef struct ttft_tpot__layout {
    size_t cap, reserve, bytes, device, pending;
    unsigned phases, phase_slots, hists, shapes, shape_slots;
} ttft_tpot__layout;

/* A chosen percentile in thousandths of a percent: 1 to 99999 when p is one to 0.001 (within the
   rounding of the decimal it was written as), else 0. */
static uint32_t ttft_tpot__pick_of(double p)
{
    double pm = p * 1000;
    uint32_t r;
    if (!ttft_tpot__finite(p) || !(pm >= 0.5 && pm < 99999.5))
        return 0;
    r = (uint32_t)(pm + 0.5);
    return pm - r < 1e-6 && r - pm < 1e-6 ? r : 0;
}

/* Whether config.percentiles is a valid choice: ascending picks, then only zeros. */
static int ttft_tpot__picks_valid(const double *p)
{
    uint32_t last = 0, pm;
    unsigned k;
    for (k = 0; k < TTFT_TPOT_MAX_PERCENTILES && p[k] != 0; k++) {
        if ((pm = ttft_tpot__pick_of(p[k])) <= last)
            return 0;
        last = pm;
    }
    for (; k < TTFT_TPOT_MAX_PERCENTILES; k++)
        if (p[k] != 0)
            return 0;
    return 1;
}

/* The chosen percentiles (validated by ttft_tpot__picks_valid) into c. */
static void ttft_tpot__picks_of(ttft_tpot *c, const ttft_tpot_config *cfg)
{
    for (c->pick_n = 0; cfg && c->pick_n < TTFT_TPOT_MAX_PERCENTILES && cfg->percentiles[c->pick_n] != 0; c->pick_n++)
        c->pick_pm[c->pick_n] = ttft_tpot__pick_of(cfg->percentiles[c->pick_n]);
}

static int ttft_tpot__layout_of(const ttft_tpot_config *cfg, ttft_tpot__layout *l)
{
    size_t per, fixed;
    l->cap = cfg && cfg->capacity ? cfg->capacity : TTFT_TPOT__DEFAULT_CAPACITY;
    l->phases = cfg && cfg->max_phases ? cfg->max_phases : TTFT_TPOT__DEFAULT_PHASES;
    /* by default every phase of the default table can outgrow the storage into a histogram */
    l->hists = cfg && cfg->hist_slots ? cfg->hist_slots : cfg && cfg->bounded ? l->phases
             : l->phases < TTFT_TPOT__DEFAULT_PHASES ? l->phases : TTFT_TPOT__DEFAULT_PHASES;
    l->shapes = cfg && cfg->max_shapes ? cfg->max_shapes : 64;
    /* by default, room for device time: address space only until intervals arrive (not a cost a sample) */
    l->device = cfg && cfg->max_device ? cfg->max_device : TTFT_TPOT__DEFAULT_DEVICE;
    l->pending = cfg && cfg->max_pending ? cfg->max_pending : 1024;
    l->pending = l->pending < l->device ? l->pending : l->device;
    if (l->device >= UINT32_MAX || l->device > (SIZE_MAX / 2) / sizeof(ttft_tpot_device_interval))
        return TTFT_TPOT_EINVAL;
    if (l->phases > 65535u || l->hists > l->phases || (uint64_t)l->cap > UINT32_MAX || l->shapes > (1u << 24))
        return TTFT_TPOT_EINVAL;
    l->phase_slots = ttft_tpot__table_size(l->phases);
    l->shape_slots = ttft_tpot__table_size(l->shapes);
    /* warmup samples cannot go on in a histogram: room for a first call of every phase and shape */
    l->reserve = (size_t)l->phases + l->shapes;
    l->reserve = l->reserve < l->cap ? l->reserve : l->cap;
    per = sizeof(ttft_tpot_sample) + (cfg && cfg->timeline ? sizeof(uint64_t) : 0) +
          (cfg && cfg->sequences ? sizeof(uint32_t) : 0);
    /* + 8: room to align a caller's buffer, and 8 more to align what follows the sequences */
    fixed = (cfg && cfg->sequences ? 8 : 0) + (size_t)l->phases * sizeof(ttft_tpot__phase_slot) +
            (size_t)l->hists * sizeof(ttft_tpot_hist) + l->device * sizeof(ttft_tpot_device_interval) +
            (size_t)l->shape_slots * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) + (size_t)l->phase_slots * sizeof(uint32_t) + 8;
    if (l->cap + l->reserve > (SIZE_MAX - fixed) / per)
        return TTFT_TPOT_ENOMEM;
    l->bytes = fixed + (l->cap + l->reserve) * per;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF size_t ttft_tpot_bytes_needed(const ttft_tpot_config *cfg)
{
    ttft_tpot__layout l;
    return ttft_tpot__layout_of(cfg, &l) == TTFT_TPOT_OK ? l.bytes : 0;
}

/* Hand each subsystem its part of the one block, in the order ttft_tpot__layout_of counts them:
   phases, histograms, samples, start times, sequences, device intervals, shape keys, then the uint32_t
   tables. */
static void ttft_tpot__carve(ttft_tpot *c, const ttft_tpot__layout *l, unsigned char *mem, int timeline,
                             int sequences)
{
    c->phase.slots = (ttft_tpot__phase_slot *)(void *)mem;
    c->phase.max = l->phases;
    c->hist.pool = (ttft_tpot_hist *)(void *)(c->phase.slots + l->phases);
    c->hist.max = l->hists;
    c->store.samples = (ttft_tpot_sample *)(void *)(c->hist.pool + l->hists);
    c->store.capacity = l->cap;
    c->store.reserve = l->reserve;
    mem = (unsigned char *)(c->store.samples + l->cap + l->reserve);
    if (timeline) {
        c->store.starts = (uint64_t *)(void *)mem;
        mem += (l->cap + l->reserve) * sizeof(uint64_t);
    }
    if (sequences) { /* what follows stays 8-byte aligned */
        c->store.seqs = (uint32_t *)(void *)mem;
        mem += ((l->cap + l->reserve) * sizeof(uint32_t) + 7) / 8 * 8;
    }
    c->dev.log = (ttft_tpot_device_interval *)(void *)mem;
    c->dev.max = l->device;
    c->dev.max_open = l->pending;
    c->shape.keys = (uint64_t *)(void *)(c->dev.log + l->device);
    c->shape.phases = (uint32_t *)(void *)(c->shape.keys + l->shape_slots);
    c->shape.mask = l->shape_slots - 1;
    c->shape.max = l->shapes;
    c->shape.rows = c->shape.phases + l->shape_slots;
    c->phase.index = c->shape.rows + l->shape_slots;
    c->phase.mask = l->phase_slots - 1;
    memset(c->shape.phases, 0, (2 * (size_t)l->shape_slots + l->phase_slots) * sizeof(uint32_t));
}

/* The collector's clock: the platform's, measured, or the replacement the config names. */
static void ttft_tpot__clock_of(ttft_tpot *c, const ttft_tpot_config *cfg)
{
    const char *name = !cfg || !cfg->clock ? TTFT_TPOT__CLOCK_NAME : cfg->clock_name ? cfg->clock_name : "user clock";
    size_t len = strlen(name) < sizeof c->clock_name ? strlen(name) : sizeof c->clock_name - 1;
    c->clock = cfg ? cfg->clock : NULL;
    c->clock_user = cfg ? cfg->clock_user : NULL;
    memcpy(c->clock_name, name, len); /* c is zeroed: the name ends there */
    if (!c->clock) /* a replacement clock is not read here: a test's clock may be a script */
        c->clock_read_ns = ttft_tpot__clock_cost();
}

/* The key of the name and id indexes: libc has no portable source of randomness, so the clock, the
   collector's address, a stack address and the process id, mixed under a fixed key. */
static void ttft_tpot__key_of(ttft_tpot *c)
{
    static const uint64_t mix[2][2] = {{0x0123456789abcdefull, 0xfedcba9876543210ull},
                                       {0x0f1e2d3c4b5a6978ull, 0x8796a5b4c3d2e1f0ull}};
    uint64_t part[4];
    unsigned char seed[32];
    unsigned i;
    part[0] = ttft_tpot__now();
    part[1] = (uint64_t)(uintptr_t)c;
    part[2] = (uint64_t)(uintptr_t)&part;
    part[3] = TTFT_TPOT__PID();
    for (i = 0; i < 32; i++)
        seed[i] = (unsigned char)(part[i / 8] >> (8 * (i % 8)));
    c->key[0] = ttft_tpot__siphash(mix[0], seed, sizeof seed, 2, 4);
    c->key[1] = ttft_tpot__siphash(mix[1], seed, sizeof seed, 2, 4);
    /* the tickets' first epoch, from the same entropy: each collector's tickets are its own */
    c->dev.epoch = (uint32_t)((c->key[0] ^ c->key[1]) >> 33);
}

TTFT_TPOT_DEF int ttft_tpot_init(ttft_tpot *c, const ttft_tpot_config *cfg)
{
    ttft_tpot__layout l;
    unsigned char *mem;
    int rc;
    if (!c)
        return TTFT_TPOT_EINVAL;
    memset(c, 0, sizeof *c);
    if ((rc = ttft_tpot__layout_of(cfg, &l)) != TTFT_TPOT_OK)
        return rc;
    if (cfg && !ttft_tpot__picks_valid(cfg->percentiles))
        return TTFT_TPOT_EINVAL;
    if (cfg && cfg->buffer) {
        if (cfg->buffer_bytes < l.bytes)
            return TTFT_TPOT_ENOMEM;
        mem = (unsigned char *)cfg->buffer;
        mem += (8 - (uintptr_t)mem % 8) % 8;
    } else if (!(mem = (unsigned char *)TTFT_TPOT_MALLOC(l.bytes, cfg ? cfg->alloc_user : NULL))) {
        return TTFT_TPOT_ENOMEM;
    } else {
        c->owned = mem;
    }
    ttft_tpot__carve(c, &l, mem, cfg && cfg->timeline, cfg && cfg->sequences);
    c->alloc_user = cfg ? cfg->alloc_user : NULL;
    c->grow = cfg && cfg->grow;
    ttft_tpot__picks_of(c, cfg);
    c->hist.bounded = cfg && cfg->bounded;
    c->enabled = 1;
    c->refusal = cfg && cfg->refusals_reported ? 0 : 1;
    ttft_tpot__clock_of(c, cfg);
    c->started_ns = ttft_tpot__realtime();
    ttft_tpot__key_of(c);
#ifdef TTFT_TPOT_NVTX
    c->nvtx_domain = (void *)nvtxDomainCreateA("ttft_tpot");
#endif
    return TTFT_TPOT_OK;
}

#ifdef TTFT_TPOT_NVTX
TTFT_TPOT_DEF void ttft_tpot__nvtx_push(const ttft_tpot *c, int phase)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = (unsigned)phase < c->phase.n ? c->phase.slots[phase].name : "?";
    nvtxDomainRangePushEx((nvtxDomainHandle_t)c->nvtx_domain, &a);
}

TTFT_TPOT_DEF void ttft_tpot__nvtx_pop(const ttft_tpot *c)
{
    nvtxDomainRangePop((nvtxDomainHandle_t)c->nvtx_domain);
}
#endif

/* config.grow: a part a trace outgrew moved to an allocation of its own (ttft_tpot.grown, bits). */
enum { TTFT_TPOT__PART_SAMPLES = 1, TTFT_TPOT__PART_STARTS = 2, TTFT_TPOT__PART_HISTS = 4,
       TTFT_TPOT__PART_DEVICE = 8, TTFT_TPOT__PART_SEQS = 16, TTFT_TPOT__PART_PHASES = 32 /* and its index */ };

TTFT_TPOT_DEF void ttft_tpot_free(ttft_tpot *c)
{
    void *parts[6];
    unsigned k;
    if (!c)
        return;
    parts[0] = c->store.samples, parts[1] = c->store.starts, parts[2] = c->hist.pool, parts[3] = c->dev.log;
    parts[4] = c->store.seqs, parts[5] = c->phase.slots;
    if (c->layer)
        c->layer->c = NULL; /* detached */
    for (k = 0; k < 6; k++)
        if (c->grown >> k & 1u)
            TTFT_TPOT_FREE(parts[k], c->alloc_user);
    if (c->owned)
        TTFT_TPOT_FREE(c->owned, c->alloc_user);
#ifdef TTFT_TPOT_NVTX
    if (c->nvtx_domain)
        nvtxDomainDestroy((nvtxDomainHandle_t)c->nvtx_domain);
#endif
    memset(c, 0, sizeof *c);
}

/* Whether every histogram of dst can take in what src may add to it (its histogram, and at most every
   stored sample of src, with all their tokens) within TTFT_TPOT__HIST_MAX. */
static int ttft_tpot__merge_room(const ttft_tpot *dst, const ttft_tpot *src)
{
    uint64_t tokens = 0;
    size_t i;
    unsigned p;
    for (i = 0; i < src->store.n; i++)
        tokens = tokens + src->store.samples[i].tokens < tokens ? UINT64_MAX : tokens + src->store.samples[i].tokens;
    for (p = 0; p < src->phase.n; p++) {
        const ttft_tpot__phase_slot *sp = &src->phase.slots[p];
        int id = ttft_tpot__lookup(dst, sp->name, strlen(sp->name));
        const ttft_tpot_hist *dh = id >= 0 ? dst->phase.slots[id].hist : NULL;
        uint64_t n = sp->hist ? ttft_tpot__hist_count(sp->hist) : 0, t = sp->hist ? sp->hist->tokens : 0;
        if ((dh || n) && !ttft_tpot__hist_room(dh ? ttft_tpot__hist_count(dh) : 0, dh ? dh->tokens : 0,
                                              n > UINT64_MAX - src->store.n ? UINT64_MAX : n + src->store.n,
                                              t > UINT64_MAX - tokens ? UINT64_MAX : t + tokens))
            return 0;
    }
    return 1;
}

/* Whether src fits into dst whole: OK, or what merge returns when it does not. */
static int ttft_tpot__merge_plan(const ttft_tpot *dst, const ttft_tpot *src)
{
    unsigned p, added = 0, slots = 0;
    int rc;
    if (!ttft_tpot__merge_room(dst, src))
        return TTFT_TPOT_EFULL;
    for (p = 0; p < src->phase.n; p++) {
        const ttft_tpot__phase_slot *sp = &src->phase.slots[p];
        int id = ttft_tpot__lookup(dst, sp->name, strlen(sp->name));
        int has_hist = sp->hist && sp->hist->max_ns >= sp->hist->min_ns; /* not empty */
        if (id >= 0 && dst->phase.slots[id].role != sp->role)
            return TTFT_TPOT_EROLE;
        if (id < 0) {
            added++;
            slots += has_hist || dst->hist.bounded;
        } else {
            slots += has_hist && !dst->phase.slots[id].hist;
        }
    }
    if (dst->phase.n + added > dst->phase.max)
        return TTFT_TPOT_EPHASE;
    if (src->layer && dst->layer->merge && (rc = dst->layer->merge(dst->layer->state, src->layer->state, 1)) != 0)
        return rc; /* the layer's refusal (its ids, its room) before the histograms' */
    return dst->hist.n + slots > dst->hist.max && slots ? TTFT_TPOT_ENOMEM : TTFT_TPOT_OK;
}

/* The spans open: the count goes below 0 only when a copy of an ended span is ended too (a
   decrement at the end keeps the span's cost at one instruction); that reads as none. */
static uint64_t ttft_tpot__spans_open(const ttft_tpot *c)
{
    return c->spans_open >> 63 ? 0 : c->spans_open;
}

TTFT_TPOT_DEF int ttft_tpot_merge(ttft_tpot *dst, const ttft_tpot *src)
{
    int *map, rc, k;
    unsigned char *called;
    size_t *where;
    if (!dst || !src || dst == src || !dst->phase.slots || (src->layer && !dst->layer))
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot__merge_plan(dst, src)) != TTFT_TPOT_OK) /* planned first: all or nothing */
        return rc;
    /* where each of src's samples lands, then the phase map and what dst had called (capacity is at
       most UINT32_MAX) */
    where = (size_t *)TTFT_TPOT_MALLOC((src->store.n + 1) * sizeof *where + (src->phase.n + 1) * (sizeof *map + 1),
                                       dst->alloc_user);
    if (!where)
        return TTFT_TPOT_ENOMEM;
    map = (int *)(void *)(where + src->store.n + 1);
    called = (unsigned char *)(map + src->phase.n + 1);
    ttft_tpot__phases_merge(dst, src, map, called);
    dst->runs_dropped += src->runs_dropped;
    ttft_tpot__store_merge(dst, src, map, called, where);
    ttft_tpot__device_merge(dst, src, map, where);
    if (src->layer && dst->layer->merge)
        (void)dst->layer->merge(dst->layer->state, src->layer->state, 0); /* planned */
    dst->shape.dropped += src->shape.dropped;
    dst->rejected += src->rejected;
    dst->spans_open += ttft_tpot__spans_open(src);
    dst->spans_cancelled += src->spans_cancelled;
    dst->started_ns = ttft_tpot__earliest(dst->started_ns, src->started_ns);
    for (k = 0; k < 2; k++)
        if ((src->full_known & ~dst->full_known) >> k & 1u) {
            dst->full_at[k] = src->full_at[k];
            dst->full_known |= 1u << k;
        }
    TTFT_TPOT_FREE(where, dst->alloc_user);
    return TTFT_TPOT_OK;
}

/* Empty every histogram; a phase that outgrew the storage is exact again, and gives its slot back
   (the histograms are empty, so the bounded phases take the first slots again in phase order). */
static void ttft_tpot__hists_clear(ttft_tpot *c)
{
    unsigned p;
    c->hist.n = 0;
    for (p = 0; p < c->phase.n; p++) {
        ttft_tpot__phase_slot *ph = &c->phase.slots[p];
        if (ph->outgrown) {
            ph->hist = NULL;
            ph->outgrown = 0;
            if (!ph->fresh)
                ttft_tpot__phase_called(c, ph);
        } else if (ph->hist) {
            ph->hist = &c->hist.pool[c->hist.n++];
            ttft_tpot__hist_reset(ph->hist);
        }
    }
}

TTFT_TPOT_DEF void ttft_tpot_clear(ttft_tpot *c)
{
    unsigned p;
    if (!c)
        return;
    c->store.n = c->store.dropped = c->store.outgrown = c->store.seq_lost = c->store.seq_hist = 0;
    ttft_tpot__hists_clear(c);
    for (p = 0; p < c->phase.n; p++) {
        memset(c->phase.slots[p].prompt, 0, sizeof c->phase.slots[p].prompt);
        c->phase.slots[p].first_at = SIZE_MAX; /* its sample is gone */
    }
    if (c->layer && c->layer->clear)
        c->layer->clear(c->layer->state);
    c->shape.dropped = 0; /* the shapes stay known (warmup is once per process); the count goes */
    ttft_tpot__device_clear(c);
    c->rejected = c->spans_cancelled = 0;
    c->runs = 0;
    c->runs_dropped = 0;
    memset(c->full_at, 0, sizeof c->full_at);
    c->full_known = 0;
}

TTFT_TPOT_DEF int ttft_tpot_run_begin(ttft_tpot *c)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (!c->enabled)
        return TTFT_TPOT_OK;
    return ttft_tpot__run_mark(c, c->store.n);
}

TTFT_TPOT_DEF void ttft_tpot_enable(ttft_tpot *c, int on)
{
    if (!c)
        return;
    c->enabled = on != 0;
    if (c->layer)
        c->layer->enabled = c->enabled;
}

/* ---- Recording ------------------------------------------------------------------------------- */

/* A step's sequences, checked before it is recorded: OK, or EROLE / ERANGE (counted as rejected).
   *multi: it emitted more than one token a sequence. */
static int ttft_tpot__sequences_check(ttft_tpot *c, const ttft_tpot__phase_slot *p, uint32_t tokens,
                                      uint32_t sequences, int *multi)
{
    *multi = 0;
    if (!sequences)
        return TTFT_TPOT_OK;
    if (p->role == TTFT_TPOT_ROLE_DECODE && sequences <= tokens) {
        *multi = sequences < tokens;
        return TTFT_TPOT_OK;
    }
    c->rejected += c->refusal;
    return p->role != TTFT_TPOT_ROLE_DECODE ? TTFT_TPOT_EROLE : TTFT_TPOT_ERANGE;
}

/* A span's prompt, checked before it is recorded: OK, or EROLE (not a prefill-role phase) / EINVAL
   (0 tokens), counted as rejected. */
static int ttft_tpot__prompt_check(ttft_tpot *c, const ttft_tpot__phase_slot *p, const ttft_tpot_span *s)
{
    if (!s->has_prompt || (p->role == TTFT_TPOT_ROLE_PREFILL && s->prompt != 0))
        return TTFT_TPOT_OK;
    c->rejected += c->refusal;
    return p->role != TTFT_TPOT_ROLE_PREFILL ? TTFT_TPOT_EROLE : TTFT_TPOT_EINVAL;
}

/* The out-of-line path (ttft_tpot_span_end): checked, then kept where ttft_tpot__keep says (a bounded
   phase's steady sample in its histogram), with its prompt, sequences and device ticket. */
TTFT_TPOT_DEF int64_t ttft_tpot__push_span(const ttft_tpot_span *s, int phase, uint64_t dur, int new_shape)
{
    ttft_tpot *c = s->c;
    ttft_tpot__phase_slot *p;
    size_t before = c->store.n;
    uint64_t hist_before;
    uint32_t tokens;
    int warm, first, multi, rc;
    if ((unsigned)phase >= c->phase.n) {
        c->rejected += c->refusal;
        return TTFT_TPOT_EPHASE;
    }
    p = &c->phase.slots[phase];
    tokens = s->tokens == TTFT_TPOT__DEFAULT_TOKENS ? p->default_tokens : (uint32_t)s->tokens;
    if ((rc = ttft_tpot__sequences_check(c, p, tokens, s->sequences, &multi)) != TTFT_TPOT_OK ||
        (rc = ttft_tpot__prompt_check(c, p, s)) != TTFT_TPOT_OK)
        return rc;
    first = p->fresh;
    warm = first | c->warm_all | new_shape;
    if (first)
        ttft_tpot__phase_called(c, p);
    hist_before = p->hist ? ttft_tpot__hist_count(p->hist) : 0;
    if (p->hist && !warm) { /* a bounded phase's steady sample */
        ttft_tpot__hist_add(p->hist, dur, tokens);
        rc = TTFT_TPOT_OK;
    } else {
        rc = ttft_tpot__keep(c, phase, s->start, dur, tokens, warm);
    }
    if (first)
        p->first_at = !(c->warm_all | new_shape) && c->store.n > before ? before : SIZE_MAX;
    if (rc == TTFT_TPOT_OK && s->has_prompt && !warm) { /* kept and steady: its prompt counts toward the rate */
        p->prompt[0]++;
        p->prompt[1] += s->prompt;
        p->prompt[2] += dur;
    }
    if (s->sequences && rc == TTFT_TPOT_OK)
        ttft_tpot__sequences_keep(c, before, hist_before, phase, s->sequences, multi);
    if (p->watched) { /* an engine step, kept or not: the layer counts it */
        ttft_tpot_layer_sample x;
        x.phase = phase, x.role = p->role, x.tokens = tokens, x.sequences = s->sequences;
        x.prompt = s->has_prompt ? s->prompt : 0, x.warmup = warm, x.kept = rc == TTFT_TPOT_OK;
        c->layer->sample(c->layer->state, &x);
    }
    if (!s->device)
        return rc;
    if (rc != TTFT_TPOT_OK) { /* dropped: its device time has nowhere to go */
        ttft_tpot__device_count(&c->dev.unresolved, 1);
        return rc;
    }
    return (int64_t)ttft_tpot__device_open(c, phase, c->store.n > before ? c->store.n : 0, s->start, s->stream,
                                           c->store.n > before ? c->store.samples[c->store.n - 1].warmup : 0);
}

/* ms to the ns, rounded half up, exactly: the double is m * 2^e (read from its bits, opaquely, so no
   compiler option drops the test for NaN), and m * 10^6 takes 73 bits, shifted in integers. OK, or ERANGE for
   a negative number (-0.0 is 0), NaN, an infinity, or 2^64 ns and more. */
TTFT_TPOT_DEF int ttft_tpot_ms_to_ns(double ms, uint64_t *ns)
{
    uint64_t bits, m;
    ttft_tpot__u128 v;
    int e;
    if (!ns)
        return TTFT_TPOT_EINVAL;
    bits = ttft_tpot__bits(ms); /* opaque: the caller's flags cannot fold the NaN test */
    e = (int)(bits >> 52 & 0x7FFu);
    m = bits & (((uint64_t)1 << 52) - 1);
    if (e == 0x7FF || (bits >> 63 && (e || m)))
        return TTFT_TPOT_ERANGE;
    m |= e ? (uint64_t)1 << 52 : 0; /* normal: the hidden bit; subnormal: the exponent of e = 1 */
    e = (e ? e : 1) - 1075;          /* ms = m * 2^e */
    if (e >= 0) /* 2^52 ms or more: past 2^64 ns */
        return TTFT_TPOT_ERANGE;
    v = ttft_tpot__mul(m, 1000000u); /* below 2^73 */
    if (-e > 73) { /* below half a ns */
        *ns = 0;
        return TTFT_TPOT_OK;
    }
    return ttft_tpot__shr_round(v, (unsigned)-e, ns);
}

TTFT_TPOT_DEF int ttft_tpot__shape_first(ttft_tpot *c, int *phase, uint64_t key)
{
    return (unsigned)*phase < c->phase.n && ttft_tpot__shape_new(c, phase, key);
}

/* ---- Report model ---------------------------------------------------------------------------- */

/* The sets of the headline metrics: 0 steady prefill, 1 steady decode, 2 every e2e sample; -1 none. */
static int ttft_tpot__headline_set(int role, int warmup)
{
    if (role == TTFT_TPOT_ROLE_E2E)
        return 2;
    if (warmup || role == TTFT_TPOT_ROLE_KERNEL)
        return -1;
    return role; /* prefill 0, decode 1 */
}

/* Stored sample i's time per output token of ns (its duration, or its device time): ns, or for a step
   that emitted more than one token a sequence, ns x sequences / tokens, rounded to the ns (sequences
   below tokens: no overflow). */
static uint64_t ttft_tpot__per_token(const ttft_tpot *c, size_t i, uint64_t ns)
{
    uint32_t q = c->store.seqs ? c->store.seqs[i] : 0, t = c->store.samples[i].tokens;
    if (!q || q >= t)
        return ns;
    return ns / t * q + ((ns % t) * q + t / 2) / t;
}

/* The set of a stored sample: its phase (by_phase), or its headline set (ttft_tpot__headline_set). */
static int ttft_tpot__set_of(const ttft_tpot *c, const ttft_tpot_sample *s, int by_phase)
{
    return by_phase ? (int)s->phase : ttft_tpot__headline_set(c->phase.slots[s->phase].role, s->warmup);
}

/* MSER-5's batch sums of the decode phases whose samples are all stored (measured), taken while the
   phases are gathered (in call order): sum[at[p] ...) for phase p, run[2p] and run[2p + 1] the sum and
   count of its batch in progress (doubles: ttft_tpot__mser5_cuts). One allocation (run first, for its
   alignment). */
typedef struct ttft_tpot__batches {
    double *run, *sum;
    size_t *at;
    unsigned char *measured;
} ttft_tpot__batches;

/* a + b, or UINT64_MAX past it. */
static uint64_t ttft_tpot__sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* Add a measured phase's sample to its batch in progress, and a full batch's sum to sum[]. */
static void ttft_tpot__batch_add(ttft_tpot__batches *b, unsigned phase, uint64_t v)
{
    double *r = &b->run[2 * (size_t)phase];
    r[0] += (double)v;
    if (++r[1] == 5) {
        b->sum[b->at[phase]++] = r[0];
        r[0] = r[1] = 0;
    }
}

/* A phase's statistics and its steady view, from x[0, m): its steady samples, then its warm ones.
   An exact phase's steady samples are scanned once for both; pre: that scan, already made while the
   samples were gathered (its bucket counts in w->nw.slot), or NULL. With pre, an exact phase's steady
   values were left in the store: only x[m - warm, m) is filled. */
static void ttft_tpot__phase_figures(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot__gathered *g,
                                     ttft_tpot_stats *st, ttft_tpot_stats *steady)
{
    uint64_t *x = g->x;
    size_t m = g->m, warm = g->warm;
    int phase = g->phase;
    const ttft_tpot__scan *pre = g->pre;
    ttft_tpot__gathered only = *g; /* its steady values alone */
    ttft_tpot__scan s;
    uint32_t *slot = m - warm >= TTFT_TPOT__NARROW_MIN ? w->nw.slot : NULL; /* none for small sets */
    ttft_tpot_stats keep = *st;
    ttft_tpot__in_store in; /* with pre: its steady values */
    in.c = c, in.phase = phase, in.steady = 1, in.skip = 0;
    only.m = m - warm;
    if (ttft_tpot__set_hists(c, w, phase, 0)) { /* bounded: both from its histogram */
        ttft_tpot__finish_set(c, w, &only, steady);
        ttft_tpot__finish_set(c, w, g, st);
        return;
    }
    memset(&s, 0, sizeof s);
    if (pre) {
        s = *pre;
    } else {
        if (slot)
            memset(slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *slot);
        ttft_tpot__scan_add(&s, x, m - warm, slot);
    }
    if (slot)
        ttft_tpot__finish_both(pre ? &in : NULL, g, &s, &w->nw, steady, st);
    else
        ttft_tpot__finish_scan(x, &s, slot, &w->nw, steady);
    if (warm == 0) { /* the same set: its figures, the phase's counts */
        *st = *steady;
        st->tokens = keep.tokens;
        st->warmup_n = keep.warmup_n;
        return;
    }
    if (!slot) {
        ttft_tpot__scan_add(&s, x + m - warm, warm, NULL); /* x still holds every value, reordered */
        ttft_tpot__finish_scan(x, &s, NULL, &w->nw, st);
    }
}

/* ttft_tpot__phase_figures, and the slowest of the warm samples x[m - warm, m). */
static void ttft_tpot__finish_phase(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot__gathered *g,
                                    ttft_tpot_stats *st, ttft_tpot_stats *steady)
{
    uint64_t most = 0;
    size_t i;
    for (i = g->m - g->warm; i < g->m; i++)
        most = g->x[i] > most ? g->x[i] : most;
    ttft_tpot__phase_figures(c, w, g, st, steady);
    st->warmup_max_ns = most;
}

/* What ttft_tpot__sets computes: sets [0, n) of the stored samples (count[k]: set k's size, at most the
   work area's) into st; by_phase: the sets are the phases, st[k].warmup_n is known, steady[k] gets each
   phase's steady view, and bt (may be NULL) the measured phases' batch sums; at: room for 2n offsets. */
typedef struct ttft_tpot__set_job {
    int by_phase;
    const size_t *count;
    size_t *at;
    ttft_tpot_stats *st, *steady;
    unsigned n;
    ttft_tpot__batches *bt;
} ttft_tpot__set_job;

/* The statistics of a job's sets, gathered a group of consecutive sets at a time, as many as the work
   area holds: one pass over the samples a group. Tokens add up as the samples are gathered. */
static void ttft_tpot__sets(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot__set_job *job)
{
    int by_phase = job->by_phase;
    const size_t *count = job->count;
    size_t *at = job->at;
    ttft_tpot_stats *st = job->st, *steady = job->steady;
    unsigned n = job->n, lo = 0, hi, j;
    ttft_tpot__batches *bt = job->bt;
    for (; lo < n; lo = hi) {
        size_t off = 0, i, most = TTFT_TPOT__NARROW_MIN - 1;
        int big = -1, big_x = 0; /* the largest phase: its steady samples are scanned in the gather, */
        ttft_tpot__scan scan;    /* and left in the store unless its histogram needs them (big_x) */
        for (hi = lo; hi < n && off + count[hi] <= w->cap; hi++) { /* steady samples first, then warm */
            at[hi] = off;
            at[n + hi] = off + count[hi] - (by_phase ? st[hi].warmup_n : 0);
            off += count[hi];
            if (by_phase && at[n + hi] - at[hi] > most) {
                most = at[n + hi] - at[hi];
                big = (int)hi;
            }
        }
        TTFT_TPOT_ASSERT(hi > lo); /* the work area holds the largest set */
        memset(&scan, 0, sizeof scan);
        if (big >= 0) {
            const ttft_tpot_hist *h = c->phase.slots[big].hist;
            big_x = h && h->max_ns >= h->min_ns;
            memset(w->nw.slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *w->nw.slot);
        }
        for (i = 0; off && i < c->store.n; i++) {
            const ttft_tpot_sample *s = &c->store.samples[i];
            int set = ttft_tpot__set_of(c, s, by_phase), warm = by_phase && s->warmup;
            if (set < (int)lo || set >= (int)hi || !count[set]) /* 0: a set taken from elsewhere */
                continue;
            st[set].tokens += s->tokens;
            if (bt && bt->measured[set])
                ttft_tpot__batch_add(bt, (unsigned)set, s->dur_ns);
            if (by_phase && !warm)
                steady[set].tokens += s->tokens;
            if (set == big && !warm) {
                ttft_tpot__scan_one(&scan, s->dur_ns);
                w->nw.slot[ttft_tpot__fine_index(s->dur_ns)]++;
                if (!big_x)
                    continue;
            }
            w->x[at[warm ? n + (unsigned)set : (unsigned)set]++] =
                !by_phase && set == 1 && c->store.seqs ? ttft_tpot__per_token(c, i, s->dur_ns) : s->dur_ns;
        }
        for (j = 0; j <= hi - lo; j++) { /* big first, while w->nw.slot holds its counts; then the rest */
            unsigned k = j == 0 ? (unsigned)big : lo + j - 1;
            ttft_tpot__gathered g;
            if (j == 0 ? big < 0 : (int)k == big)
                continue;
            g.x = w->x + at[n + k] - count[k]; /* at[n + k] is now the end of k's slice */
            g.m = count[k], g.warm = by_phase ? st[k].warmup_n : 0;
            g.phase = by_phase ? (int)k : -1, g.role = by_phase ? 0 : k == 2 ? TTFT_TPOT_ROLE_E2E : (int)k;
            g.pre = (int)k == big ? &scan : NULL;
            if (by_phase)
                ttft_tpot__finish_phase(c, w, &g, &st[k], &steady[k]);
            else
                ttft_tpot__finish_set(c, w, &g, &st[k]);
        }
    }
}

/* The phase whose figures a headline set would repeat: the only phase of its role with a sample, or
   -1. */
static int ttft_tpot__only_phase(const ttft_tpot *c, const ttft_tpot_stats *ph, int role)
{
    unsigned p;
    int only = -1;
    for (p = 0; p < c->phase.n; p++) {
        if (c->phase.slots[p].role != role || ph[p].n == 0)
            continue;
        if (only >= 0)
            return -1;
        only = (int)p;
    }
    return only;
}

/* The prefill rate: prompt tokens over the time of the steady prefill-role samples that carry them. */
static void ttft_tpot__prefill_rate(const ttft_tpot *c, ttft_tpot_summary *out)
{
    double ns = 0;
    unsigned p;
    for (p = 0; p < c->phase.n; p++) {
        const ttft_tpot__phase_slot *s = &c->phase.slots[p];
        if (s->role != TTFT_TPOT_ROLE_PREFILL)
            continue;
        out->prefill_counted += s->prompt[0];
        out->prefill_tokens += s->prompt[1];
        ns += (double)s->prompt[2];
    }
    out->has_prefill_tok_s = out->prefill_counted > 0 && ns > 0;
    out->prefill_tok_s = out->has_prefill_tok_s ? (double)out->prefill_tokens / (ns * 1e-9) : 0;
}

/* The acceptance length of the steady decode steps stored (ttft_tpot_summary), each step's scaled by
   1e6 into w->x. 1 where one of them emitted more than one token a sequence, else 0 (none computed). */
static int ttft_tpot__acceptance(const ttft_tpot *c, ttft_tpot__work *w, ttft_tpot_summary *out)
{
    uint64_t tokens = 0, seqs = 0;
    size_t i, m = 0;
    ttft_tpot_stats st;
    for (i = 0; c->store.seqs && i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        uint32_t q = c->store.seqs[i] ? c->store.seqs[i] : s->tokens; /* unset: one token a sequence */
        if (s->warmup || c->phase.slots[s->phase].role != TTFT_TPOT_ROLE_DECODE || !s->tokens)
            continue;
        out->tpot_multi += q < s->tokens;
        tokens += s->tokens;
        seqs += q;
        w->x[m++] = ((uint64_t)s->tokens * 1000000u + q / 2) / q;
    }
    if (!out->tpot_multi)
        return 0;
    ttft_tpot__fill(w->x, m, &w->nw, &st);
    out->has_acceptance = 1;
    out->acceptance_mean = (double)tokens / (double)seqs;
    out->acceptance_p50 = st.p50_ns / 1e6;
    out->acceptance_p90 = st.p90_ns / 1e6;
    return 1;
}

/* The output throughput: the steady decode steps' tokens over their time. From the TPOT set, or with
   steps of several tokens a sequence, whose TPOT values are not their time, from the decode phases'. */
static void ttft_tpot__output_rate(const ttft_tpot *c, const ttft_tpot_stats *steady, ttft_tpot_summary *out)
{
    double ns = out->tpot.total_ns, tokens = (double)out->tpot.tokens;
    unsigned p;
    if (out->tpot_multi)
        for (p = 0, ns = 0, tokens = 0; p < c->phase.n; p++)
            if (c->phase.slots[p].role == TTFT_TPOT_ROLE_DECODE) {
                ns += steady[p].total_ns;
                tokens += (double)steady[p].tokens;
            }
    if (out->tpot.n && ns > 0) {
        out->has_output_tok_s = 1;
        out->output_tok_s = tokens / (ns * 1e-9);
    }
}

/* The headline sets (steady prefill, steady decode, e2e) from the phases' figures: a set that is one
   phase's (steady) samples takes that phase's figures; the others are gathered and computed (TPOT
   per output token, ttft_tpot__per_token: gathered where a step emitted several a sequence). count:
   each phase's stored samples. */
static void ttft_tpot__summarize(const ttft_tpot *c, ttft_tpot__work *w, const size_t *count,
                                 const ttft_tpot_stats *ph, const ttft_tpot_stats *steady, ttft_tpot_summary *out)
{
    ttft_tpot_stats set[3];
    size_t n[3] = {0, 0, 0}, at[6];
    unsigned p;
    int k, only[3];
    memset(set, 0, sizeof set);
    for (p = 0; p < c->phase.n; p++) { /* warmup samples of every role but kernel are counted */
        int role = c->phase.slots[p].role;
        if (role == TTFT_TPOT_ROLE_KERNEL)
            continue;
        k = role == TTFT_TPOT_ROLE_E2E ? 2 : role;
        set[k].warmup_n += ph[p].warmup_n;
        n[k] += count[p] - (k == 2 ? 0 : ph[p].warmup_n);
    }
    for (k = 0; k < 3; k++)
        if ((only[k] = ttft_tpot__only_phase(c, ph, k == 2 ? TTFT_TPOT_ROLE_E2E : k)) >= 0)
            n[k] = 0; /* not gathered */
    if (ttft_tpot__acceptance(c, w, out) && only[1] >= 0) { /* a step's TPOT is not its time: gathered */
        n[1] = count[only[1]] - ph[only[1]].warmup_n;
        only[1] = -1;
    }
    {
        ttft_tpot__set_job job = {0, NULL, NULL, NULL, NULL, 3, NULL};
        job.count = n, job.at = at, job.st = set;
        ttft_tpot__sets(c, w, &job);
    }
    for (k = 0; k < 3; k++)
        if (only[k] >= 0) {
            uint64_t warm = set[k].warmup_n;
            set[k] = k == 2 ? ph[only[k]] : steady[only[k]];
            set[k].warmup_n = warm;
        }
    out->ttft_steady = set[0];
    out->tpot = set[1];
    out->e2e = set[2];
    out->tpot_excluded = out->tpot.warmup_n;
    ttft_tpot__output_rate(c, steady, out);
    if (out->e2e.n && out->e2e.total_ns > 0 && out->e2e.tokens > 0) { /* 0 tokens: no rate, not 0 tok/s */
        out->has_e2e_tok_s = 1;
        out->e2e_tok_s = (double)out->e2e.tokens / (out->e2e.total_ns * 1e-9);
    }
    ttft_tpot__prefill_rate(c, out);
    out->samples = c->store.n;
    out->dropped = c->store.dropped;
    out->rejected = c->rejected;
}

/* The p50 of phase's samples after the first cut of them (call order), into ss. A large set is counted
   by fine bucket in one pass over the store, and a second copies out only the values of the buckets
   of its two ranks; a small one is gathered whole. */
static void ttft_tpot__after_cut(const ttft_tpot *c, ttft_tpot__work *w, int phase, size_t count,
                                 ttft_tpot_steady_state *ss)
{
    uint64_t seen = 0, rank[2], val[2], f;
    size_t i, m, n = count - (size_t)ss->truncation;
    uint32_t *slot = w->nw.slot;
    ttft_tpot__in_store in;
    in.c = c, in.phase = phase, in.steady = 0, in.skip = ss->truncation;
    if ((ss->has_p50 = n > 0) == 0)
        return;
    if (n < TTFT_TPOT__NARROW_MIN) {
        m = ttft_tpot__copy_stored(c, phase, ss->truncation, 0, NULL, w->x);
        ttft_tpot__p50(w->x, m, &ss->p50_ns, &ss->p50_exact_ns);
        return;
    }
    memset(slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *slot);
    for (i = 0; i < c->store.n; i++)
        if (c->store.samples[i].phase == phase && seen++ >= ss->truncation)
            slot[ttft_tpot__fine_index(c->store.samples[i].dur_ns)]++;
    f = ttft_tpot__p50_ranks(n, rank);
    val[0] = rank[0], val[1] = rank[1];
    ttft_tpot__narrowed_ranks(w->x, 0, &in, &w->nw, val, 2);
    ttft_tpot__interp(val[0], val[1], f, 100, &ss->p50_ns, &ss->p50_exact_ns);
}

/* Which phases are measured (a decode-role phase with a sample, all of them stored: not a bounded
   phase with samples in its histogram), and room for their batch sums. OK or ENOMEM. */
static int ttft_tpot__batches_of(const ttft_tpot *c, const size_t *count, ttft_tpot__batches *b)
{
    size_t np = c->phase.n, total = 0, p;
    for (p = 0; p < np; p++)
        total += c->phase.slots[p].role == TTFT_TPOT_ROLE_DECODE ? count[p] / 5 : 0;
    b->run = (double *)TTFT_TPOT_MALLOC((2 * np + total + 1) * sizeof *b->run + (np + 1) * (sizeof *b->at + 1),
                                        c->alloc_user);
    if (!b->run)
        return TTFT_TPOT_ENOMEM;
    b->sum = b->run + 2 * np;
    b->at = (size_t *)(void *)(b->sum + total + 1);
    b->measured = (unsigned char *)(b->at + np + 1);
    for (p = 0, total = 0; p < np; p++) {
        const ttft_tpot_hist *hist = c->phase.slots[p].hist; /* an empty one: every sample is stored */
        b->measured[p] = c->phase.slots[p].role == TTFT_TPOT_ROLE_DECODE && count[p] > 0 &&
                         (!hist || hist->max_ns < hist->min_ns);
        b->at[p] = total;
        total += b->measured[p] ? count[p] / 5 : 0;
        b->run[2 * p] = b->run[2 * p + 1] = 0;
    }
    return TTFT_TPOT_OK;
}

/* Whether phase's level moves across White's cut: its steady values copied in call order to x (room
   for its samples), the cut (1 or more) counting every sample. */
static int ttft_tpot__phase_moves(const ttft_tpot *c, ttft_tpot__work *w, int phase, uint64_t cut)
{
    uint64_t seen = 0;
    size_t i, n = 0, k = 0;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if ((int)s->phase != phase)
            continue;
        if (!s->warmup)
            w->x[n++] = s->dur_ns;
        if (++seen == cut)
            k = n;
    }
    return ttft_tpot__moves(w->x, n, k, &w->nw);
}

/* The isolated spikes of every measured phase, in one pass over the store, made only where a phase's
   steady max passes twice its steady p50; sp: one spotter a phase, its sum and m set. */
static void ttft_tpot__phase_spikes(const ttft_tpot *c, const ttft_tpot_stats *steady, ttft_tpot__spotter *sp,
                                    ttft_tpot_steady_state *ss)
{
    unsigned char *on = (unsigned char *)(void *)(sp + c->phase.n); /* a flag a phase after the spotters */
    size_t i;
    unsigned p, any = 0;
    for (p = 0; p < c->phase.n; p++) {
        ss[p].steady_p50_ns = ss[p].measured && steady[p].n ? steady[p].pct_ns[0] : 0;
        ttft_tpot__spot_start(&sp[p], ss[p].steady_p50_ns, sp[p].sum, sp[p].m);
        any |= on[p] = ss[p].measured && steady[p].n && steady[p].max_ns > sp[p].limit;
    }
    for (i = 0; any && i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (on[s->phase])
            ttft_tpot__spot(&sp[s->phase], &ss[s->phase], s->dur_ns, !s->warmup);
    }
    for (p = 0; p < c->phase.n; p++)
        if (on[p])
            ttft_tpot__spot_end(&sp[p], &ss[p]);
}

/* Every measured phase's warmup (ttft_tpot__batches_of, its batch sums gathered): MSER-5 finds each
   cut, and a phase with a cut is gathered again for its p50 after it; then the spikes, White's rule
   asked again without them where there are some, and checked where it fires. phases: the phases' job
   of ttft_tpot__sets, done (their counts, figures, steady views and batch sums); sp: a spotter a phase
   and a byte. */
static void ttft_tpot__steady_states(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot__set_job *phases,
                                     ttft_tpot__spotter *sp, ttft_tpot_steady_state *ss)
{
    const size_t *count = phases->count;
    const ttft_tpot_stats *ph = phases->st, *steady = phases->steady;
    const ttft_tpot__batches *b = phases->bt;
    unsigned p;
    for (p = 0; p < c->phase.n; p++) {
        ss[p].flagged = ph[p].warmup_n;
        if (!(ss[p].measured = b->measured[p]))
            continue;
        sp[p].sum = b->sum + b->at[p] - count[p] / 5;
        sp[p].m = count[p] / 5;
        ss[p].truncation = 5 * ttft_tpot__mser5_cuts(sp[p].sum, sp[p].m, &ss[p].white_cut);
        if (ss[p].truncation) {
            ttft_tpot__after_cut(c, w, (int)p, count[p], &ss[p]);
            continue;
        }
        ss[p].has_p50 = ph[p].n > 0;
        ss[p].p50_ns = ph[p].p50_ns;
        ss[p].p50_exact_ns = ph[p].pct_ns[0];
    }
    ttft_tpot__phase_spikes(c, steady, sp, ss);
    for (p = 0; p < c->phase.n; p++) {
        if (ss[p].spikes)
            ttft_tpot__mser5_cuts(sp[p].sum, sp[p].m, &ss[p].white_cut);
        ss[p].white_cut *= 5;
        ss[p].drift = ss[p].white_cut && ttft_tpot__phase_moves(c, w, (int)p, ss[p].white_cut);
    }
}

/* A run figure's spread across the runs that have it: mean, sd (n - 1) and coefficient of variation;
   `widen`: its interval's low end twice as far from the mean (a heavy tail: the figure is skewed low by
   slow steps that few runs may not have drawn). */
static void ttft_tpot__across_runs(ttft_tpot_run_figure *f, unsigned runs, int widen)
{
    unsigned r;
    double sum = 0, ss = 0, half;
    for (r = 0, f->n = 0; r < runs; r++)
        if (f->has[r]) {
            sum += f->v[r];
            f->n++;
        }
    f->mean = f->n ? sum / f->n : 0;
    for (r = 0; r < runs; r++)
        if (f->has[r])
            ss += (f->v[r] - f->mean) * (f->v[r] - f->mean);
    f->sd = f->n > 1 ? ttft_tpot__sqrt(ss / (f->n - 1)) : 0;
    f->has_cv = f->n > 1 && f->mean > 0;
    f->cv = f->has_cv ? f->sd / f->mean : 0;
    f->varies = f->has_cv && f->cv > TTFT_TPOT_RUN_CV_FLAG;
    f->has_ci = f->n > 1;
    half = f->has_ci ? ttft_tpot_t975(f->n - 1) * f->sd / ttft_tpot__sqrt((double)f->n) : 0;
    f->widened = widen && f->has_ci;
    f->ci95[0] = f->mean > (1 + f->widened) * half ? f->mean - (1 + f->widened) * half : 0; /* none is < 0 */
    f->ci95[1] = f->mean + half;
}

/* Each run's steady TTFT p50, TPOT p50 and output throughput, and their spread: the runs' ranges are
   disjoint, so all of them together read every stored sample twice. */
static void ttft_tpot__runs_of(const ttft_tpot *c, ttft_tpot__work *w, ttft_tpot_runs *out)
{
    ttft_tpot_run_figure *fig = out->fig;
    unsigned r, p, k;
    int heavy = 0;
    out->n = c->runs;
    out->dropped = c->runs_dropped;
    out->bounded = 0;
    for (p = 0; p < c->phase.n; p++)
        out->bounded |= c->phase.slots[p].hist && c->phase.slots[p].role <= TTFT_TPOT_ROLE_DECODE &&
                        c->phase.slots[p].hist->max_ns >= c->phase.slots[p].hist->min_ns;
    for (r = 0; r < out->n; r++) {
        size_t end = ttft_tpot__run_end(c, r), i, m;
        uint64_t tokens = 0, hi = 0, lo = 0, ns, top = 0;
        int role;
        for (role = TTFT_TPOT_ROLE_PREFILL; role <= TTFT_TPOT_ROLE_DECODE; role++) {
            for (i = c->run_at[r], m = 0; i < end; i++) {
                const ttft_tpot_sample *s = &c->store.samples[i];
                if (s->warmup || c->phase.slots[s->phase].role != role)
                    continue;
                w->x[m++] = role == TTFT_TPOT_ROLE_DECODE ? ttft_tpot__per_token(c, i, s->dur_ns) : s->dur_ns;
                if (role == TTFT_TPOT_ROLE_DECODE) {
                    top = w->x[m - 1] > top ? w->x[m - 1] : top;
                    tokens += s->tokens;
                    lo += s->dur_ns;
                    hi += lo < s->dur_ns;
                }
            }
            fig[role].has[r] = m > 0 && !out->bounded;
            fig[role].v[r] = 0;
            if (m)
                ttft_tpot__p50(w->x, m, &fig[role].v[r], &ns);
        }
        heavy |= fig[TTFT_TPOT_RUN_TPOT].has[r] && (double)top > TTFT_TPOT_RUN_HEAVY_TAIL * fig[TTFT_TPOT_RUN_TPOT].v[r];
        fig[TTFT_TPOT_RUN_TOK_S].has[r] = fig[TTFT_TPOT_RUN_TPOT].has[r] && (lo || hi);
        fig[TTFT_TPOT_RUN_TOK_S].v[r] = (double)tokens / (((double)hi * TTFT_TPOT__TWO64 + (double)lo) * 1e-9);
    }
    for (k = 0; k < TTFT_TPOT_RUN_FIGURES; k++)
        ttft_tpot__across_runs(&fig[k], out->n, k == TTFT_TPOT_RUN_TOK_S && heavy);
}

/* The phases in order of first use (by their first stored sample, then those without one), each
   phase's count and warmup count, and the first prefill, in one pass over the samples. Returns the
   size of the work area the report takes: its largest set, or a quarter of the samples (then the
   phases are gathered in a few passes), whichever is larger. */
static size_t ttft_tpot__census(const ttft_tpot *c, size_t *count, ttft_tpot_stats *ph, ttft_tpot_model *m)
{
    size_t role_n[4] = {0, 0, 0, 0}, cap = c->store.n / 4 + 1, i;
    unsigned p, k = 0;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (count[s->phase]++ == 0) {
            m->order[k++] = s->phase;
            if (c->phase.slots[s->phase].role == TTFT_TPOT_ROLE_PREFILL && !m->head.has_ttft_first) {
                m->head.has_ttft_first = 1;
                m->head.ttft_first_ns = s->dur_ns;
                m->head.ttft_first_warmup = s->warmup != 0;
            }
        }
        ph[s->phase].warmup_n += s->warmup;
    }
    for (p = 0; p < c->phase.n; p++) {
        int role = c->phase.slots[p].role;
        if (count[p] == 0)
            m->order[k++] = p;
        role_n[role] += count[p] - (role == TTFT_TPOT_ROLE_E2E ? 0 : ph[p].warmup_n);
        cap = count[p] > cap ? count[p] : cap;
    }
    for (k = 0; k < 4; k++)
        cap = k != TTFT_TPOT_ROLE_KERNEL && role_n[k] > cap ? role_n[k] : cap;
    return cap;
}

/* The phases' figures (one work area for all), the headline sets, the steady states and the runs;
   the phases' are gathered in ph, steady and ss (np each), then handed to m->phase. */
static void ttft_tpot__phases_of(const ttft_tpot *c, ttft_tpot__work *w, size_t *count, ttft_tpot__batches *bt,
                                 ttft_tpot_stats *ph, ttft_tpot_model *m)
{
    size_t np = c->phase.n ? c->phase.n : 1;
    ttft_tpot_stats *steady = ph + np;
    ttft_tpot_steady_state *ss = (ttft_tpot_steady_state *)(void *)(steady + np);
    ttft_tpot__spotter *sp = (ttft_tpot__spotter *)(void *)(ss + np);
    ttft_tpot__set_job job = {1, NULL, NULL, NULL, NULL, 0, NULL};
    unsigned p;
    job.count = count, job.at = count + np, job.st = ph, job.steady = steady, job.n = c->phase.n, job.bt = bt;
    ttft_tpot__sets(c, w, &job);
    ttft_tpot__summarize(c, w, count, ph, steady, &m->head);
    if (m->prefill_kernel >= 0) {
        m->head.has_prefill_kernel = ph[m->prefill_kernel].n > 0;
        m->head.prefill_kernel_min_ns = ph[m->prefill_kernel].min_ns;
    }
    ttft_tpot__steady_states(c, w, &job, sp, ss);
    ttft_tpot__runs_of(c, w, &m->runs);
    for (p = 0; p < c->phase.n; p++) {
        m->phase[p].all = ph[p];
        m->phase[p].steady = steady[p];
        m->phase[p].steady_state = ss[p];
    }
}

/* The census, then every figure of the samples: phases, headline, steady states, runs. */
static int ttft_tpot__sample_figures(const ttft_tpot *c, ttft_tpot_model *m)
{
    size_t np = c->phase.n ? c->phase.n : 1, *count;
    ttft_tpot_stats *ph; /* the phases' all, steady, steady states and spotters while they are gathered */
    size_t each = 2 * sizeof *ph + sizeof(ttft_tpot_steady_state) + sizeof(ttft_tpot__spotter) + 1;
    ttft_tpot__work w;
    ttft_tpot__batches bt;
    int rc = TTFT_TPOT_ENOMEM;
    ph = (ttft_tpot_stats *)TTFT_TPOT_MALLOC(np * each, c->alloc_user);
    count = (size_t *)TTFT_TPOT_MALLOC(3 * np * sizeof *count, c->alloc_user); /* counts, then offsets */
    if (ph && count) {
        memset(ph, 0, np * each);
        memset(count, 0, np * sizeof *count);
        rc = ttft_tpot__work_init(c, &w, ttft_tpot__census(c, count, ph, m));
    }
    if (rc == TTFT_TPOT_OK && (rc = ttft_tpot__batches_of(c, count, &bt)) != TTFT_TPOT_OK)
        ttft_tpot__work_free(c, &w);
    if (rc == TTFT_TPOT_OK) {
        const ttft_tpot_summary *s = &m->head;
        double steady;
        ttft_tpot__phases_of(c, &w, count, &bt, ph, m);
        TTFT_TPOT_FREE(bt.run, c->alloc_user);
        ttft_tpot__work_free(c, &w);
        steady = s->ttft_steady.n ? s->ttft_steady.p50_ns : (double)s->prefill_kernel_min_ns;
        m->head.ttft_first_slower = !s->has_ttft_first || (!s->ttft_steady.n && !s->has_prefill_kernel) ? -1
                                    : (double)s->ttft_first_ns > steady;
    }
    if (ph)
        TTFT_TPOT_FREE(ph, c->alloc_user);
    if (count)
        TTFT_TPOT_FREE(count, c->alloc_user);
    return rc;
}

/* Each stored sample's own device time into own[] (UINT64_MAX: none): the sum of its intervals that
   are not parts, or of its parts when it has only those; then a step's, when it has none, the sum of
   the kernels it dispatched (those since the step before). */
static void ttft_tpot__step_device(const ttft_tpot *c, uint64_t *own)
{
    const uint64_t top = (uint64_t)1 << 63, most = TTFT_TPOT__DEVICE_SUM_MAX; /* parts' sums carry top */
    uint64_t acc = 0;
    size_t i, k;
    int pass, has_acc = 0;
    for (i = 0; i < c->store.n; i++)
        own[i] = UINT64_MAX;
    for (pass = 0; pass < 2; pass++) /* the whole intervals first; parts where a sample has none */
        for (k = 0; k < c->dev.n; k++) {
            const ttft_tpot_device_interval *d = &c->dev.log[k];
            uint64_t *o = d->sample && d->sample <= c->store.n ? &own[d->sample - 1] : NULL, cur;
            if (!o || d->state == TTFT_TPOT_DEVICE_OPEN || d->part != pass || (pass && !(*o & top)))
                continue;
            cur = ttft_tpot__sat_add(*o == UINT64_MAX ? 0 : *o & ~top, d->device_ns);
            *o = (cur < most ? cur : most) | (pass ? top : 0);
        }
    for (i = 0; i < c->store.n; i++)
        own[i] = own[i] == UINT64_MAX ? own[i] : own[i] & ~top;
    for (i = 0; i < c->store.n; i++) {
        int role = c->phase.slots[c->store.samples[i].phase].role;
        if (role == TTFT_TPOT_ROLE_KERNEL) {
            if (own[i] != UINT64_MAX)
                acc = ttft_tpot__sat_add(acc, own[i]), has_acc = 1;
            continue;
        }
        if (own[i] == UINT64_MAX && has_acc)
            own[i] = acc < most ? acc : most;
        acc = 0;
        has_acc = 0;
    }
}

/* The steady steps of role with device time: their device times (a decode step's per output token)
   into x, their stats into st; returns their device time over their wall time (-1: no wall time). */
static double ttft_tpot__device_steps(const ttft_tpot *c, const uint64_t *own, int role, uint64_t *x,
                                      const ttft_tpot__narrow *nw, ttft_tpot_stats *st)
{
    size_t i, m = 0;
    double wall = 0, busy = 0;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (own[i] == UINT64_MAX || s->warmup || c->phase.slots[s->phase].role != role)
            continue;
        x[m++] = role == TTFT_TPOT_ROLE_DECODE ? ttft_tpot__per_token(c, i, own[i]) : own[i];
        wall += (double)s->dur_ns;
        busy += (double)own[i]; /* the step's whole device time */
        st->tokens += s->tokens;
    }
    ttft_tpot__fill(x, m, nw, st);
    return wall > 0 ? busy / wall : -1;
}

/* A resolved interval's figure of a kind (0 device time, 1 queue delay, 2 launch overhead, 3 queue
   wait, 4 and 5 device time of the elapsed and the absolute form) into *v: 1, or 0 where it has none.
   A stamp mapped before the host issue gives 0; *early gets by how much (0 when it was not). */
static int ttft_tpot__device_figure(const ttft_tpot_device_interval *d, int kind, uint64_t *v, uint64_t *early)
{
    /* the wait from the queued stamp, or from the issue where it maps before (launch + wait = queue) */
    uint64_t from = kind == 3 && d->queued_ns > d->issue_ns ? d->queued_ns : d->issue_ns;
    uint64_t to = kind == 2 ? d->queued_ns : d->begin_ns;
    *early = 0;
    *v = d->device_ns;
    if (kind == 0 || kind >= 4)
        return kind == 0 || (kind == 4) == (d->state == TTFT_TPOT_DEVICE_ELAPSED);
    if (!from || !to || (kind >= 2 && !d->queued_ns))
        return 0;
    *early = to < from ? from - to : 0;
    *v = to > from ? to - from : 0;
    return 1;
}

/* Where a phase keeps the figures of a kind (ttft_tpot__device_figure). */
static ttft_tpot_stats *ttft_tpot__device_stats(ttft_tpot_phase_figures *f, int kind)
{
    ttft_tpot_stats *const of[6] = {&f->device, &f->queue, &f->launch, &f->wait, &f->pairs, &f->records};
    return of[kind];
}

/* Each phase's device, queue-delay, launch and wait statistics over its resolved intervals of steady
   samples, grouped by phase (a counting sort into x: at[p] is where phase p's begin), and where a
   phase has intervals of both forms, each form's device time. */
static void ttft_tpot__device_phases(const ttft_tpot *c, ttft_tpot_model *m, uint64_t *x, size_t *at,
                                     const ttft_tpot__narrow *nw)
{
    ttft_tpot_device_figures *f = &m->device;
    size_t k, p, from;
    uint64_t v, early;
    int kind, kinds = f->elapsed && f->elapsed < f->intervals ? 6 : 4; /* both forms in the collector */
    for (kind = 0; kind < kinds; kind++) {
        memset(at, 0, (c->phase.n + 1) * sizeof *at);
        for (k = 0; k < c->dev.n; k++) {
            const ttft_tpot_device_interval *d = &c->dev.log[k];
            if (d->state != TTFT_TPOT_DEVICE_OPEN && !d->warmup && ttft_tpot__device_figure(d, kind, &v, &early))
                at[d->phase + 1]++;
        }
        for (p = 0; p < c->phase.n; p++)
            at[p + 1] += at[p];
        for (k = 0; k < c->dev.n; k++) {
            const ttft_tpot_device_interval *d = &c->dev.log[k];
            if (d->state == TTFT_TPOT_DEVICE_OPEN || d->warmup || !ttft_tpot__device_figure(d, kind, &v, &early))
                continue;
            if ((kind == 1 || kind == 2) && early) { /* the clock pair is off by at least that */
                uint64_t *most = kind == 1 ? &f->clamped_max_ns : &f->queued_clamped_max_ns;
                f->queue_clamped += kind == 1;
                f->queued_clamped += kind == 2;
                *most = early > *most ? early : *most;
            }
            x[at[d->phase]++] = v;
        }
        for (p = 0, from = 0; p < c->phase.n; from = at[p++]) /* at[p] is now where phase p ends */
            ttft_tpot__fill(x + from, at[p] - from, nw, ttft_tpot__device_stats(&m->phase[p], kind));
    }
    for (p = 0; p < c->phase.n; p++) { /* a phase of one form has nothing to compare */
        ttft_tpot_phase_figures *ph = &m->phase[p];
        if (!ph->pairs.n || !ph->records.n) {
            memset(&ph->pairs, 0, sizeof ph->pairs);
            memset(&ph->records, 0, sizeof ph->records);
        }
    }
}

/* How many steady prefill and decode steps there are, and how many of them went on in histograms. */
static void ttft_tpot__device_steps_all(const ttft_tpot *c, ttft_tpot_device_figures *f)
{
    size_t i;
    unsigned p;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        int role = c->phase.slots[s->phase].role;
        f->ttft_steps += !s->warmup && role == TTFT_TPOT_ROLE_PREFILL;
        f->tpot_steps += !s->warmup && role == TTFT_TPOT_ROLE_DECODE;
    }
    for (p = 0; p < c->phase.n; p++) {
        const ttft_tpot__phase_slot *ph = &c->phase.slots[p];
        uint64_t n = ph->hist ? ttft_tpot__hist_count(ph->hist) : 0;
        if (ph->role == TTFT_TPOT_ROLE_PREFILL)
            f->ttft_hist += n;
        if (ph->role == TTFT_TPOT_ROLE_DECODE)
            f->tpot_hist += n;
    }
    f->ttft_steps += f->ttft_hist;
    f->tpot_steps += f->tpot_hist;
}

/* The device figures (ttft_tpot_device_figures): OK or ENOMEM. step_ns is the model's. */
static int ttft_tpot__device_of(const ttft_tpot *c, ttft_tpot_model *m)
{
    ttft_tpot_device_figures *f = &m->device;
    size_t n = c->store.n > c->dev.n ? c->store.n : c->dev.n, k;
    uint64_t *own, *x;
    size_t *at;
    ttft_tpot__narrow nw;
    double busy;
    for (k = 0; k < c->dev.n; k++) {
        f->intervals += c->dev.log[k].state != TTFT_TPOT_DEVICE_OPEN;
        f->parts += c->dev.log[k].state != TTFT_TPOT_DEVICE_OPEN && c->dev.log[k].part;
        f->elapsed += c->dev.log[k].state == TTFT_TPOT_DEVICE_ELAPSED;
        f->queued += c->dev.log[k].state != TTFT_TPOT_DEVICE_OPEN && c->dev.log[k].queued_ns;
    }
    ttft_tpot__device_steps_all(c, f);
    if (!c->dev.n)
        return TTFT_TPOT_OK;
    own = (uint64_t *)TTFT_TPOT_MALLOC((c->store.n + 1) * sizeof *own, c->alloc_user);
    x = (uint64_t *)TTFT_TPOT_MALLOC((n + 1) * sizeof *x + (c->phase.n + 1) * sizeof *at, c->alloc_user);
    if (!own || !x || ttft_tpot__narrow_init(c, &nw, n) != TTFT_TPOT_OK) {
        if (own)
            TTFT_TPOT_FREE(own, c->alloc_user);
        if (x)
            TTFT_TPOT_FREE(x, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    at = (size_t *)(void *)(x + n + 1);
    f->step_ns = own;
    ttft_tpot__step_device(c, own);
    for (k = 0; k < c->store.n; k++)
        f->held += own[k] == TTFT_TPOT__DEVICE_SUM_MAX;
    ttft_tpot__device_phases(c, m, x, at, &nw);
    (void)ttft_tpot__device_steps(c, own, TTFT_TPOT_ROLE_PREFILL, x, &nw, &f->ttft_steady);
    busy = ttft_tpot__device_steps(c, own, TTFT_TPOT_ROLE_DECODE, x, &nw, &f->tpot);
    f->busy_steps = f->tpot.n;
    if ((f->has_busy = f->tpot.n && busy >= 0) != 0)
        f->busy_fraction = busy;
    TTFT_TPOT_FREE(x, c->alloc_user);
    ttft_tpot__narrow_free(c, &nw);
    return TTFT_TPOT_OK;
}

/* Each kernel phase's share of steady decode time (ttft_tpot_phase_figures.decode_share), in one pass:
   a kernel's time waits in pend until the next prefill, decode or e2e sample, which takes it when it
   is a steady decode step; since lists the kernels waiting, so that a step visits only those. */
/* A kernel sample's exclusive time: its duration less its direct children's, the kernel spans that
   ended before it and began inside it. The step's kernels in end order form a stack of [start, dur]
   (st, 2 a sample): those that began at or after this one's start are its children. *holds: it had one. */
static uint64_t ttft_tpot__self_ns(const ttft_tpot *c, size_t i, uint64_t *st, size_t *top, int *holds)
{
    uint64_t start = c->store.starts ? c->store.starts[i] : 0, dur = c->store.samples[i].dur_ns, child = 0;
    while (start && *top > 0 && st[2 * (*top - 1)] >= start) { /* start 0: unknown, holds nothing */
        child += st[2 * (*top - 1) + 1];
        --*top;
    }
    *holds = child > 0;
    st[2 * *top] = start, st[2 * *top + 1] = dur;
    ++*top;
    return child < dur ? dur - child : 0;
}

/* The kernels pending since the last step, added to the step's shares when it is steady. */
static void ttft_tpot__shares_flush(ttft_tpot_model *m, unsigned *since, unsigned *n, double *pend, unsigned char *listed,
                                    int steady)
{
    size_t np = m->phases ? m->phases : 1;
    for (; *n > 0; --*n) {
        unsigned k = since[*n - 1];
        m->phase[k].decode_share += steady ? pend[k] : 0;
        m->phase[k].decode_share_self += steady ? pend[np + k] : 0;
        pend[k] = pend[np + k] = 0;
        listed[k] = 0;
    }
}

/* The kernel samples a stack of nested spans may hold at most: those the phase figures counted (none:
   no kernel sample, nothing to share out), or every stored sample where they were not computed. */
static size_t ttft_tpot__kernel_samples(const ttft_tpot *c, const ttft_tpot_model *m)
{
    size_t n = 0;
    unsigned p;
    if (m->skipped & TTFT_TPOT_SKIP_SAMPLES)
        return c->store.n;
    for (p = 0; p < c->phase.n; p++)
        n += m->phase[p].role == TTFT_TPOT_ROLE_KERNEL ? (size_t)m->phase[p].all.n : 0;
    return n < c->store.n ? n : c->store.n;
}

static int ttft_tpot__shares_of(const ttft_tpot *c, ttft_tpot_model *m)
{
    size_t np = c->phase.n ? c->phase.n : 1, i, top = 0, kernels = ttft_tpot__kernel_samples(c, m);
    size_t bytes = np * (2 * sizeof(double) + sizeof(unsigned) + 1);
    double *pend, total = 0; /* inclusive, then self */
    uint64_t *st;
    unsigned *since, n = 0, p;
    unsigned char *listed;
    int holds;
    if (!kernels) /* every share 0, as the model starts: no pass over the samples */
        return TTFT_TPOT_OK;
    pend = (double *)TTFT_TPOT_MALLOC(bytes, c->alloc_user);
    st = (uint64_t *)TTFT_TPOT_MALLOC((2 * kernels + 2) * sizeof *st, c->alloc_user);
    if (!pend || !st) {
        if (pend)
            TTFT_TPOT_FREE(pend, c->alloc_user);
        if (st)
            TTFT_TPOT_FREE(st, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    memset(pend, 0, bytes);
    since = (unsigned *)(void *)(pend + 2 * np);
    listed = (unsigned char *)(since + np);
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        int role = c->phase.slots[s->phase].role;
        if (role == TTFT_TPOT_ROLE_KERNEL) {
            if (!listed[s->phase])
                since[n++] = s->phase, listed[s->phase] = 1;
            pend[s->phase] += (double)s->dur_ns;
            pend[np + s->phase] += (double)ttft_tpot__self_ns(c, i, st, &top, &holds);
            m->phase[s->phase].nests |= holds;
            continue;
        }
        ttft_tpot__shares_flush(m, since, &n, pend, listed, role == TTFT_TPOT_ROLE_DECODE && !s->warmup);
        total += role == TTFT_TPOT_ROLE_DECODE && !s->warmup ? (double)s->dur_ns : 0;
        top = 0;
    }
    for (p = 0; p < c->phase.n; p++) {
        m->phase[p].decode_share = total > 0 ? m->phase[p].decode_share / total : 0;
        m->phase[p].decode_share_self = total > 0 ? m->phase[p].decode_share_self / total : 0;
    }
    TTFT_TPOT_FREE(st, c->alloc_user);
    TTFT_TPOT_FREE(pend, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* The limit a counted loss met (ttft_tpot.full_at order): the recording collector's when the losses
   came from a trace, so that a trace's report names the same sizes as the live one. */
static uint64_t ttft_tpot__limit(const ttft_tpot *c, int k)
{
    const uint64_t own[2] = {c->store.capacity, c->shape.max};
    return c->full_known >> k & 1u ? c->full_at[k] : own[k];
}

static void ttft_tpot__losses_of(const ttft_tpot *c, ttft_tpot_losses *l)
{
    l->dropped = c->store.dropped;
    l->rejected = c->rejected;
    l->spans_open = ttft_tpot__spans_open(c);
    l->spans_cancelled = c->spans_cancelled;
    l->outgrown = c->store.outgrown;
    l->shapes_dropped = c->shape.dropped;
    l->sequences_lost = c->store.seq_lost;
    l->sequences_in_histogram = c->store.seq_hist;
    l->runs_dropped = c->runs_dropped;
    l->capacity = ttft_tpot__limit(c, 0);
    l->max_shapes = ttft_tpot__limit(c, 1);
    memset(&l->layer, 0, sizeof l->layer);
    if (c->layer && c->layer->counts) { /* its refusals are calls refused too */
        c->layer->counts(c->layer->state, &l->layer);
        l->rejected += l->layer.rejected;
    }
}

/* The runs' bounds, the intervals and the samples' arrays: what a model lends a tool to read c by. */
static void ttft_tpot__lend(const ttft_tpot *c, ttft_tpot_model *m)
{
    unsigned r;
    m->collector = c;
    m->samples = c->store.samples;
    m->n_samples = c->store.n;
    m->starts = c->store.starts;
    m->sequences = c->store.seqs;
    m->intervals = c->dev.log;
    m->n_intervals = c->dev.n;
    m->runs.n = c->runs;
    for (r = 0; r < c->runs; r++) {
        m->runs.first[r] = c->run_at[r];
        m->runs.end[r] = ttft_tpot__run_end(c, r);
    }
    m->device.open = c->dev.open;
    m->device.unresolved = c->dev.unresolved;
    m->device.refused = c->dev.refused;
    m->clock_name = c->clock_name[0] ? c->clock_name : "unknown";
    m->clock_read_ns = c->clock_read_ns;
    m->started_ns = c->started_ns;
    m->phases = c->phase.n;
    ttft_tpot__losses_of(c, &m->losses);
}

/* The figures of what m->skipped leaves in, the layer's last. */
static int ttft_tpot__figures(const ttft_tpot *c, ttft_tpot_model *m)
{
    int rc = TTFT_TPOT_OK;
    if (!(m->skipped & TTFT_TPOT_SKIP_SAMPLES))
        rc = ttft_tpot__sample_figures(c, m);
    if (rc == TTFT_TPOT_OK && !(m->skipped & TTFT_TPOT_SKIP_SHARES))
        rc = ttft_tpot__shares_of(c, m);
    if (rc == TTFT_TPOT_OK && !(m->skipped & TTFT_TPOT_SKIP_DEVICE)) /* nothing to do without device intervals */
        rc = ttft_tpot__device_of(c, m);
    m->head.rejected = m->losses.rejected;
    if (rc == TTFT_TPOT_OK && !(m->skipped & TTFT_TPOT_SKIP_LAYER) && c->layer && c->layer->compute)
        rc = c->layer->compute(c->layer->state, m);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_model_compute(const ttft_tpot *c, const ttft_tpot_model_options *options,
                                          ttft_tpot_model *m)
{
    size_t np;
    unsigned p;
    int rc, kernel = options ? options->prefill_kernel - 1 : -1;
    if (m)
        memset(m, 0, sizeof *m); /* zeroed whatever is returned: safe to free */
    if (!c || !m || kernel < -1 || kernel >= (int)c->phase.n)
        return TTFT_TPOT_EINVAL;
    np = c->phase.n ? c->phase.n : 1;
    ttft_tpot__lend(c, m);
    m->alloc_user = c->alloc_user;
    m->skipped = options ? options->skip : 0;
    m->prefill_kernel = kernel;
    if (m->skipped & TTFT_TPOT_SKIP_PHASES) { /* a view of what lend gave: nothing to compute */
        m->skipped |= TTFT_TPOT_SKIP_ALL;
        return TTFT_TPOT_OK;
    }
    m->phase = (ttft_tpot_phase_figures *)TTFT_TPOT_MALLOC(np * (sizeof *m->phase + sizeof *m->order), c->alloc_user);
    if (!m->phase) {
        memset(m, 0, sizeof *m);
        return TTFT_TPOT_ENOMEM;
    }
    memset(m->phase, 0, np * sizeof *m->phase);
    m->order = (unsigned *)(void *)(m->phase + np);
    for (p = 0; p < c->phase.n; p++) {
        m->phase[p].name = c->phase.slots[p].name;
        m->phase[p].role = c->phase.slots[p].role;
        m->order[p] = p; /* the census orders them */
    }
    if ((rc = ttft_tpot__figures(c, m)) != TTFT_TPOT_OK)
        ttft_tpot_model_free(m);
    return rc;
}

TTFT_TPOT_DEF void ttft_tpot_model_free(ttft_tpot_model *m)
{
    const ttft_tpot *c;
    if (!m)
        return;
    c = m->collector;
    if (m->layer && c && c->layer && c->layer->model_free)
        c->layer->model_free(c->layer->state, m);
    if (m->phase)
        TTFT_TPOT_FREE(m->phase, m->alloc_user);
    if (m->device.step_ns)
        TTFT_TPOT_FREE(m->device.step_ns, m->alloc_user);
    memset(m, 0, sizeof *m);
}

/* ---- Writers (the writer, text, JSON) -------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* A helper called from many places, kept out of line (each call is smaller than its body). */
#if defined(__GNUC__) || defined(__clang__)
#define TTFT_TPOT__NOINLINE __attribute__((noinline))
#else
#define TTFT_TPOT__NOINLINE
#endif

/* -- Writers: numbers, units and names as text ------------------------------------------------- */

/* One double through printf, with '.' as the decimal point whatever LC_NUMERIC says: every output is
   locale-independent, the text report included (it is pasted and grepped). The locale's decimal
   point is the one run of bytes in the output that is not a digit, sign or exponent. fmt NULL: the
   format ttft_tpot__fix picks for `places` (one body for both: dozens of calls stay small). */
static const char *ttft_tpot__numf(char *buf, size_t len, const char *fmt, int places, double v)
{
    static const char *const fixed[3] = {"%.0f", "%.1f", "%.2f"};
    static const double half[3] = {0.5, 0.05, 0.005};
    char *p, *q;
    if (!fmt) /* ttft_tpot__fix */
        fmt = v > 0 && v < half[places] ? "%.3g" : fixed[places];
    snprintf(buf, len, fmt, v);
    if (!ttft_tpot__finite(v)) /* inf or nan: no decimal point to mend */
        return buf;
    for (p = buf; *p && strchr("0123456789+-eE", *p); p++)
        ;
    for (q = p; *q && !strchr("0123456789+-eE", *q); q++)
        ;
    if (*p) {
        *p = '.';
        memmove(p + 1, q, strlen(q) + 1);
    }
    return buf;
}

/* v through fmt (ttft_tpot__numf). */
static const char *ttft_tpot__num(char *buf, size_t len, const char *fmt, double v)
{
    return ttft_tpot__numf(buf, len, fmt, 0, v);
}

/* v with `places` decimals ("%.2f"), or, when that would print a positive v as 0, with 3 significant
   digits ("5.42e-11"): no figure reads 0 that is not. */
static const char *ttft_tpot__fix(char *buf, size_t len, int places, double v)
{
    return ttft_tpot__numf(buf, len, NULL, places, v);
}

/* The plural ending of a count's noun: "1 call", "2 calls". */
static const char *ttft_tpot__s(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

/* The unit a duration reads well in: its size in ns, and its name ("s", "ms", "us", "ns"). */
static TTFT_TPOT__NOINLINE double ttft_tpot__unit(double ns, const char **name)
{
    static const char names[4][3] = {"ns", "us", "ms", "s"};
    static const double units[4] = {1, 1e3, 1e6, 1e9};
    int k = (ns >= 1e3) + (ns >= 1e6) + (ns >= 1e9);
    *name = names[k];
    return units[k];
}

/* ns in unit (ttft_tpot__unit): 2 decimals, whole ns. */
static TTFT_TPOT__NOINLINE const char *ttft_tpot__in(char *buf, size_t len, double ns, double unit)
{
    return ttft_tpot__fix(buf, len, unit > 1 ? 2 : 0, ns / unit);
}

/* A duration in a unit that reads well: "7.99 s", "52.70 ms", "850.00 us", "93 ns". */
static const char *ttft_tpot__dur(char *buf, size_t len, double ns)
{
    const char *name;
    double unit = ttft_tpot__unit(ns, &name);
    size_t n = strlen(ttft_tpot__in(buf, len - 3, ns, unit)); /* room for the unit (len is 32) */
    buf[n] = ' ';
    memcpy(buf + n + 1, name, strlen(name) + 1);
    return buf;
}

static int ttft_tpot__finish(FILE *out)
{
    return ferror(out) ? TTFT_TPOT_EIO : TTFT_TPOT_OK;
}

/* -- Writers: the block ------------------------------------------------------------------------ */

/* Output gathered in a block and written with one fwrite a block: every writer formats numbers and
   copies names, escaped once, into it instead of calling stdio for each field. The writers of a line
   an event take a large block (it saves system calls: 256 KiB); the reports, whose output is small,
   take TTFT_TPOT__OUT_MIN on the stack. A writer without a stream is a string: what passes its block
   is cut, and it always ends with a NUL. */
#define TTFT_TPOT__OUT_BIG 262144
#define TTFT_TPOT__OUT_MIN 16384

static TTFT_TPOT__NOINLINE void ttft_tpot__out_flush(ttft_tpot_writer *o)
{
    if (o->n && o->f)
        fwrite(o->b, 1, o->n, (FILE *)o->f);
    if (o->f)
        o->n = 0;
}

static void ttft_tpot__out_put(ttft_tpot_writer *o, const char *s, size_t len)
{
    if (!o->f) { /* a string: as much as fits, ended */
        size_t room = o->cap - 1 - o->n;
        len = len < room ? len : room;
        memcpy(o->b + o->n, s, len);
        o->b[o->n += len] = '\0';
        return;
    }
    if (o->n + len > o->cap)
        ttft_tpot__out_flush(o);
    if (len > o->cap) {
        fwrite(s, 1, len, (FILE *)o->f);
        return;
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

static TTFT_TPOT__NOINLINE void ttft_tpot__out_str(ttft_tpot_writer *o, const char *s)
{
    ttft_tpot__out_put(o, s, strlen(s));
}

/* Room for need bytes (at most TTFT_TPOT__OUT_MIN) at the end of a block that has a stream: where to
   write them; the caller sets o->n past what it wrote. */
static char *ttft_tpot__out_room(ttft_tpot_writer *o, size_t need)
{
    if (o->n + need > o->cap)
        ttft_tpot__out_flush(o);
    return o->b + o->n;
}

/* A string literal at p: p past it. */
#define TTFT_TPOT__LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

static const char ttft_tpot__two_digits[201] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* v < 100 as two digits. */
static const char *ttft_tpot__pair(uint32_t v)
{
    return ttft_tpot__two_digits + 2 * (size_t)v;
}

/* v < 1e8 as exactly 8 digits at p: its four pairs computed apart (no chain of divisions). */
static void ttft_tpot__put8(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, ttft_tpot__pair(hi / 100), 2);
    memcpy(p + 2, ttft_tpot__pair(hi % 100), 2);
    memcpy(p + 4, ttft_tpot__pair(lo / 100), 2);
    memcpy(p + 6, ttft_tpot__pair(lo % 100), 2);
}

/* v < 1e8 in decimal at p, two digits a step: p past it. */
static char *ttft_tpot__put_small(char *p, uint32_t v)
{
    uint32_t t = v;
    size_t n = 1, k;
    for (; t >= 100; t /= 100) /* the digits: two a step, then one more where t >= 10 */
        n += 2;
    n += t >= 10;
    for (k = n; v >= 100; v /= 100) {
        k -= 2;
        memcpy(p + k, ttft_tpot__pair(v % 100), 2);
    }
    if (v >= 10)
        memcpy(p, ttft_tpot__pair(v), 2);
    else
        p[0] = (char)('0' + v);
    return p + n;
}

/* v in decimal at p (20 bytes at most): p past it. A time in ns has 10 to 19 digits: its low 8 (and
   the 8 above them) come whole. */
static char *ttft_tpot__put_u64(char *p, uint64_t v)
{
    if (v < 100000000)
        return ttft_tpot__put_small(p, (uint32_t)v);
    if (v < 10000000000000000ull)
        p = ttft_tpot__put_small(p, (uint32_t)(v / 100000000));
    else {
        p = ttft_tpot__put_small(p, (uint32_t)(v / 10000000000000000ull));
        ttft_tpot__put8(p, (uint32_t)(v / 100000000 % 100000000));
        p += 8;
    }
    ttft_tpot__put8(p, (uint32_t)(v % 100000000));
    return p + 8;
}

static TTFT_TPOT__NOINLINE void ttft_tpot__out_chr(ttft_tpot_writer *o, char ch)
{
    if (o->f && o->n < o->cap)
        o->b[o->n++] = ch;
    else
        ttft_tpot__out_put(o, &ch, 1);
}

/* printf into the block: the figures that need a format (integers and strings only: no locale). A
   text longer than the block goes to the file whole; a string's is cut. */
static void ttft_tpot__out_fmt(ttft_tpot_writer *o, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(o->b + o->n, o->cap - o->n, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n < o->cap - o->n || !o->f) {
        o->n += n < 0 ? 0 : (size_t)n < o->cap - o->n ? (size_t)n : o->cap - 1 - o->n;
        return;
    }
    ttft_tpot__out_flush(o);
    va_start(ap, fmt);
    if ((size_t)n < o->cap)
        o->n = (size_t)vsnprintf(o->b, o->cap, fmt, ap);
    else
        vfprintf((FILE *)o->f, fmt, ap);
    va_end(ap);
}

/* A block of cap bytes at b for f. */
static void ttft_tpot__out_open(ttft_tpot_writer *o, FILE *f, char *b, size_t cap)
{
    o->f = f;
    o->b = b;
    o->n = 0;
    o->cap = cap;
    o->err = 0;
}

/* The block written out, and whether all of it reached the file. */
static int ttft_tpot__out_close(ttft_tpot_writer *o)
{
    ttft_tpot__out_flush(o);
    return ttft_tpot__finish((FILE *)o->f);
}

/* Whether a model holds the parts a writer prints (TTFT_TPOT_SKIP_* bits). */
static int ttft_tpot__holds(const ttft_tpot_model *m, unsigned parts)
{
    return m && !(m->skipped & parts);
}

/* s[0, len) escaped for a JSON string (quotes and backslashes escaped, control characters as \\u00XX,
   bytes that are not UTF-8 as U+FFFD), unquoted, into dst, which holds 6 len bytes: its length. */
static size_t ttft_tpot__json_esc(char *dst, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef", ctl[4] = {'\\', 'u', '0', '0'},
                      bad[6] = {'\\', 'u', 'f', 'f', 'f', 'd'}; /* U+FFFD */
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, n = 0, k;
    while (i < len) {
        if (s[i] == '"' || s[i] == '\\') {
            dst[n++] = '\\';
            dst[n++] = (char)s[i++];
        } else if (s[i] < 0x20) {
            memcpy(dst + n, ctl, 4);
            dst[n + 4] = hex[s[i] >> 4];
            dst[n + 5] = hex[s[i++] & 15];
            n += 6;
        } else if ((k = ttft_tpot__utf8_len(s + i, len - i)) == 0) {
            memcpy(dst + n, bad, 6);
            n += 6;
            i++;
        } else {
            memcpy(dst + n, s + i, k);
            n += k;
            i += k;
        }
    }
    return n;
}

/* A JSON string, escaped in pieces of at most 64 bytes, each ending before a UTF-8 continuation byte
   (so that no character is split: the same bytes as escaping it whole). */
static void ttft_tpot__json_str(ttft_tpot_writer *out, const char *str)
{
    size_t len = strlen(str), at = 0, end, back;
    char piece[384]; /* 64 bytes escaped */
    ttft_tpot__out_chr(out, '"');
    while (at < len) {
        end = len - at <= 64 ? len : at + 64;
        for (back = 0; end < len && back < 3 && ((unsigned char)str[end] & 0xC0) == 0x80; back++)
            end--;
        ttft_tpot__out_put(out, piece, ttft_tpot__json_esc(piece, str + at, end - at));
        at = end;
    }
    ttft_tpot__out_chr(out, '"');
}

/* Integer ns as ms with 6 decimals, trailing zeros trimmed: exact. */
static void ttft_tpot__json_ms_u64(ttft_tpot_writer *out, uint64_t r)
{
    char text[32], *p = ttft_tpot__put_u64(text, r / 1000000);
    uint32_t frac = (uint32_t)(r % 1000000);
    int k;
    *p++ = '.';
    for (k = 5; k >= 0; k--, frac /= 10)
        p[k] = (char)('0' + frac % 10);
    for (k = 5; k > 0 && p[k] == '0'; k--) /* "2.5", "2.0": at least one decimal */
        ;
    ttft_tpot__out_put(out, text, (size_t)(p + k + 1 - text));
}

/* ns as ms to the nanosecond (rounded); past 2^64 ns in %.6f, never NaN or inf (null). */
static void ttft_tpot__json_ms(ttft_tpot_writer *out, double ns)
{
    char buf[400];
    int ok = ttft_tpot__finite(ns) && ns >= 0.0 && ns < 1e300;
    if (ok && ns < TTFT_TPOT__TWO64)
        ttft_tpot__json_ms_u64(out, ttft_tpot__round_ns(ns));
    else
        ttft_tpot__out_str(out, ok ? ttft_tpot__num(buf, sizeof buf, "%.6f", ns / 1e6) : "null");
}

static void ttft_tpot__json_num(ttft_tpot_writer *out, int has, double v)
{
    char buf[64];
    if (has && ttft_tpot__finite(v))
        ttft_tpot__out_str(out, ttft_tpot__num(buf, sizeof buf, "%.17g", v));
    else
        ttft_tpot__out_str(out, "null");
}

static void ttft_tpot__json_kv_ms(ttft_tpot_writer *out, const char *key, double ns)
{
    ttft_tpot__out_fmt(out, ",\"%s\":", key);
    ttft_tpot__json_ms(out, ns);
}

/* Whether the figures came from a histogram, and how far they may be from exact (1/128). */
static void ttft_tpot__json_approx(ttft_tpot_writer *out, const ttft_tpot_stats *st)
{
    if (st->approx)
        ttft_tpot__out_str(out, ",\"approximate\":true,\"max_rel_err\":0.0078125");
    else
        ttft_tpot__out_str(out, ",\"approximate\":false");
}

/* The chosen percentiles beyond p50/p90/p95/p99 (config.percentiles), ,"p99.9<sfx>":N each. */
static void ttft_tpot__json_picks(ttft_tpot_writer *out, const ttft_tpot_stats *st, const char *sfx)
{
    char name[12];
    unsigned k;
    for (k = 0; k < st->pick_n; k++)
        if (st->pick_pm[k] != 50000 && st->pick_pm[k] != 90000 && st->pick_pm[k] != 95000 && st->pick_pm[k] != 99000) {
            ttft_tpot__out_fmt(out, ",\"%s%s\":", ttft_tpot__percentile_name(name, sizeof name, st->pick_pm[k]), sfx);
            ttft_tpot__json_ms_u64(out, st->pick_ns[k]);
        }
}

/* The figures of a statistics object, one shape across the report: mean, p50, p90, p95, p99, min,
   max and total, and whether they come from a histogram; keys end in sfx ("_ms"; the requests'
   STATS have none). No sample: total 0, the others null. The caller opens the object, and writes
   its own keys ("n" first) before these. */
static void ttft_tpot__json_figures(ttft_tpot_writer *out, const ttft_tpot_stats *st, const char *sfx)
{
    static const char *const names[8] = {"mean", "p50", "p90", "p95", "p99", "min", "max", "total"};
    const uint64_t exact[6] = {st->pct_ns[0], st->pct_ns[1], st->pct_ns[2], st->pct_ns[3], st->min_ns, st->max_ns};
    int k;
    for (k = 0; k < 8; k++) {
        ttft_tpot__out_fmt(out, ",\"%s%s\":", names[k], sfx);
        if (!st->n)
            ttft_tpot__out_str(out, k == 7 ? "0" : "null");
        else if (k == 0 || k == 7)
            ttft_tpot__json_ms(out, k ? st->total_ns : st->mean_ns);
        else
            ttft_tpot__json_ms_u64(out, exact[k - 1]);
        if (k == 4 && st->n)
            ttft_tpot__json_picks(out, st, sfx);
    }
    if (st->n)
        ttft_tpot__json_approx(out, st);
    ttft_tpot__out_str(out, ",\"ci95\":{");
    for (k = 0; k < 3; k++) {
        ttft_tpot__out_fmt(out, k ? ",\"p%u\":" : "\"p%u\":", ttft_tpot__ci_pcts[k]);
        if (!st->n || !st->has_ci[k]) {
            ttft_tpot__out_str(out, "null");
            continue;
        }
        ttft_tpot__out_chr(out, '[');
        ttft_tpot__json_ms_u64(out, st->ci_ns[k][0]);
        ttft_tpot__out_chr(out, ',');
        ttft_tpot__json_ms_u64(out, st->ci_ns[k][1]);
        ttft_tpot__out_chr(out, ']');
    }
    ttft_tpot__out_chr(out, '}');
}

/* STATS = {"n":N,"mean":N,"p50":N,"p90":N,"p95":N,"p99":N,"min":N,"max":N,"total":N,
   "approximate":B} in ms, or null (%S). */
static void ttft_tpot__json_stats(ttft_tpot_writer *out, const ttft_tpot_stats *st)
{
    if (!st->n) {
        ttft_tpot__out_str(out, "null");
        return;
    }
    ttft_tpot__out_fmt(out, "{\"n\":%llu", (unsigned long long)st->n);
    ttft_tpot__json_figures(out, st, "");
    ttft_tpot__out_chr(out, '}');
}

/* ,"KEY":STATS */
static void ttft_tpot__json_kv_stats(ttft_tpot_writer *out, const char *key, const ttft_tpot_stats *st)
{
    ttft_tpot__out_fmt(out, ",\"%s\":", key);
    ttft_tpot__json_stats(out, st);
}

/* {"flagged":N,"mser5_truncation":N,"no_steady_state":B,"p50_ms_after_truncation":N|null,"spikes":N,
   "spike":[{"step":N,"ms":N},...]}, or null where the samples are not all kept in call order (a bounded
   phase) (%W). */
static void ttft_tpot__json_steady_state(ttft_tpot_writer *out, const ttft_tpot_steady_state *ss)
{
    uint64_t k;
    if (!ss->measured) {
        ttft_tpot__out_str(out, "null");
        return;
    }
    ttft_tpot__out_fmt(out,
                       "{\"flagged\":%llu,\"mser5_truncation\":%llu,\"no_steady_state\":%s,"
                       "\"p50_ms_after_truncation\":",
                       (unsigned long long)ss->flagged, (unsigned long long)ss->truncation,
                       ss->drift ? "true" : "false");
    if (ss->has_p50)
        ttft_tpot__json_ms_u64(out, ss->p50_exact_ns);
    else
        ttft_tpot__out_str(out, "null");
    ttft_tpot__out_fmt(out, ",\"spikes\":%llu,\"spike\":[", (unsigned long long)ss->spikes);
    for (k = 0; k < ss->spikes && k < TTFT_TPOT_SPIKES_LISTED; k++) {
        ttft_tpot__out_fmt(out, "%s{\"step\":%llu,\"ms\":", k ? "," : "", (unsigned long long)ss->spike_step[k]);
        ttft_tpot__json_ms_u64(out, ss->spike_ns[k]);
        ttft_tpot__out_chr(out, '}');
    }
    ttft_tpot__out_str(out, "]}");
}

/* A series' isolated spikes, the first TTFT_TPOT__SPIKES_SHOWN of them: "decode_step: 2 isolated spikes:
   step 120 at 9.00 ms (3.0x the steady p50), step 170 at 9.00 ms (3.0x)". what: "step" or "request" (%K). */
#define TTFT_TPOT__SPIKES_SHOWN 3
static void ttft_tpot__text_spikes(ttft_tpot_writer *out, const char *name, const char *what,
                                   const ttft_tpot_steady_state *ss)
{
    uint64_t k, shown = ss->spikes < TTFT_TPOT__SPIKES_SHOWN ? ss->spikes : TTFT_TPOT__SPIKES_SHOWN;
    char a[32], b[32];
    if (!ss->measured || !ss->spikes)
        return;
    ttft_tpot__out_fmt(out, "%s: %llu isolated spike%s:", name, (unsigned long long)ss->spikes, ss->spikes == 1 ? "" : "s");
    for (k = 0; k < shown; k++) {
        double times = ss->steady_p50_ns ? (double)ss->spike_ns[k] / (double)ss->steady_p50_ns : 0;
        ttft_tpot__out_fmt(out, "%s %s %llu at %s", k ? "," : "", what, (unsigned long long)ss->spike_step[k],
                ttft_tpot__dur(a, sizeof a, (double)ss->spike_ns[k]));
        if (ss->steady_p50_ns)
            ttft_tpot__out_fmt(out, " (%sx%s)", ttft_tpot__fix(b, sizeof b, 1, times), k ? "" : " the steady p50");
        else if (k == 0)
            ttft_tpot__out_str(out, " (the steady p50 is 0)");
    }
    if (ss->spikes > shown)
        ttft_tpot__out_fmt(out, ", and %llu more", (unsigned long long)(ss->spikes - shown));
    ttft_tpot__out_chr(out, '\n');
}

/* A name or id (shorter than TTFT_TPOT_NAME_MAX) as a CSV field into dst (2 TTFT_TPOT_NAME_MAX bytes
   hold it): as it is, or quoted with its quotes doubled where it holds a comma or a quote or starts
   with '#' or a space. Returns its length. */
static size_t ttft_tpot__csv_esc(char *dst, const char *name)
{
    size_t n = 0;
    const char *q;
    if (name[0] != '#' && name[0] != ' ') { /* copied as it is, in one pass, unless a comma or quote is met */
        for (; name[n] && name[n] != ',' && name[n] != '"'; n++)
            dst[n] = name[n];
        if (!name[n])
            return n;
        n = 0;
    }
    dst[n++] = '"';
    for (q = name; *q; q++) {
        if (*q == '"')
            dst[n++] = '"';
        dst[n++] = *q;
    }
    dst[n++] = '"';
    return n;
}

/* -- Writers: the text report ------------------------------------------------------------------ */

/* The report's first line, and a warning when reading the clock is a system call. */
static void ttft_tpot__text_head(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    ttft_tpot__out_fmt(out, "ttft_tpot report: %llu sample%s in %u phase%s (clock: %s", (unsigned long long)m->head.samples,
            ttft_tpot__s(m->head.samples), m->phases, ttft_tpot__s(m->phases), m->clock_name);
    if (m->clock_read_ns)
        ttft_tpot__out_fmt(out, ", %llu ns/read", (unsigned long long)m->clock_read_ns);
    ttft_tpot__out_str(out, ")\n");
    if (m->clock_read_ns > 200) /* a clock without vDSO: every read is a system call */
        ttft_tpot__out_fmt(out, "WARNING: one clock read costs %llu ns: spans shorter than ~%llu us are distorted\n",
                (unsigned long long)m->clock_read_ns, (unsigned long long)m->clock_read_ns / 10);
}

/* Percentile k of ttft_tpot__ci_pcts (0 p50, 1 p90, 2 p99) of st in unit ns, with its 95% interval:
   "3.22 [3.19, 3.25]", or "3.87 [CI needs n>=368]". */
static const char *ttft_tpot__with_ci(char *buf, size_t len, const ttft_tpot_stats *st, int k, double unit)
{
    const double v[3] = {st->p50_ns, st->p90_ns, st->p99_ns};
    char a[32], b[32], d[32];
    ttft_tpot__fix(a, sizeof a, 2, v[k] / unit);
    if (st->has_ci[k])
        snprintf(buf, len, "%s [%s, %s]", a, ttft_tpot__fix(b, sizeof b, 2, (double)st->ci_ns[k][0] / unit),
                 ttft_tpot__fix(d, sizeof d, 2, (double)st->ci_ns[k][1] / unit));
    else
        snprintf(buf, len, "%s [CI needs n>=%llu]", a, (unsigned long long)ttft_tpot__ci95_min_n(ttft_tpot__ci_pcts[k]));
    return buf;
}

/* The 95% interval of percentile k of ttft_tpot__ci_pcts as durations, "[161.2 ms, 161.9 ms]", or
   "needs n>=6". */
static const char *ttft_tpot__ci_text(char *buf, size_t len, const ttft_tpot_stats *st, int k)
{
    char a[32], b[32];
    if (st->has_ci[k])
        snprintf(buf, len, "[%s, %s]", ttft_tpot__dur(a, sizeof a, (double)st->ci_ns[k][0]),
                 ttft_tpot__dur(b, sizeof b, (double)st->ci_ns[k][1]));
    else
        snprintf(buf, len, "needs n>=%llu", (unsigned long long)ttft_tpot__ci95_min_n(ttft_tpot__ci_pcts[k]));
    return buf;
}

/* Steady prefills that carry no prompt count: none when more carried one (a merge may have dropped
   samples that did, after their prompt tokens were summed). */
static uint64_t ttft_tpot__without_prompt(const ttft_tpot_summary *s)
{
    return s->ttft_steady.n > s->prefill_counted ? s->ttft_steady.n - s->prefill_counted : 0;
}

/* The prefill rate, under TTFT: the speed of prefill apart from the prompt's length. */
static void ttft_tpot__text_prefill(const ttft_tpot_summary *s, ttft_tpot_writer *out)
{
    char a[32];
    uint64_t without = ttft_tpot__without_prompt(s);
    if (!s->ttft_steady.n && !s->has_prefill_tok_s)
        return;
    if (!s->has_prefill_tok_s) {
        ttft_tpot__out_fmt(out, "Prefill rate          : n/a         (no steady prefill carries prompt tokens: give each "
                     "prefill span its prompt token count)\n");
        return;
    }
    ttft_tpot__out_fmt(out, "Prefill rate          : %s tok/s  (prompt tokens / steady prefill time) over %llu prefills, %llu "
                 "prompt tokens",
            ttft_tpot__fix(a, sizeof a, 1, s->prefill_tok_s), (unsigned long long)s->prefill_counted,
            (unsigned long long)s->prefill_tokens);
    if (without)
        ttft_tpot__out_fmt(out, "; %llu steady prefills carry no prompt count and are left out", (unsigned long long)without);
    ttft_tpot__out_chr(out, '\n');
}

/* What the first TTFT's note may say: warmup only when it was slower (ttft_first_slower). The text
   report and the HTML report both show it. */
static const char *ttft_tpot__first_label(const ttft_tpot_summary *s)
{
    if (!s->ttft_first_warmup)
        return "not flagged warmup: its one-time costs came before it";
    return s->ttft_first_slower < 0 ? "flagged warmup; no steady prefill to compare"
           : s->ttft_first_slower   ? "incl. one-time warmup"
                                    : "flagged warmup, yet no slower than the steady p50";
}

/* The two TTFT lines; none without a prefill-role sample. */
static void ttft_tpot__text_ttft(const ttft_tpot_summary *s, ttft_tpot_writer *out)
{
    const ttft_tpot_stats *t = &s->ttft_steady;
    char a[32], b[32], d[32], e[32], ci[80];
    if (!s->has_ttft_first)
        return;
    ttft_tpot__out_fmt(out, "TTFT (first request)  : %-11s (%s)\n", ttft_tpot__dur(a, sizeof a, (double)s->ttft_first_ns),
            ttft_tpot__first_label(s));
    if (t->n)
        ttft_tpot__out_fmt(out, "TTFT (steady, p50)    : %-11s (n=%llu, p90 %s, p99 %s, mean %s; p50 95%% CI %s%s)\n",
                ttft_tpot__dur(a, sizeof a, t->p50_ns), (unsigned long long)t->n, ttft_tpot__dur(b, sizeof b, t->p90_ns),
                ttft_tpot__dur(d, sizeof d, t->p99_ns), ttft_tpot__dur(e, sizeof e, t->mean_ns),
                ttft_tpot__ci_text(ci, sizeof ci, t, 0), t->approx ? "; ~ within 0.8%: bounded histogram" : "");
    else if (s->has_prefill_kernel)
        ttft_tpot__out_fmt(out, "TTFT (steady, p50)    : n/a         (no warmed-up prefill measured: time a warmup "
                     "request first; prefill kernel alone: %s)\n",
                ttft_tpot__dur(a, sizeof a, (double)s->prefill_kernel_min_ns));
    else
        ttft_tpot__out_fmt(out, "TTFT (steady, p50)    : n/a         (no warmed-up prefill measured: time a warmup "
                     "request first)\n");
}

/* TPOT, output throughput and e2e: each a figure, or n/a with the reason; none of a role without a
   sample (a report of requests alone opens with them). */
static void ttft_tpot__text_decode(const ttft_tpot_summary *s, ttft_tpot_writer *out)
{
    const ttft_tpot_stats *t = &s->tpot;
    double unit = t->p99_ns >= 1e6 ? 1e6 : 1e3; /* ms/token as vLLM prints it; us under a millisecond */
    char a[128], b[128], c[32];
    if (t->n)
        ttft_tpot__out_fmt(out, "TPOT (steady, p50/p99): %s / %s %s/token  (n=%llu, excl. %llu warmup step%s; 95%% CI of these steps, not of another run%s%s)\n",
                ttft_tpot__with_ci(a, sizeof a, t, 0, unit), ttft_tpot__with_ci(b, sizeof b, t, 2, unit),
                unit == 1e6 ? "ms" : "us", (unsigned long long)t->n, (unsigned long long)s->tpot_excluded,
                s->tpot_excluded == 1 ? "" : "s", t->n < 100 ? "; p99 of fewer than 100 samples" : "",
                t->approx ? "; ~ within 0.8%: bounded histogram" : "");
    else if (s->tpot_excluded) /* decode steps, all warmup */
        ttft_tpot__out_fmt(out, "TPOT (steady, p50/p99): n/a         (no steady decode step; %llu warmup step%s excluded)\n",
                (unsigned long long)s->tpot_excluded, s->tpot_excluded == 1 ? "" : "s");
    if (s->has_acceptance)
        ttft_tpot__out_fmt(out, "Acceptance length     : %s tokens a sequence a step (mean; p50 %s, p90 %s): %llu of the steady "
                     "steps emitted more than one, TPOT takes their time per output token\n",
                ttft_tpot__fix(a, sizeof a, 2, s->acceptance_mean), ttft_tpot__fix(b, sizeof b, 2, s->acceptance_p50),
                ttft_tpot__fix(c, sizeof c, 2, s->acceptance_p90), (unsigned long long)s->tpot_multi);
    if (s->has_output_tok_s)
        ttft_tpot__out_fmt(out, "Output throughput     : %s tok/s  (decode-only, steady)\n",
                ttft_tpot__fix(a, sizeof a, 1, s->output_tok_s));
    else if (t->n)
        ttft_tpot__out_fmt(out, "Output throughput     : n/a         (the %llu steady decode steps took 0 ns)\n",
                (unsigned long long)t->n);
    else if (s->tpot_excluded)
        ttft_tpot__out_fmt(out, "Output throughput     : n/a         (no steady decode step)\n");
    if (s->has_e2e_tok_s)
        ttft_tpot__out_fmt(out, "e2e                   : %s tok/s  (%llu tokens / %s; incl. prefill and warmup, "
                     "not a serving throughput)\n",
                ttft_tpot__fix(a, sizeof a, 2, s->e2e_tok_s), (unsigned long long)s->e2e.tokens,
                ttft_tpot__dur(b, sizeof b, s->e2e.total_ns));
    else if (s->e2e.n && !s->e2e.tokens)
        ttft_tpot__out_fmt(out, "e2e                   : n/a         (the e2e samples carry no tokens: end an e2e span "
                     "with TTFT_TPOT_SPAN_END_TOKENS)\n");
    else if (s->e2e.n)
        ttft_tpot__out_fmt(out, "e2e                   : n/a         (the e2e samples took 0 ns)\n");
}

/* What the collector could not keep or refused. */
static void ttft_tpot__text_warnings(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    const ttft_tpot_losses *l = &m->losses;
    if (l->dropped)
        ttft_tpot__out_fmt(out, "WARNING: %llu sample%s dropped (storage full at %llu): figures cover the stored ones\n",
                (unsigned long long)l->dropped, ttft_tpot__s(l->dropped), (unsigned long long)l->capacity);
    if (l->outgrown)
        ttft_tpot__out_fmt(out, "NOTE: storage full at %llu samples: %llu phase%s went on in histograms (marked ~): their "
                     "counts, sums and throughputs are exact, their percentiles within 0.78%%\n",
                (unsigned long long)l->capacity, (unsigned long long)l->outgrown, ttft_tpot__s(l->outgrown));
    if (l->rejected)
        ttft_tpot__out_fmt(out, "WARNING: %llu call%s rejected (unknown phase or request, invalid duration, span misuse)\n",
                (unsigned long long)l->rejected, ttft_tpot__s(l->rejected));
    if (l->spans_open)
        ttft_tpot__out_fmt(out, "WARNING: %llu span%s begun and not ended: what %s timed is in no figure (a begin without "
                     "its end, or a Python span made without `with`)\n",
                (unsigned long long)l->spans_open, ttft_tpot__s(l->spans_open), l->spans_open == 1 ? "it" : "they");
    if (l->spans_cancelled)
        ttft_tpot__out_fmt(out, "NOTE: %llu span%s cancelled (a step abandoned on an error path): in no figure\n",
                           (unsigned long long)l->spans_cancelled, ttft_tpot__s(l->spans_cancelled));
    if (l->shapes_dropped)
        ttft_tpot__out_fmt(out, "WARNING: %llu sample%s with a new shape not flagged warmup: the shape table (config.max_shapes "
                     "%llu) is full\n",
                (unsigned long long)l->shapes_dropped, ttft_tpot__s(l->shapes_dropped),
                (unsigned long long)l->max_shapes);
    if (l->sequences_lost)
        ttft_tpot__out_fmt(out, "WARNING: %llu decode step%s of several tokens a sequence kept without %s sequences "
                     "(config.sequences is off): TPOT takes %s step time, not %s time per output token\n",
                (unsigned long long)l->sequences_lost, ttft_tpot__s(l->sequences_lost),
                l->sequences_lost == 1 ? "its" : "their", l->sequences_lost == 1 ? "its" : "their",
                l->sequences_lost == 1 ? "its" : "their");
    if (l->sequences_in_histogram)
        ttft_tpot__out_fmt(out, "WARNING: %llu decode step%s of several tokens a sequence went on in a histogram, which keeps "
                     "step times: TPOT takes %s step time, and the acceptance length leaves %s out\n",
                (unsigned long long)l->sequences_in_histogram, ttft_tpot__s(l->sequences_in_histogram),
                l->sequences_in_histogram == 1 ? "its" : "their", l->sequences_in_histogram == 1 ? "it" : "them");
}

/* A row of figures: n, then avg, min, max, p50 and p99 (approx: from a histogram). */
static void ttft_tpot__text_row(ttft_tpot_writer *out, const char *name, const char *role, const char *warm,
                                const ttft_tpot_stats *t)
{
    char a[32], b[32], d[32], e[32], f[32];
    ttft_tpot__out_fmt(out, "%-24s %-7s %8llu %6s %11s %11s %11s %11s %10s%s%s", name, role, (unsigned long long)t->n, warm,
            ttft_tpot__dur(a, sizeof a, t->mean_ns), ttft_tpot__dur(b, sizeof b, (double)t->min_ns),
            ttft_tpot__dur(d, sizeof d, (double)t->max_ns), ttft_tpot__dur(e, sizeof e, t->p50_ns),
            ttft_tpot__dur(f, sizeof f, t->p99_ns), t->n < 100 ? "*" : " ", t->approx ? " ~" : "");
}

/* One row a phase, in order of first use, every sample; under a phase with warmup samples, its
   steady row (warmup excluded) and the slowest warmup sample. */
static void ttft_tpot__text_rows(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    char w[32], mx[32];
    unsigned q, empty = 0;
    int few = 0, approx = 0;
    if (m->phases)
        ttft_tpot__out_fmt(out, "\n%-24s %-7s %8s %6s %11s %11s %11s %11s %11s\n", "phase", "role", "n", "warmup", "avg",
                "min", "max", "p50", "p99");
    for (q = 0; q < m->phases; q++) { /* names are printable UTF-8 (the name rule): printed as is */
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->all, *st = &f->steady;
        if (t->n == 0) { /* last in the order: listed on one line below */
            ttft_tpot__out_fmt(out, empty++ ? ", %s" : "no samples: %s", f->name);
            continue;
        }
        few |= t->n < 100;
        approx |= t->approx;
        snprintf(w, sizeof w, "%llu", (unsigned long long)t->warmup_n);
        ttft_tpot__text_row(out, f->name, ttft_tpot__role_name(f->role), w, t);
        ttft_tpot__out_chr(out, '\n');
        if (t->warmup_n == 0 || st->n == 0)
            continue; /* the steady row would repeat the row above, or be empty */
        ttft_tpot__text_row(out, "  steady", "", "-", st);
        ttft_tpot__out_fmt(out, "  warmup max %s\n", ttft_tpot__dur(mx, sizeof mx, (double)t->warmup_max_ns));
    }
    if (empty)
        ttft_tpot__out_chr(out, '\n');
    if (few)
        ttft_tpot__out_fmt(out, "* p99 of fewer than 100 samples: close to the max, not a tail estimate\n");
    if (approx)
        ttft_tpot__out_fmt(out, "~ bounded phase: avg and percentiles from a histogram, within 0.78%% of exact (config.bounded, "
                     "or a phase that went on in one when the storage was full)\n");
}

/* A decode phase with no steady state, or whose measured warmup (MSER-5) runs past the samples flagged
   warmup: the line says where, and the p50 with and without those samples (and whether that lies in
   the interval). */
static void ttft_tpot__text_phase_cut(const ttft_tpot_model *m, unsigned p, ttft_tpot_writer *out)
{
    const ttft_tpot_steady_state *ss = &m->phase[p].steady_state;
    const ttft_tpot_stats *st = &m->phase[p].steady;
    uint64_t flagged = ss->flagged, past = ss->truncation - flagged;
    char a[32], b[32], which[48];
    if (ss->measured && ss->drift && st->n) {
        ttft_tpot__out_fmt(out, "%s: no steady state: MSER-5's best cut falls in the second half of its steps (White's rule): "
                     "they keep rising or falling\n", m->phase[p].name);
        return;
    }
    if (!ss->measured || ss->truncation <= flagged || !st->n || !ss->has_p50)
        return;
    if (flagged > 1)
        snprintf(which, sizeof which, "%llu flagged", (unsigned long long)flagged);
    else
        snprintf(which, sizeof which, "%s", flagged ? "flagged one" : "first (none flagged)");
    ttft_tpot__out_fmt(out, "%s: MSER-5 puts the end of warmup at step %llu, %llu step%s after the %s; TPOT p50 %s with "
                 "them, %s without%s\n",
            m->phase[p].name, (unsigned long long)ss->truncation, (unsigned long long)past, past == 1 ? "" : "s",
            which, ttft_tpot__dur(a, sizeof a, st->p50_ns), ttft_tpot__dur(b, sizeof b, ss->p50_ns),
            st->has_ci[0] && ss->p50_exact_ns >= st->ci_ns[0][0] && ss->p50_exact_ns <= st->ci_ns[0][1]
                ? " (within the p50's 95% interval)" : "");
}

/* Each decode phase's measured warmup or lack of a steady state, then its spikes. */
static void ttft_tpot__text_steady_states(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    unsigned p;
    for (p = 0; p < m->phases; p++) {
        ttft_tpot__text_phase_cut(m, p, out);
        if (m->phase[p].steady.n)
            ttft_tpot__text_spikes(out, m->phase[p].name, "step", &m->phase[p].steady_state);
    }
}

/* Run figure k (TTFT_TPOT_RUN_*): "TPOT p50 3.22 +- 0.05 ms (CV 1.6%)", a duration in its mean's
   unit, the CV n/a where it is 0/0 (one run, or a mean of 0). */
static void ttft_tpot__text_run_figure(ttft_tpot_writer *out, const char *what, unsigned k, const ttft_tpot_run_figure *f)
{
    const char *name = "tok/s";
    double unit = k == TTFT_TPOT_RUN_TOK_S ? 1 : ttft_tpot__unit(f->mean, &name);
    char a[32], b[32], d[40];
    if (f->has_cv)
        snprintf(d, sizeof d, "%s%%", ttft_tpot__fix(a, sizeof a, 1, f->cv * 100));
    else
        snprintf(d, sizeof d, "n/a");
    if (k == TTFT_TPOT_RUN_TOK_S)
        ttft_tpot__out_fmt(out, "%s %s +- %s %s (CV %s)", what, ttft_tpot__fix(a, sizeof a, 1, f->mean),
                ttft_tpot__fix(b, sizeof b, 1, f->sd), name, d);
    else
        ttft_tpot__out_fmt(out, "%s %s +- %s %s (CV %s)", what, ttft_tpot__in(a, sizeof a, f->mean, unit),
                ttft_tpot__in(b, sizeof b, f->sd, unit), name, d);
}

/* The across-run 95% interval of each figure's mean, in the order of the runs line: what a user
   compares ("  mean's 95% CI       : TPOT p50 [3.17, 3.27] ms, ..."); nothing with fewer than 2 runs. */
static void ttft_tpot__text_run_cis(ttft_tpot_writer *out, const ttft_tpot_runs *rs, const char *const *what,
                                    const unsigned *shown)
{
    unsigned k, any = 0;
    char a[32], b[32];
    for (k = 0; k < 3; k++) {
        const ttft_tpot_run_figure *f = &rs->fig[shown[k]];
        const char *widened = f->widened ? " (heavy tail: low end 2 half-widths below)" : "";
        const char *name = "tok/s";
        double unit = shown[k] == TTFT_TPOT_RUN_TOK_S ? 1 : ttft_tpot__unit(f->mean, &name);
        if (!f->has_ci || rs->bounded)
            continue;
        ttft_tpot__out_str(out, any++ ? ", " : "  mean's 95% CI       : ");
        if (shown[k] == TTFT_TPOT_RUN_TOK_S)
            ttft_tpot__out_fmt(out, "%s [%s, %s] %s%s", what[shown[k]], ttft_tpot__fix(a, sizeof a, 1, f->ci95[0]),
                    ttft_tpot__fix(b, sizeof b, 1, f->ci95[1]), name, widened);
        else
            ttft_tpot__out_fmt(out, "%s [%s, %s] %s%s", what[shown[k]], ttft_tpot__in(a, sizeof a, f->ci95[0], unit),
                    ttft_tpot__in(b, sizeof b, f->ci95[1], unit), name, widened);
    }
    if (any)
        ttft_tpot__out_str(out, " (t over the runs: the figure to compare)\n");
}

/* Runs: each figure as mean +- sd (CV) across runs, then TPOT run by run, llama-bench style; a
   warning where the runs vary (TTFT_TPOT_RUN_CV_FLAG). */
static void ttft_tpot__text_runs(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    static const char *const what[3] = {"TTFT p50", "TPOT p50", "output"};
    static const unsigned shown[3] = {TTFT_TPOT_RUN_TPOT, TTFT_TPOT_RUN_TOK_S, TTFT_TPOT_RUN_TTFT};
    const ttft_tpot_runs *rs = &m->runs;
    const ttft_tpot_run_figure *tpot = &rs->fig[TTFT_TPOT_RUN_TPOT];
    unsigned k, r, any = 0;
    const char *name;
    char a[32], b[32];
    if (!rs->n)
        return;
    ttft_tpot__out_fmt(out, "Runs (%u)%*s: ", rs->n, rs->n < 10 ? 14 : rs->n < 100 ? 13 : 12, "");
    for (k = 0; k < 3; k++) {
        unsigned j = shown[k];
        if (!rs->fig[j].n)
            continue;
        ttft_tpot__out_str(out, any++ ? ", " : "");
        ttft_tpot__text_run_figure(out, what[j], j, &rs->fig[j]);
    }
    ttft_tpot__out_str(out, rs->bounded ? "n/a (samples in a histogram, of a bounded phase or past the storage, have no run)\n"
          : any       ? "\n"
                      : "n/a\n");
    ttft_tpot__text_run_cis(out, rs, what, shown);
    if (tpot->n) { /* in the unit of the runs' mean */
        double unit = ttft_tpot__unit(tpot->mean, &name);
        ttft_tpot__out_str(out, "  TPOT p50 by run     :");
        for (r = 0; r < rs->n; r++)
            ttft_tpot__out_fmt(out, " %s", tpot->has[r] ? ttft_tpot__in(a, sizeof a, tpot->v[r], unit) : "n/a");
        ttft_tpot__out_fmt(out, " %s\n", name);
    }
    for (k = 0; k < 3; k++)
        if (rs->fig[k].varies)
            ttft_tpot__out_fmt(out, "WARNING: the runs vary: %s CV %s%% (over %s%%): compare runs, not one figure\n", what[k],
                    ttft_tpot__fix(a, sizeof a, 1, rs->fig[k].cv * 100),
                    ttft_tpot__num(b, sizeof b, "%g", TTFT_TPOT_RUN_CV_FLAG * 100));
    if (rs->dropped)
        ttft_tpot__out_fmt(out, "WARNING: %llu run%s not marked (TTFT_TPOT_MAX_RUNS %u): their samples are in the last run\n",
                (unsigned long long)rs->dropped, ttft_tpot__s(rs->dropped), (unsigned)TTFT_TPOT_MAX_RUNS);
}

/* -- Writers: the text report's device section ------------------------------------------------- */

/* Why n of steps steady steps have device time, hist of them in histograms: "" when all do, else
   "; the H kept in a histogram ..., M others have no resolved device interval" (sep: its lead). */
static const char *ttft_tpot__device_gap(char *buf, size_t len, const char *sep, uint64_t n, uint64_t steps,
                                         uint64_t hist)
{
    uint64_t other = steps - n - hist; /* n counts stored steps only, so n + hist <= steps */
    if (n + hist > steps || n == steps)
        return "";
    if (!hist)
        snprintf(buf, len, "%s%llu have no resolved device interval", sep, (unsigned long long)other);
    else if (!other)
        snprintf(buf, len, "%sthe %llu kept in a histogram have no per-step device time", sep,
                 (unsigned long long)hist);
    else
        snprintf(buf, len, "%sthe %llu kept in a histogram have no per-step device time, %llu others no resolved "
                 "device interval", sep, (unsigned long long)hist, (unsigned long long)other);
    return buf;
}

/* "n=N, p50 X, p90 X, p99 X, mean X" of a set, or n/a with why; "n=N of S steady steps" and which
   lack device time when not all of the headline's S steps have it (hist of them in histograms). */
static void ttft_tpot__text_device_line(ttft_tpot_writer *out, const char *what, const ttft_tpot_stats *t, const char *none,
                                        uint64_t steps, uint64_t hist)
{
    char a[32], b[32], d[32], e[32], of[48], gap[160];
    if (!t->n) {
        ttft_tpot__out_fmt(out, "%-22s: n/a         (%s%s)\n", what, none,
                hist ? ttft_tpot__device_gap(gap, sizeof gap, ": ", 0, hist, hist) : "");
        return;
    }
    of[0] = '\0';
    if (t->n < steps)
        snprintf(of, sizeof of, " of %llu steady steps", (unsigned long long)steps);
    ttft_tpot__out_fmt(out, "%-22s: %-11s (n=%llu%s, p90 %s, p99 %s, mean %s%s)\n", what, ttft_tpot__dur(a, sizeof a, t->p50_ns),
            (unsigned long long)t->n, of, ttft_tpot__dur(b, sizeof b, t->p90_ns), ttft_tpot__dur(d, sizeof d, t->p99_ns),
            ttft_tpot__dur(e, sizeof e, t->mean_ns), ttft_tpot__device_gap(gap, sizeof gap, "; ", t->n, steps, hist));
}

/* "Device busy: ..." over the steady decode steps with device time (f->busy_steps of f->tpot_steps). */
static void ttft_tpot__text_device_busy(const ttft_tpot_device_figures *f, ttft_tpot_writer *out)
{
    char a[32], b[32], of[80];
    if (!f->has_busy) {
        ttft_tpot__text_device_line(out, "Device busy", &f->tpot, "no steady decode step with device time",
                                    f->tpot_steps, f->tpot_hist);
        return;
    }
    of[0] = '\0';
    if (f->busy_steps < f->tpot_steps)
        snprintf(of, sizeof of, " of %llu steady", (unsigned long long)f->tpot_steps);
    ttft_tpot__out_fmt(out, "Device busy           : %s%% of steady decode wall time (%llu%s steps)",
            ttft_tpot__fix(a, sizeof a, 1, 100 * f->busy_fraction), (unsigned long long)f->busy_steps, of);
    if (f->busy_fraction < TTFT_TPOT_HOST_BOUND)
        ttft_tpot__out_fmt(out, ": decode is host-bound, the device idles %s%% of each step",
                ttft_tpot__fix(b, sizeof b, 1, 100 * (1 - f->busy_fraction)));
    ttft_tpot__out_chr(out, '\n');
}

/* Each phase with device time: host p50 against device p50/p90/p99/mean, the queue delay, and where
   the runtime stamped when it queued the command, its launch overhead and queue wait. */
static void ttft_tpot__text_device_rows(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    char a[32], b[32], d[32], e[32], g[32], h[32], k[32], l[32], w[32];
    int split = m->device.queued != 0;
    unsigned q;
    ttft_tpot__out_fmt(out, "%-24s %11s %8s %11s %11s %11s %11s %11s %11s", "phase (steady)", "host p50", "device n", "p50", "p90",
            "p99", "mean", "queue p50", "queue p99");
    ttft_tpot__out_fmt(out, split ? " %11s %11s\n" : "\n", "launch p50", "wait p50");
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->device, *u = &f->queue;
        if (!t->n)
            continue;
        ttft_tpot__out_fmt(out, "%-24s %11s %8llu %11s %11s %11s %11s %11s %11s", f->name,
                f->steady.n ? ttft_tpot__dur(a, sizeof a, f->steady.p50_ns) : "-", (unsigned long long)t->n,
                ttft_tpot__dur(b, sizeof b, t->p50_ns), ttft_tpot__dur(d, sizeof d, t->p90_ns),
                ttft_tpot__dur(e, sizeof e, t->p99_ns), ttft_tpot__dur(g, sizeof g, t->mean_ns),
                u->n ? ttft_tpot__dur(h, sizeof h, u->p50_ns) : "-", u->n ? ttft_tpot__dur(k, sizeof k, u->p99_ns) : "-");
        ttft_tpot__out_fmt(out, split ? " %11s %11s\n" : "\n", f->launch.n ? ttft_tpot__dur(l, sizeof l, f->launch.p50_ns) : "-",
                f->wait.n ? ttft_tpot__dur(w, sizeof w, f->wait.p50_ns) : "-");
    }
}

/* Each phase timed both by event pairs and by begin and end stamps: the two p50s and what the pairs
   add, the launch gaps they hold. */
static void ttft_tpot__text_device_forms(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    char a[32], b[32], d[32];
    unsigned q;
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        double more = f->pairs.p50_ns - f->records.p50_ns;
        if (!f->pairs.n)
            continue;
        ttft_tpot__out_fmt(out, "NOTE: %s: event pairs p50 %s (n=%llu), begin and end stamps p50 %s (n=%llu): the pairs read "
                     "%s %s, the launch gaps they hold\n",
                f->name, ttft_tpot__dur(a, sizeof a, f->pairs.p50_ns), (unsigned long long)f->pairs.n,
                ttft_tpot__dur(b, sizeof b, f->records.p50_ns), (unsigned long long)f->records.n,
                ttft_tpot__dur(d, sizeof d, more < 0 ? -more : more), more < 0 ? "less" : "more");
    }
}

/* What device time was lost or refused, and queue delays taken as 0. */
static void ttft_tpot__text_device_losses(const ttft_tpot_device_figures *f, ttft_tpot_writer *out)
{
    char a[32];
    if (f->unresolved || f->open)
        ttft_tpot__out_fmt(out, "WARNING: %llu device intervals unresolved (%llu spans got no ticket: config.max_device or "
                     "config.max_pending was full; %llu tickets still open): those samples have host time only, the "
                     "device figures cover the resolved ones\n",
                (unsigned long long)ttft_tpot__sat_add(f->unresolved, f->open), (unsigned long long)f->unresolved,
                (unsigned long long)f->open);
    if (f->refused)
        ttft_tpot__out_fmt(out, "WARNING: %llu device resolutions refused (unknown or resolved ticket, end before begin)\n",
                (unsigned long long)f->refused);
    if (f->held)
        ttft_tpot__out_fmt(out, "WARNING: %llu samples' device time sums to 2^63 - 2 ns or more, held there: their device "
                     "figures are wrong (no device measures that)\n", (unsigned long long)f->held);
    if (f->queue_clamped)
        ttft_tpot__out_fmt(out, "NOTE: %llu device begins mapped before their host issue, by up to %s: queue delay taken as 0 "
                     "(the clock pair is off by that much)\n",
                (unsigned long long)f->queue_clamped, ttft_tpot__dur(a, sizeof a, (double)f->clamped_max_ns));
    if (f->queued_clamped)
        ttft_tpot__out_fmt(out, "NOTE: %llu queued stamps mapped before their host issue, by up to %s: launch overhead taken as "
                     "0 (the clock pair is off by that much)\n",
                (unsigned long long)f->queued_clamped, ttft_tpot__dur(a, sizeof a, (double)f->queued_clamped_max_ns));
}

/* The device section: the headline's device counterparts, busy fraction, rows, losses. Only for a
   collector that has device data. */
static void ttft_tpot__text_device(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    const ttft_tpot_device_figures *f = &m->device;
    if (!f->intervals && !f->open && !f->unresolved && !f->refused)
        return;
    ttft_tpot__out_fmt(out, "\nDevice time (%llu intervals resolved%s; TTFT and TPOT above are wall-clock, these the "
                 "device's)\n", (unsigned long long)f->intervals, f->parts ? ", parts of launches included" : "");
    if (f->elapsed)
        ttft_tpot__out_fmt(out, "NOTE: %llu of them are event pairs: each includes the launch gap before its kernel, so small "
                     "kernels and the busy share read high (activity records have no gap)\n",
                (unsigned long long)f->elapsed);
    ttft_tpot__text_device_line(out, "TTFT (steady, device)", &f->ttft_steady, "no steady prefill with device time",
                                f->ttft_steps, f->ttft_hist);
    ttft_tpot__text_device_line(out, "TPOT (device)", &f->tpot, "no steady decode step with device time",
                                f->tpot_steps, f->tpot_hist);
    ttft_tpot__text_device_busy(f, out);
    if (f->intervals)
        ttft_tpot__text_device_rows(m, out);
    ttft_tpot__text_device_forms(m, out);
    ttft_tpot__text_device_losses(f, out);
}

/* Kernel spans that hold other kernel spans: their rows are inclusive; their shares of steady decode
   time, exclusive against inclusive (the JSON's decode_share_exclusive and decode_share). */
static void ttft_tpot__text_nesting(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    unsigned p;
    char a[32], b[32];
    for (p = 0; p < m->phases; p++)
        if (m->phase[p].nests)
            ttft_tpot__out_fmt(out, "NOTE: %s spans hold other kernel spans: its rows are inclusive time; of steady decode "
                         "time it takes %s%% exclusive (self), %s%% inclusive\n",
                    m->phase[p].name, ttft_tpot__fix(a, sizeof a, 1, 100 * m->phase[p].decode_share_self),
                    ttft_tpot__fix(b, sizeof b, 1, 100 * m->phase[p].decode_share));
}

/* The report leads with what the run is for: a serving run (an attached layer's figures that lead)
   with its per-request figures, a single-stream run with TTFT, TPOT and throughput; the samples'
   figures, then the phases. */
static void ttft_tpot__text(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    const ttft_tpot_layer *layer = m->collector->layer;
    int leads = (m->layer_report & TTFT_TPOT_LAYER_LEADS) != 0, steps;
    steps = m->head.has_ttft_first || m->head.tpot.n || m->head.tpot_excluded || m->head.e2e.n;
    ttft_tpot__text_head(m, out);
    /* a span never ended leaves no sample; its WARNING line (spans_open) counts it */
    if (!(m->layer_report & TTFT_TPOT_LAYER_SEEN) && !steps)
        ttft_tpot__out_str(out, "Nothing to report: no prefill, decode or e2e sample, and no request\n"
                                "(a span is recorded at its end: one begun and never ended leaves nothing)\n");
    if (leads && layer->text) {
        layer->text(m, out, TTFT_TPOT_SECTION_LEAD);
        if (steps)
            ttft_tpot__out_str(out, "\nSteps (the samples of the driver's own spans)\n");
    }
    ttft_tpot__text_ttft(&m->head, out);
    ttft_tpot__text_prefill(&m->head, out);
    ttft_tpot__text_decode(&m->head, out);
    ttft_tpot__text_device(m, out);
    ttft_tpot__text_runs(m, out);
    ttft_tpot__text_steady_states(m, out);
    ttft_tpot__text_warnings(m, out);
    if (!leads && m->layer && layer && layer->text)
        layer->text(m, out, TTFT_TPOT_SECTION_TAIL);
    ttft_tpot__text_rows(m, out);
    ttft_tpot__text_nesting(m, out);
}

/* "ttft": the first request and the steady state. */
static void ttft_tpot__json_ttft(const ttft_tpot_summary *s, ttft_tpot_writer *out)
{
    ttft_tpot__out_str(out, ",\"ttft\":{\"first_ms\":");
    if (s->has_ttft_first)
        ttft_tpot__json_ms_u64(out, s->ttft_first_ns);
    else
        ttft_tpot__out_str(out, "null");
    ttft_tpot__out_str(out, s->has_ttft_first
                                ? (s->ttft_first_warmup ? ",\"first_warmup\":true" : ",\"first_warmup\":false")
                                : ",\"first_warmup\":null");
    ttft_tpot__out_str(out, ",\"steady\":");
    if (s->ttft_steady.n) {
        ttft_tpot__out_fmt(out, "{\"n\":%llu", (unsigned long long)s->ttft_steady.n);
        ttft_tpot__json_figures(out, &s->ttft_steady, "_ms");
        ttft_tpot__out_chr(out, '}');
    } else {
        ttft_tpot__out_str(out, "null");
    }
    ttft_tpot__out_str(out, ",\"prefill_kernel_min_ms\":");
    if (s->has_prefill_kernel)
        ttft_tpot__json_ms_u64(out, s->prefill_kernel_min_ns);
    else
        ttft_tpot__out_str(out, "null");
    ttft_tpot__out_chr(out, '}');
}

/* "tpot", "output_throughput_tok_s" and "e2e". */
static void ttft_tpot__json_decode(const ttft_tpot_summary *s, ttft_tpot_writer *out)
{
    ttft_tpot__out_str(out, ",\"tpot\":");
    if (s->tpot.n) {
        ttft_tpot__out_fmt(out, "{\"n\":%llu,\"excluded_warmup\":%llu", (unsigned long long)s->tpot.n,
                           (unsigned long long)s->tpot_excluded);
        ttft_tpot__json_figures(out, &s->tpot, "_ms");
        ttft_tpot__out_chr(out, '}');
    } else {
        ttft_tpot__out_str(out, "null");
    }
    ttft_tpot__out_str(out, ",\"output_throughput_tok_s\":");
    ttft_tpot__json_num(out, s->has_output_tok_s, s->output_tok_s);
    ttft_tpot__out_str(out, ",\"acceptance_length\":");
    if (s->has_acceptance) {
        ttft_tpot__out_str(out, "{\"mean\":");
        ttft_tpot__json_num(out, 1, s->acceptance_mean);
        ttft_tpot__out_str(out, ",\"p50\":");
        ttft_tpot__json_num(out, 1, s->acceptance_p50);
        ttft_tpot__out_str(out, ",\"p90\":");
        ttft_tpot__json_num(out, 1, s->acceptance_p90);
        ttft_tpot__out_fmt(out, ",\"steps\":%llu}", (unsigned long long)s->tpot_multi);
    } else {
        ttft_tpot__out_str(out, "null");
    }
    ttft_tpot__out_str(out, ",\"e2e\":");
    if (s->e2e.n) {
        ttft_tpot__out_fmt(out, "{\"tokens\":%llu", (unsigned long long)s->e2e.tokens);
        ttft_tpot__json_kv_ms(out, "wall_ms", s->e2e.total_ns);
        ttft_tpot__out_str(out, ",\"tok_s\":");
        ttft_tpot__json_num(out, s->has_e2e_tok_s, s->e2e_tok_s);
        ttft_tpot__out_chr(out, '}');
    } else {
        ttft_tpot__out_str(out, "null");
    }
}

/* A run figure: ms from ns for the first two, tok/s for the third; null when has is 0. */
static TTFT_TPOT__NOINLINE void ttft_tpot__json_run_value(ttft_tpot_writer *out, unsigned k, int has, double v)
{
    if (k < 2 && has)
        ttft_tpot__json_ms(out, v);
    else
        ttft_tpot__json_num(out, has, v);
}

/* "runs":{"n":N,"dropped":N,"cv_flag":0.05,"ttft_steady_p50_ms":RUN,"tpot_p50_ms":RUN,
   "output_tok_s":RUN}, RUN = {"mean":N,"sd":N|null,"cv":N|null,"ci95":[lo,hi]|null,"flagged":B,
   "widened":B,"per_run":[N|null,...]} or
   null when no run has the figure; "runs" is null when no run was marked. */
static void ttft_tpot__json_runs(const ttft_tpot_runs *rs, ttft_tpot_writer *out)
{
    static const char *const keys[3] = {"ttft_steady_p50_ms", "tpot_p50_ms", "output_tok_s"};
    char flag[32];
    unsigned k, r;
    if (!rs->n && !rs->dropped) {
        ttft_tpot__out_str(out, ",\"runs\":null");
        return;
    }
    ttft_tpot__out_fmt(out, ",\"runs\":{\"n\":%u,\"dropped\":%llu,\"cv_flag\":%s", rs->n,
                       (unsigned long long)rs->dropped, ttft_tpot__num(flag, sizeof flag, "%g", TTFT_TPOT_RUN_CV_FLAG));
    for (k = 0; k < 3; k++) {
        const ttft_tpot_run_figure *f = &rs->fig[k];
        ttft_tpot__out_fmt(out, ",\"%s\":", keys[k]);
        if (!f->n) {
            ttft_tpot__out_str(out, "null");
            continue;
        }
        ttft_tpot__out_str(out, "{\"mean\":");
        ttft_tpot__json_run_value(out, k, 1, f->mean);
        ttft_tpot__out_str(out, ",\"sd\":");
        ttft_tpot__json_run_value(out, k, f->n > 1, f->sd);
        ttft_tpot__out_str(out, ",\"cv\":");
        ttft_tpot__json_num(out, f->has_cv, f->cv);
        ttft_tpot__out_str(out, ",\"ci95\":");
        if (f->has_ci) {
            ttft_tpot__out_chr(out, '[');
            ttft_tpot__json_run_value(out, k, 1, f->ci95[0]);
            ttft_tpot__out_chr(out, ',');
            ttft_tpot__json_run_value(out, k, 1, f->ci95[1]);
            ttft_tpot__out_chr(out, ']');
        } else
            ttft_tpot__out_str(out, "null");
        ttft_tpot__out_fmt(out, ",\"flagged\":%s,\"widened\":%s,\"per_run\":[", f->varies ? "true" : "false",
                           f->widened ? "true" : "false");
        for (r = 0; r < rs->n; r++) {
            if (r)
                ttft_tpot__out_chr(out, ',');
            ttft_tpot__json_run_value(out, k, f->has[r], f->v[r]);
        }
        ttft_tpot__out_str(out, "]}");
    }
    ttft_tpot__out_chr(out, '}');
}

/* "phases": one object a phase, in order of first use. */
static void ttft_tpot__json_phases(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    unsigned q;
    ttft_tpot__out_str(out, ",\"phases\":[");
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->all;
        ttft_tpot__out_str(out, q ? ",{\"name\":" : "{\"name\":");
        ttft_tpot__json_str(out, f->name);
        ttft_tpot__out_fmt(out, ",\"role\":\"%s\",\"n\":%llu,\"warmup_n\":%llu,\"tokens\":%llu",
                           ttft_tpot__role_name(f->role), (unsigned long long)t->n, (unsigned long long)t->warmup_n,
                           (unsigned long long)t->tokens);
        ttft_tpot__json_figures(out, t, "_ms");
        ttft_tpot__out_str(out, ",\"warmup_max_ms\":");
        if (t->warmup_n)
            ttft_tpot__json_ms_u64(out, t->warmup_max_ns);
        else
            ttft_tpot__out_str(out, "null");
        ttft_tpot__json_kv_stats(out, "steady", &f->steady);
        if (f->role == TTFT_TPOT_ROLE_DECODE) {
            ttft_tpot__out_str(out, ",\"steady_state\":");
            ttft_tpot__json_steady_state(out, &f->steady_state);
        }
        if (f->role == TTFT_TPOT_ROLE_KERNEL && !(m->skipped & TTFT_TPOT_SKIP_SHARES)) {
            ttft_tpot__out_str(out, ",\"decode_share\":"); /* inclusive */
            ttft_tpot__json_num(out, 1, f->decode_share);
            ttft_tpot__out_str(out, ",\"decode_share_exclusive\":");
            ttft_tpot__json_num(out, 1, f->decode_share_self);
            ttft_tpot__out_fmt(out, ",\"nests\":%s", f->nests ? "true" : "false");
        }
        ttft_tpot__json_kv_stats(out, "device", &f->device);
        ttft_tpot__json_kv_stats(out, "queue_delay", &f->queue);
        ttft_tpot__json_kv_stats(out, "launch_overhead", &f->launch);
        ttft_tpot__json_kv_stats(out, "queue_wait", &f->wait);
        ttft_tpot__json_kv_stats(out, "device_event_pairs", &f->pairs);
        ttft_tpot__json_kv_stats(out, "device_stamps", &f->records);
        ttft_tpot__out_chr(out, '}');
    }
    ttft_tpot__out_chr(out, ']');
}

/* ,"device":{...}: the device headline (ttft_tpot_device_figures). */
static void ttft_tpot__json_device(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    const ttft_tpot_device_figures *f = &m->device;
    ttft_tpot__out_str(out, ",\"device\":{\"intervals\":");
    ttft_tpot__out_fmt(out, "%llu", (unsigned long long)f->intervals);
    ttft_tpot__json_kv_stats(out, "ttft_steady", &f->ttft_steady);
    ttft_tpot__json_kv_stats(out, "tpot", &f->tpot);
    ttft_tpot__out_str(out, ",\"busy_fraction\":");
    ttft_tpot__json_num(out, f->has_busy, f->busy_fraction);
    ttft_tpot__out_fmt(out,
                       ",\"host_bound\":%s,\"busy_steps\":%llu,\"unresolved\":%llu,\"no_ticket\":%llu,\"open\":%llu"
                       ",\"refused\":%llu,\"parts\":%llu,\"elapsed\":%llu,\"queue_clamped\":%llu,\"queued\":%llu"
                       ",\"queued_clamped\":%llu",
                       f->has_busy ? f->busy_fraction < TTFT_TPOT_HOST_BOUND ? "true" : "false" : "null",
                       (unsigned long long)f->busy_steps, (unsigned long long)ttft_tpot__sat_add(f->unresolved, f->open),
                       (unsigned long long)f->unresolved, (unsigned long long)f->open, (unsigned long long)f->refused,
                       (unsigned long long)f->parts, (unsigned long long)f->elapsed, (unsigned long long)f->queue_clamped,
                       (unsigned long long)f->queued, (unsigned long long)f->queued_clamped);
    ttft_tpot__out_fmt(out,
                       ",\"ttft_steady_steps\":%llu,\"ttft_steady_steps_without_device\":%llu,"
                       "\"ttft_steady_steps_in_histogram\":%llu,\"tpot_steps\":%llu,\"tpot_steps_without_device\":%llu,"
                       "\"tpot_steps_in_histogram\":%llu,\"held\":%llu}",
                       (unsigned long long)f->ttft_steps, (unsigned long long)(f->ttft_steps - f->ttft_steady.n),
                       (unsigned long long)f->ttft_hist, (unsigned long long)f->tpot_steps,
                       (unsigned long long)(f->tpot_steps - f->tpot.n), (unsigned long long)f->tpot_hist,
                       (unsigned long long)f->held);
}

/* The JSON report (schema ttft_tpot/v1). */
static void ttft_tpot__json(const ttft_tpot_model *m, ttft_tpot_writer *out)
{
    const ttft_tpot_summary *s = &m->head;
    ttft_tpot__out_str(out, "{\"schema\":\"ttft_tpot/v1\",\"clock\":{\"name\":");
    ttft_tpot__json_str(out, m->clock_name);
    if (m->clock_read_ns)
        ttft_tpot__out_fmt(out, ",\"read_ns\":%llu}", (unsigned long long)m->clock_read_ns);
    else
        ttft_tpot__out_str(out, ",\"read_ns\":null}");
    ttft_tpot__json_ttft(s, out);
    ttft_tpot__out_fmt(out, ",\"prefill\":{\"tokens\":%llu,\"tok_s\":", (unsigned long long)s->prefill_tokens);
    ttft_tpot__json_num(out, s->has_prefill_tok_s, s->prefill_tok_s);
    ttft_tpot__out_fmt(out, ",\"samples\":%llu,\"without_prompt\":%llu}", (unsigned long long)s->prefill_counted,
                       (unsigned long long)ttft_tpot__without_prompt(s));
    ttft_tpot__json_decode(s, out);
    ttft_tpot__out_fmt(out,
                       ",\"dropped\":%llu,\"rejected\":%llu,\"samples\":%llu,\"shapes_dropped\":%llu,\"outgrown\":%llu"
                       ",\"spans_open\":%llu,\"spans_cancelled\":%llu,\"sequences_lost\":%llu,"
                       "\"sequences_in_histogram\":%llu,\"requests\":",
                       (unsigned long long)m->losses.dropped, (unsigned long long)m->losses.rejected,
                       (unsigned long long)s->samples, (unsigned long long)m->losses.shapes_dropped,
                       (unsigned long long)m->losses.outgrown, (unsigned long long)m->losses.spans_open,
                       (unsigned long long)m->losses.spans_cancelled, (unsigned long long)m->losses.sequences_lost,
                       (unsigned long long)m->losses.sequences_in_histogram);
    if (m->layer && m->collector->layer->json)
        m->collector->layer->json(m, out);
    else
        ttft_tpot__out_str(out, "null");
    ttft_tpot__json_runs(&m->runs, out);
    ttft_tpot__json_device(m, out);
    ttft_tpot__json_phases(m, out);
}

TTFT_TPOT_DEF int ttft_tpot_model_write(const ttft_tpot_model *m, FILE *out, int format)
{
    char block[TTFT_TPOT__OUT_MIN];
    ttft_tpot_writer o;
    if (!ttft_tpot__holds(m, TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_LAYER) || !out || format < TTFT_TPOT_FORMAT_TEXT ||
        format > TTFT_TPOT_FORMAT_JSON_OPEN)
        return TTFT_TPOT_EINVAL;
    ttft_tpot__out_open(&o, out, block, sizeof block);
    if (format == TTFT_TPOT_FORMAT_TEXT)
        ttft_tpot__text(m, &o);
    else
        ttft_tpot__json(m, &o);
    if (format == TTFT_TPOT_FORMAT_JSON)
        ttft_tpot__out_str(&o, "}\n");
    return ttft_tpot__out_close(&o);
}

/* Compute the model, then write it: a report is whole, or (ENOMEM) not written. */
TTFT_TPOT_DEF int ttft_tpot_report(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot_model_compute(c, NULL, &m)) == TTFT_TPOT_OK)
        rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_TEXT);
    ttft_tpot_model_free(&m);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Trace I/O ------------------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

static const char ttft_tpot__header[] = "phase,role,start_ns,dur_ns,tokens,warmup";

/* -- Trace I/O: writing ------------------------------------------------------------------------ */

/* A bounded phase's histogram: "# hist: ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C I:C ...,NAME". */
static void ttft_tpot__write_hist(ttft_tpot_writer *out, const ttft_tpot__phase_slot *p)
{
    const ttft_tpot_hist *h = p->hist;
    unsigned i, any = 0;
    ttft_tpot__out_fmt(out, "# hist: %s,%llu,%llu,%llu,%llu,%llu,", ttft_tpot__role_name(p->role),
                       (unsigned long long)h->tokens, (unsigned long long)h->min_ns, (unsigned long long)h->max_ns,
                       (unsigned long long)h->sum_hi, (unsigned long long)h->sum_lo);
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS; i++)
        if (h->counts[i])
            ttft_tpot__out_fmt(out, any++ ? " %u:%llu" : "%u:%llu", i, (unsigned long long)h->counts[i]);
    ttft_tpot__out_fmt(out, ",%s\n", p->name);
}

/* The values of a "# counts:" line (TTFT_TPOT_COUNTS): c's, its layer's, and the limits they met. */
static void ttft_tpot__counts_of(const ttft_tpot *c, uint64_t *v)
{
    ttft_tpot_layer_counts k;
    memset(&k, 0, sizeof k);
    if (c->layer && c->layer->counts)
        c->layer->counts(c->layer->state, &k);
    v[TTFT_TPOT_COUNT_dropped] = c->store.dropped;
    v[TTFT_TPOT_COUNT_rejected] = c->rejected + k.rejected;
    v[TTFT_TPOT_COUNT_shapes_dropped] = c->shape.dropped;
    v[TTFT_TPOT_COUNT_requests_dropped] = k.requests_dropped;
    v[TTFT_TPOT_COUNT_requests_refused] = k.requests_refused;
    v[TTFT_TPOT_COUNT_events_lost] = k.events_lost;
    v[TTFT_TPOT_COUNT_runs_dropped] = c->runs_dropped;
    v[TTFT_TPOT_COUNT_outgrown] = c->store.outgrown;
    v[TTFT_TPOT_COUNT_spans_open] = ttft_tpot__spans_open(c);
    v[TTFT_TPOT_COUNT_sequences_lost] = c->store.seq_lost;
    v[TTFT_TPOT_COUNT_sequences_in_histogram] = c->store.seq_hist;
    v[TTFT_TPOT_COUNT_spans_cancelled] = c->spans_cancelled;
    v[TTFT_TPOT_COUNT_capacity] = ttft_tpot__limit(c, 0);
    v[TTFT_TPOT_COUNT_max_requests] = k.max_requests;
    v[TTFT_TPOT_COUNT_max_request_events] = k.max_request_events;
    v[TTFT_TPOT_COUNT_max_shapes] = ttft_tpot__limit(c, 1);
}

/* What the samples cannot say, as directives a v1 reader takes for comments: the phase table in its
   order, bounded phases' histograms, the prefill rate's sums, the layer's, and every count of what
   was lost. Names and ids go last on their line and unquoted: they hold no newline. */
static void ttft_tpot__write_directives(const ttft_tpot *c, ttft_tpot_writer *out, int phases)
{
#define TTFT_TPOT__COUNT_NAME(key, limit) {#key, limit},
    static const struct {
        const char *key;
        int limit;
    } keys[] = {TTFT_TPOT_COUNTS(TTFT_TPOT__COUNT_NAME)};
#undef TTFT_TPOT__COUNT_NAME
    uint64_t counts[TTFT_TPOT_COUNT_KEYS];
    unsigned i, any = 0, put = 0;
    for (i = 0; phases && i < c->phase.n; i++)
        ttft_tpot__out_fmt(out, "# phase: %s,%s\n", ttft_tpot__role_name(c->phase.slots[i].role),
                           c->phase.slots[i].name);
    if (phases)
        return;
    for (i = 0; i < c->phase.n; i++)
        if (c->phase.slots[i].hist && c->phase.slots[i].hist->max_ns >= c->phase.slots[i].hist->min_ns) /* not empty */
            ttft_tpot__write_hist(out, &c->phase.slots[i]);
    for (i = 0; i < c->phase.n; i++) /* the prefill rate's sums: a sample row has no room for them */
        if (c->phase.slots[i].prompt[0])
            ttft_tpot__out_fmt(out, "# prompt: %llu,%llu,%llu,%s\n", (unsigned long long)c->phase.slots[i].prompt[0],
                               (unsigned long long)c->phase.slots[i].prompt[1],
                               (unsigned long long)c->phase.slots[i].prompt[2], c->phase.slots[i].name);
    if (c->layer && c->layer->trace)
        c->layer->trace(c->layer->state, out, TTFT_TPOT_SECTION_DIRECTIVES);
    ttft_tpot__counts_of(c, counts);
    for (i = 0; i < TTFT_TPOT_COUNT_KEYS; i++)
        any |= !keys[i].limit && counts[i] != 0;
    for (i = 0; any && i < TTFT_TPOT_COUNT_KEYS; i++) /* the losses, then every limit, 0 included */
        if (counts[i] || keys[i].limit)
            ttft_tpot__out_fmt(out, put++ ? " %s=%llu" : "# counts: %s=%llu", keys[i].key, (unsigned long long)counts[i]);
    if (any)
        ttft_tpot__out_chr(out, '\n');
}

/* Whether run r ends at stored sample i, before the samples end, and no run begins there (a run
   that begins ends the one before, and a read ends the last where the samples end). */
static int ttft_tpot__run_ends_alone(const ttft_tpot *c, unsigned r, size_t i)
{
    return c->run_end[r] == i && i < c->store.n && (r + 1 == c->runs || c->run_at[r + 1] != i);
}

/* The run lines before stored sample i, from run `run` on: "# run: end" where a run that began before
   ends, then "# run:" for each run that begins there, with its "# run: end" when it ends there too
   (empty). Returns the next run. */
static unsigned ttft_tpot__write_runs(const ttft_tpot *c, ttft_tpot_writer *o, size_t i, unsigned run)
{
    if (run > 0 && ttft_tpot__run_ends_alone(c, run - 1, i))
        ttft_tpot__out_str(o, "# run: end\n");
    for (; run < c->runs && c->run_at[run] == i; run++) {
        ttft_tpot__out_str(o, "# run:\n");
        if (ttft_tpot__run_ends_alone(c, run, i))
            ttft_tpot__out_str(o, "# run: end\n");
    }
    return run;
}

/* A phase's "name,role," as a sample line starts, escaped once for the lines that follow (a few
   phases, kept by phase number: nothing allocated for them). */
typedef struct ttft_tpot__line_head {
    unsigned phase; /* + 1; 0: empty */
    unsigned len;
    char text[2 * TTFT_TPOT_NAME_MAX + 16];
} ttft_tpot__line_head;

static const ttft_tpot__line_head *ttft_tpot__head_of(const ttft_tpot *c, ttft_tpot__line_head *heads, unsigned phase)
{
    ttft_tpot__line_head *h = &heads[phase % 8];
    const char *role = ttft_tpot__role_name(c->phase.slots[phase].role);
    size_t n, len = strlen(role);
    if (h->phase == phase + 1)
        return h;
    n = ttft_tpot__csv_esc(h->text, c->phase.slots[phase].name);
    h->text[n++] = ',';
    memcpy(h->text + n, role, len); /* a field: no NUL */
    h->text[n + len] = ',';
    h->len = (unsigned)(n + len + 1);
    h->phase = phase + 1;
    return h;
}

/* Every stored sample, in call order, with the run lines among them. */
static void ttft_tpot__write_samples(const ttft_tpot *c, ttft_tpot_writer *o)
{
    ttft_tpot__line_head heads[8];
    size_t i;
    unsigned run = 0, k;
    for (k = 0; k < 8; k++)
        heads[k].phase = 0;
    for (i = 0; i <= c->store.n; i++) {
        const ttft_tpot_sample *s;
        const ttft_tpot__line_head *h;
        char *p;
        run = ttft_tpot__write_runs(c, o, i, run);
        if (i == c->store.n)
            break;
        s = &c->store.samples[i];
        h = ttft_tpot__head_of(c, heads, s->phase);
        p = ttft_tpot__out_room(o, 2 * TTFT_TPOT_NAME_MAX + 160); /* the name escaped, a role, 4 numbers, sequences */
        memcpy(p, h->text, h->len);
        p = ttft_tpot__put_u64(p + h->len, c->store.starts ? c->store.starts[i] : 0);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ","), s->dur_ns);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ","), s->tokens);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ","), s->warmup);
        p = TTFT_TPOT__LIT(p, "\n");
        if (c->store.seqs && c->store.seqs[i]) /* the step's sequences, for the line above */
            p = TTFT_TPOT__LIT(ttft_tpot__put_u64(TTFT_TPOT__LIT(p, "# sequences: "), c->store.seqs[i]), "\n");
        o->n = (size_t)(p - o->b);
    }
}

/* The device intervals, in ticket order: "# device: SAMPLE,STREAM,STATE,PART,WARMUP,ISSUE_NS,BEGIN_NS,
   DEVICE_NS,PHASE" (SAMPLE: its sample's line among the trace's samples, from 1; 0 none), each with a
   queued stamp followed by "# device_queued: QUEUED_NS" (host clock), then what was lost:
   "# device_lost: UNRESOLVED,REFUSED". A reader that does not know them skips them. */
static void ttft_tpot__write_device(const ttft_tpot *c, ttft_tpot_writer *out)
{
    size_t i;
    for (i = 0; i < c->dev.n; i++) {
        const ttft_tpot_device_interval *d = &c->dev.log[i];
        ttft_tpot__out_fmt(out, "# device: %llu,%lu,%d,%d,%d,%llu,%llu,%llu,%s\n", (unsigned long long)d->sample,
                           (unsigned long)d->stream, d->state, d->part, d->warmup, (unsigned long long)d->issue_ns,
                           (unsigned long long)d->begin_ns, (unsigned long long)d->device_ns,
                           c->phase.slots[d->phase].name);
        if (d->queued_ns)
            ttft_tpot__out_fmt(out, "# device_queued: %llu\n", (unsigned long long)d->queued_ns);
    }
    if (c->dev.unresolved || c->dev.refused)
        ttft_tpot__out_fmt(out, "# device_lost: %llu,%llu\n", (unsigned long long)c->dev.unresolved,
                           (unsigned long long)c->dev.refused);
}

/* Through a large block (a system call for each 16 KiB costs as much as formatting them), or the
   stack's when there is no memory for it: a trace is written whatever memory is left. */
TTFT_TPOT_DEF int ttft_tpot_trace_write(const ttft_tpot *c, FILE *out)
{
    char block[TTFT_TPOT__OUT_MIN], *big;
    ttft_tpot_writer o;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    big = (char *)TTFT_TPOT_MALLOC(TTFT_TPOT__OUT_BIG, c->alloc_user);
    ttft_tpot__out_open(&o, out, big ? big : block, big ? TTFT_TPOT__OUT_BIG : sizeof block);
    ttft_tpot__out_str(&o, "# ttft_tpot trace v1\n");
    if (c->clock_name[0] && c->clock_read_ns)
        ttft_tpot__out_fmt(&o, "# clock: %s, %llu ns/read\n", c->clock_name, (unsigned long long)c->clock_read_ns);
    if (c->started_ns)
        ttft_tpot__out_fmt(&o, "# started: %llu\n", (unsigned long long)c->started_ns);
    ttft_tpot__out_fmt(&o, "%s\n", ttft_tpot__header);
    ttft_tpot__write_directives(c, &o, 1);
    ttft_tpot__write_samples(c, &o);
    ttft_tpot__write_device(c, &o);
    if (c->layer && c->layer->trace)
        c->layer->trace(c->layer->state, &o, TTFT_TPOT_SECTION_EVENTS);
    ttft_tpot__write_directives(c, &o, 0);
    rc = ttft_tpot__out_close(&o);
    if (big)
        TTFT_TPOT_FREE(big, c->alloc_user);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Layers ---------------------------------------------------------------------------------- */

/* What the collector keeps current in its layer. */
static void ttft_tpot__layer_sync(ttft_tpot *c)
{
    ttft_tpot_layer *l = c->layer;
    l->c = c;
    l->enabled = c->enabled;
    l->warmup = c->warm_all;
    l->grow = c->grow;
    l->refusal = c->refusal;
    l->alloc_user = c->alloc_user;
}

/* The prefill and decode phases watched (a layer with a sample hook is attached) or not: a watched phase
   takes the out-of-line path, where the hook is called; unwatched, it stores inline again once called. */
static void ttft_tpot__watch(ttft_tpot *c)
{
    unsigned p;
    for (p = 0; p < c->phase.n; p++) {
        ttft_tpot__phase_slot *ph = &c->phase.slots[p];
        ph->watched = c->layer && c->layer->sample && ph->role <= TTFT_TPOT_ROLE_DECODE;
        if (!ph->fresh)
            ttft_tpot__phase_called(c, ph);
    }
}

TTFT_TPOT_DEF int ttft_tpot_attach(ttft_tpot *c, ttft_tpot_layer *layer)
{
    if (!c || (layer && c->layer))
        return TTFT_TPOT_EINVAL;
    if (c->layer)
        c->layer->c = NULL;
    c->layer = layer;
    if (layer)
        ttft_tpot__layer_sync(c);
    ttft_tpot__watch(c);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_name_hash(const ttft_tpot *c, const char *name, size_t len, uint64_t *hash)
{
    if (!c || !name)
        return TTFT_TPOT_EINVAL;
    if (!hash)
        return ttft_tpot__name_ok(name, len) ? TTFT_TPOT_OK : TTFT_TPOT_ENAME;
    *hash = ttft_tpot__hash(c, name, len);
    return TTFT_TPOT_OK;
}


#ifdef __cplusplus
}
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
#endif /* TTFT_TPOT_IMPLEMENTATION */

#if defined(TTFT_TPOT_IMPLEMENTATION) && defined(TTFT_TPOT_LAYERS) && !defined(TTFT_TPOT_LAYERS_IMPLEMENTED)
#define TTFT_TPOT_LAYERS_IMPLEMENTED
/* ================================ implementation: the calls of layers ========================== */

/* What only layers and tools call (ttft_tpot_series_stats, ttft_tpot_write, ttft_tpot_restore), compiled
   where TTFT_TPOT_LAYERS is defined: ttft_tpot_serve.h and ttft_tpot_tools.h define it before they
   include this header, in the file that holds the implementation (also after it was included there
   without). It uses the implementation's own functions above. */
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(precise, on, push)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("no-fast-math", "fp-contract=off")
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push /* g++'s -Wuseless-cast: a cast between size_t and uint64_t one platform needs */
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Statistics of durations kept in 1/scale ns (a layer's per-token values), back in ns: rounded, without overflow. */
static void ttft_tpot__unscale(ttft_tpot_stats *st, uint64_t scale)
{
    unsigned j;
    st->min_ns = st->min_ns / scale + (st->min_ns % scale >= (scale + 1) / 2);
    st->max_ns = st->max_ns / scale + (st->max_ns % scale >= (scale + 1) / 2);
    for (j = 0; j < 4; j++)
        st->pct_ns[j] = st->pct_ns[j] / scale + (st->pct_ns[j] % scale >= (scale + 1) / 2);
    for (j = 0; j < st->pick_n; j++)
        st->pick_ns[j] = st->pick_ns[j] / scale + (st->pick_ns[j] % scale >= (scale + 1) / 2);
    for (j = 0; j < 6; j++)
        st->ci_ns[j / 2][j % 2] = st->ci_ns[j / 2][j % 2] / scale + (st->ci_ns[j / 2][j % 2] % scale >= (scale + 1) / 2);
    st->total_ns /= (double)scale;
    st->mean_ns /= (double)scale;
    st->p50_ns /= (double)scale;
    st->p90_ns /= (double)scale;
    st->p95_ns /= (double)scale;
    st->p99_ns /= (double)scale;
}

/* ---- Report model: the statistics of a series --------------------------------------------------- */

/* A set (TTFT_TPOT_SET_*) names something c has: a role, a registered phase. */
static int ttft_tpot__set_ok(const ttft_tpot *c, int set)
{
    return (set >= TTFT_TPOT_SET_ROLE && set <= TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E) ||
           (set >= TTFT_TPOT_SET_PHASE && set - TTFT_TPOT_SET_PHASE < (int)c->phase.n);
}

/* The values of a set of c's stored samples (its warmup ones too with warmup) in call order into x
   (at most cap; x may be NULL), their tokens and warmup samples into st (may be NULL): how many there
   are. A role's set is its TPOT series, a decode step per output token; a phase's, its times. */
static size_t ttft_tpot__set_copy(const ttft_tpot *c, const ttft_tpot_series *s, uint64_t *x, size_t cap,
                                  ttft_tpot_stats *st)
{
    int by_role = s->set < TTFT_TPOT_SET_PHASE, want = s->set - (by_role ? TTFT_TPOT_SET_ROLE : TTFT_TPOT_SET_PHASE);
    size_t i, n = 0;
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *p = &c->store.samples[i];
        if ((p->warmup && !s->warmup) || (by_role ? c->phase.slots[p->phase].role : (int)p->phase) != want)
            continue;
        if (x && n < cap)
            x[n] = by_role ? ttft_tpot__per_token(c, i, p->dur_ns) : p->dur_ns;
        if (st) {
            st->tokens += p->tokens;
            st->warmup_n += p->warmup;
        }
        n++;
    }
    return n;
}


/* The order statistics of phase's m stored samples (their scan in st), large enough to have been counted
   by fine bucket in slot: the values of the buckets of their ranks are copied out of the store, and
   selected there (ttft_tpot__narrowed_ranks, with memory for those values alone). OK or ENOMEM. */
static int ttft_tpot__stored_ranks(const ttft_tpot *c, int phase, size_t m, const ttft_tpot__narrow *nw,
                                   ttft_tpot_stats *st)
{
    uint64_t shifted[TTFT_TPOT__MAX_RANKS], *x, room = 0;
    unsigned kept[TTFT_TPOT__MAX_RANKS], nk = 0, j;
    ttft_tpot__ranks rk;
    size_t f;
    ttft_tpot__ranks_of(m, nw, st, &rk);
    ttft_tpot__kept_add(nw->slot, rk.rank, rk.nr, kept, &nk);
    for (j = 0; j < nk; j++)
        room += nw->slot[kept[j]];
    if (!(x = (uint64_t *)TTFT_TPOT_MALLOC((size_t)room * sizeof *x, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    ttft_tpot__shift_ranks(nw->slot, kept, nk, rk.rank, rk.nr, shifted);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 1);
    f = ttft_tpot__copy_stored(c, phase, 0, 0, nw->mark, x);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 0);
    ttft_tpot__select_ranks(x, f, shifted, rk.nr, rk.val);
    ttft_tpot__ranks_to(&rk, nw, st);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* Statistics of every sample of one phase, warmup included, in memory for the phase, not the store: one
   pass over the store counts its samples (tokens, warmup, sum and extremes, and fine buckets), a bounded
   phase's stored ones going into a copy of its histogram; then an exact phase's values are copied out
   of the store, all of them for a small phase, else only those of its ranks' buckets. The figures
   are those of the phase's values gathered whole (ttft_tpot__finish_set). w: its scratch and histogram
   alone (no work area). OK or ENOMEM. */
static int ttft_tpot__phase_set(const ttft_tpot *c, ttft_tpot__work *w, int phase, ttft_tpot_stats *st)
{
    ttft_tpot__scan scan;
    int bounded = ttft_tpot__set_hists(c, w, phase, 0);
    uint32_t *slot = bounded ? NULL : w->nw.slot; /* NULL too for a store too small to narrow */
    uint64_t *x;
    size_t i;
    memset(st, 0, sizeof *st);
    memset(&scan, 0, sizeof scan);
    if (slot)
        memset(slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *slot);
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (s->phase != phase)
            continue;
        st->warmup_n += s->warmup;
        st->tokens += s->tokens;
        if (bounded) {
            ttft_tpot__hist_add(w->h, s->dur_ns, 0);
            continue;
        }
        ttft_tpot__scan_one(&scan, s->dur_ns);
        if (slot)
            slot[ttft_tpot__fine_index(s->dur_ns)]++;
    }
    if (bounded) { /* the histogram's figures, its tokens with the stored samples' */
        st->tokens += w->h->tokens;
        ttft_tpot__hist_fill(w->h, &w->nw, st);
        return TTFT_TPOT_OK;
    }
    ttft_tpot__scan_to(&scan, st);
    if (scan.n >= TTFT_TPOT__NARROW_MIN) /* a store this large has the narrowing scratch */
        return ttft_tpot__stored_ranks(c, phase, scan.n, &w->nw, st);
    if (scan.n == 0)
        return TTFT_TPOT_OK;
    if (!(x = (uint64_t *)TTFT_TPOT_MALLOC(scan.n * sizeof *x, c->alloc_user))) /* a small phase: all of it */
        return TTFT_TPOT_ENOMEM;
    ttft_tpot__copy_stored(c, phase, 0, 0, NULL, x);
    ttft_tpot__order_stats(x, scan.n, NULL, &w->nw, st);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* The statistics of a set of c's stored samples but a phase's row: gathered, with the bounded
   phases' histograms that belong to it. w: the narrowing scratch and histogram. OK or ENOMEM. */
static int ttft_tpot__gathered_set(const ttft_tpot *c, ttft_tpot__work *w, const ttft_tpot_series *s,
                                   ttft_tpot_stats *st)
{
    int phase = s->set >= TTFT_TPOT_SET_PHASE ? s->set - TTFT_TPOT_SET_PHASE : -1;
    size_t n = ttft_tpot__set_copy(c, s, NULL, 0, NULL);
    uint64_t *x = (uint64_t *)TTFT_TPOT_MALLOC((n ? n : 1) * sizeof *x, c->alloc_user);
    if (!x)
        return TTFT_TPOT_ENOMEM;
    memset(st, 0, sizeof *st);
    ttft_tpot__set_copy(c, s, x, n, st);
    {
        ttft_tpot__gathered g = {NULL, 0, 0, -1, -1, NULL};
        g.x = x, g.m = n, g.phase = phase, g.role = phase < 0 ? s->set - TTFT_TPOT_SET_ROLE : -1;
        ttft_tpot__finish_set(c, w, &g, st);
    }
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* The statistics of a set: a phase's row (every sample) in memory for the phase, not the store; any
   other gathered. */
static int ttft_tpot__set_stats(const ttft_tpot *c, const ttft_tpot_series *s, ttft_tpot_stats *out)
{
    ttft_tpot__work w; /* its narrowing scratch and histogram: the values are copied as the set needs */
    int rc;
    memset(&w, 0, sizeof w);
    w.h = c->hist.n ? (ttft_tpot_hist *)TTFT_TPOT_MALLOC(sizeof(ttft_tpot_hist), c->alloc_user) : NULL;
    if ((c->hist.n && !w.h) || ttft_tpot__narrow_init(c, &w.nw, c->store.n) != TTFT_TPOT_OK) {
        ttft_tpot__work_free(c, &w);
        return TTFT_TPOT_ENOMEM;
    }
    if (s->set >= TTFT_TPOT_SET_PHASE && s->warmup)
        rc = ttft_tpot__phase_set(c, &w, s->set - TTFT_TPOT_SET_PHASE, out);
    else
        rc = ttft_tpot__gathered_set(c, &w, s, out);
    ttft_tpot__work_free(c, &w);
    return rc;
}

/* The steady values of series v[0, m) (flags: warmup, NULL none) into x: how many; *k: how many of
   them come before value cut. */
static size_t ttft_tpot__series_steady(const uint64_t *v, const unsigned char *flags, size_t m, uint64_t cut,
                                       uint64_t *x, size_t *k)
{
    size_t n = 0, i;
    for (i = 0, *k = 0; i < m; i++) {
        if (!(flags && flags[i]))
            x[n++] = v[i];
        if (i + 1 == cut)
            *k = n;
    }
    return n;
}

/* A series checked like a phase's: its spikes, then White's rule (*ss's, in batches) asked again of
   the batch sums sum[0, m5) without them where there are some, and checked where it fires. x: room for
   the series. */
static void ttft_tpot__series_checks(const ttft_tpot_series *s, uint64_t *x, double *sum, uint64_t m5,
                                     ttft_tpot_steady_state *ss)
{
    ttft_tpot__spotter sp;
    size_t n, k, i;
    double p50;
    if ((n = ttft_tpot__series_steady(s->values, s->flags, s->n, 0, x, &k)) > 0) {
        ttft_tpot__p50(x, n, &p50, &ss->steady_p50_ns);
        ttft_tpot__spot_start(&sp, ss->steady_p50_ns, sum, m5);
        for (i = 0; i < s->n; i++)
            ttft_tpot__spot(&sp, ss, s->values[i], !(s->flags && s->flags[i]));
        ttft_tpot__spot_end(&sp, ss);
    }
    if (ss->spikes)
        ttft_tpot__mser5_cuts(sum, m5, &ss->white_cut);
    ss->white_cut *= 5;
    if (ss->white_cut) {
        n = ttft_tpot__series_steady(s->values, s->flags, s->n, ss->white_cut, x, &k);
        ss->drift = ttft_tpot__moves(x, n, k, NULL);
    }
}

/* A series' steady state (values in its order, warmup ones flagged), measured like a decode phase's:
   MSER-5's cut and the p50 after it, White's cut checked, its spikes. OK, ENOMEM. */
static int ttft_tpot__series_state(const ttft_tpot *c, const ttft_tpot_series *s, ttft_tpot_steady_state *ss)
{
    uint64_t *x = (uint64_t *)TTFT_TPOT_MALLOC((2 * s->n + 1) * sizeof *x, c->alloc_user);
    double *sum;
    size_t m = s->n, b, i;
    if (!x)
        return TTFT_TPOT_ENOMEM;
    memset(ss, 0, sizeof *ss);
    for (i = 0; i < m; i++) {
        x[i] = s->values[i];
        ss->flagged += s->flags && s->flags[i];
    }
    sum = (double *)(void *)(x + m); /* the batch sums after the series (one at least: none is read uninitialised) */
    sum[0] = 0;
    for (b = 0; b < m / 5; b++)
        for (sum[b] = 0, i = 5 * b; i < 5 * b + 5; i++)
            sum[b] += (double)x[i];
    ss->measured = m > 0;
    ss->truncation = 5 * ttft_tpot__mser5_cuts(sum, m / 5, &ss->white_cut);
    if ((ss->has_p50 = m > ss->truncation) != 0)
        ttft_tpot__p50(x + ss->truncation, m - (size_t)ss->truncation, &ss->p50_ns, &ss->p50_exact_ns);
    ttft_tpot__series_checks(s, x, sum, m / 5, ss); /* the series in x is done with */
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* The statistics of values, their scale undone once. */
static int ttft_tpot__values_stats(const ttft_tpot *c, const ttft_tpot_series *s, ttft_tpot_stats *out)
{
    ttft_tpot__narrow nw;
    uint64_t *x;
    memset(out, 0, sizeof *out);
    if (s->n == 0)
        return TTFT_TPOT_OK;
    if (s->scratch)
        x = s->scratch;
    else if (s->n > SIZE_MAX / sizeof *x || !(x = (uint64_t *)TTFT_TPOT_MALLOC(s->n * sizeof *x, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    if (ttft_tpot__narrow_init(c, &nw, s->n) != TTFT_TPOT_OK) {
        if (!s->scratch)
            TTFT_TPOT_FREE(x, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    if (!s->scratch)
        memcpy(x, s->values, s->n * sizeof *x); /* the statistics reorder their values */
    ttft_tpot__fill(x, s->n, &nw, out);
    if (s->scale > 1)
        ttft_tpot__unscale(out, s->scale);
    ttft_tpot__narrow_free(c, &nw);
    if (!s->scratch)
        TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_series_stats(const ttft_tpot *c, ttft_tpot_series *s, ttft_tpot_stats *out,
                                     ttft_tpot_steady_state *ss)
{
    int rc = TTFT_TPOT_OK;
    if (!c || !s || (s->set < 0 && !s->values && !s->scratch && s->n > 0) || (s->scratch && ss) ||
        (s->set >= 0 && (!ttft_tpot__set_ok(c, s->set) || ss)))
        return TTFT_TPOT_EINVAL;
    if (s->set >= 0) {
        s->n = ttft_tpot__set_copy(c, s, s->out, s->out ? s->cap : 0, NULL);
        return out ? ttft_tpot__set_stats(c, s, out) : TTFT_TPOT_OK;
    }
    if (out)
        rc = ttft_tpot__values_stats(c, s, out);
    if (rc == TTFT_TPOT_OK && ss)
        rc = ttft_tpot__series_state(c, s, ss);
    return rc;
}

/* ---- Writers: the writer's conversions --------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* What a conversion of ttft_tpot_write says: its flags, width and precision (-1: none), its length
   modifier (0, 'l', 'L': ll, 'z') and its letter. */
typedef struct ttft_tpot__spec {
    char flags[5];
    int width, prec, len;
    char conv;
} ttft_tpot__spec;

/* The spec at p (past the '%'): p past it, or NULL where it is none this writer knows. A '*' width or
   precision takes an int. */
static const char *ttft_tpot__spec_of(const char *p, ttft_tpot__spec *sp, va_list *ap)
{
    size_t nf = 0;
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    for (; (*p == '-' || *p == '0' || *p == '+' || *p == ' ') && nf < sizeof sp->flags - 1; p++)
        sp->flags[nf++] = *p;
    if (*p == '*') {
        sp->width = va_arg(*ap, int), p++;
    } else {
        for (; *p >= '0' && *p <= '9' && sp->width < 256; p++)
            sp->width = (sp->width < 0 ? 0 : sp->width * 10) + (*p - '0');
    }
    if (*p == '.') {
        sp->prec = 0;
        if (*++p == '*')
            sp->prec = va_arg(*ap, int), p++;
        for (; *p >= '0' && *p <= '9' && sp->prec < 256; p++)
            sp->prec = sp->prec * 10 + (*p - '0');
    }
    if (*p == 'l' && p[1] == 'l')
        sp->len = 'L', p += 2;
    else if (*p == 'l' || *p == 'z')
        sp->len = (unsigned char)*p++;
    sp->conv = *p;
    return sp->width < 256 && sp->prec < 256 && *p && strchr("diuxcsfegTRPJLMNSWKC%", *p) ? p + 1 : NULL;
}

/* The spec back as printf's format, its letter conv and its length modifier len ("" none). */
static void ttft_tpot__spec_fmt(const ttft_tpot__spec *sp, const char *len, char conv, char *fmt)
{
    char *p = fmt;
    size_t k;
    *p++ = '%';
    for (k = 0; sp->flags[k]; k++)
        *p++ = sp->flags[k];
    if (sp->width >= 0)
        p += snprintf(p, 8, "%d", sp->width);
    if (sp->prec >= 0)
        p += snprintf(p, 8, ".%d", sp->prec);
    for (k = 0; len[k]; k++)
        *p++ = len[k];
    *p++ = conv;
    *p = '\0';
}

/* A whole number of a d, i, u or x conversion: written directly where it has no width or flags, else
   through snprintf (integers have no locale). */
static void ttft_tpot__put_integer(ttft_tpot_writer *w, const ttft_tpot__spec *sp, va_list *ap)
{
    const char *len = sp->len == 'L' ? "ll" : sp->len == 'l' ? "l" : sp->len == 'z' ? "z" : "";
    int sign = sp->conv == 'd' || sp->conv == 'i';
    uint64_t v;
    long long sv = 0;
    char text[96], fmt[32];
    if (sign)
        sv = sp->len == 'L' ? va_arg(*ap, long long) : sp->len == 'l' ? va_arg(*ap, long)
             : sp->len == 'z' ? (long long)va_arg(*ap, size_t) : va_arg(*ap, int);
    v = sign ? (uint64_t)sv
        : sp->len == 'L' ? va_arg(*ap, unsigned long long) : sp->len == 'l' ? va_arg(*ap, unsigned long)
        : sp->len == 'z' ? va_arg(*ap, size_t) : va_arg(*ap, unsigned);
    if (sp->width < 0 && sp->prec < 0 && !sp->flags[0] && sp->conv != 'x') {
        char *p = text;
        if (sign && sv < 0)
            *p++ = '-', v = 0 - v;
        ttft_tpot__out_put(w, text, (size_t)(ttft_tpot__put_u64(p, v) - text));
        return;
    }
    ttft_tpot__spec_fmt(sp, len, (char)(sp->conv == 'i' ? 'd' : sp->conv), fmt);
    if (sign)
        snprintf(text, sizeof text, fmt, sv);
    else
        snprintf(text, sizeof text, fmt, (unsigned long long)v);
    ttft_tpot__out_str(w, text);
}

/* A string of an s conversion, with its width and precision. */
static void ttft_tpot__put_string(ttft_tpot_writer *w, const ttft_tpot__spec *sp, const char *s)
{
    size_t len = s ? strlen(s) : 6, pad;
    s = s ? s : "(null)";
    len = sp->prec >= 0 && (size_t)sp->prec < len ? (size_t)sp->prec : len;
    pad = sp->width > 0 && (size_t)sp->width > len ? (size_t)sp->width - len : 0;
    for (; pad && !strchr(sp->flags, '-'); pad--)
        ttft_tpot__out_chr(w, ' ');
    ttft_tpot__out_put(w, s, len);
    for (; pad; pad--)
        ttft_tpot__out_chr(w, ' ');
}

/* A name as a CSV field (%C): cut at TTFT_TPOT_NAME_MAX - 1 bytes. */
static void ttft_tpot__put_csv(ttft_tpot_writer *w, const char *s)
{
    char name[TTFT_TPOT_NAME_MAX], field[2 * TTFT_TPOT_NAME_MAX + 2];
    size_t len = strlen(s) < sizeof name ? strlen(s) : sizeof name - 1;
    memcpy(name, s, len);
    name[len] = '\0';
    ttft_tpot__out_put(w, field, ttft_tpot__csv_esc(field, name));
}

/* A conversion of the report's own (ttft_tpot_write); the text ones (T, R, P) take a width and the '-'
   flag as a string does. */
static void ttft_tpot__put_report(ttft_tpot_writer *w, const ttft_tpot__spec *sp, va_list *ap)
{
    ttft_tpot__spec pad = *sp;
    char text[64];
    const char *name, *word;
    int has;
    double v;
    pad.prec = -1;
    switch (sp->conv) {
    case 'T':
        ttft_tpot__put_string(w, &pad, ttft_tpot__dur(text, sizeof text, va_arg(*ap, double)));
        break;
    case 'R':
        v = va_arg(*ap, double);
        ttft_tpot__put_string(w, &pad, ttft_tpot__fix(text, sizeof text, sp->prec < 0 ? 2 : sp->prec > 2 ? 2 : sp->prec, v));
        break;
    case 'P':
        ttft_tpot__put_string(w, &pad, ttft_tpot__percentile_name(text, sizeof text, (uint32_t)va_arg(*ap, unsigned)));
        break;
    case 'J':
        ttft_tpot__json_str(w, va_arg(*ap, const char *));
        break;
    case 'L':
        ttft_tpot__json_ms(w, va_arg(*ap, double));
        break;
    case 'M':
        ttft_tpot__json_ms_u64(w, va_arg(*ap, uint64_t));
        break;
    case 'N':
        has = va_arg(*ap, int);
        ttft_tpot__json_num(w, has, va_arg(*ap, double));
        break;
    case 'S':
        ttft_tpot__json_stats(w, va_arg(*ap, const ttft_tpot_stats *));
        break;
    case 'W':
        ttft_tpot__json_steady_state(w, va_arg(*ap, const ttft_tpot_steady_state *));
        break;
    case 'K':
        name = va_arg(*ap, const char *);
        word = va_arg(*ap, const char *);
        ttft_tpot__text_spikes(w, name, word, va_arg(*ap, const ttft_tpot_steady_state *));
        break;
    default: /* 'C' */
        ttft_tpot__put_csv(w, va_arg(*ap, const char *));
    }
}

/* One conversion at p (past the '%'): p past it, or NULL (unknown: nothing written). */
static const char *ttft_tpot__convert(ttft_tpot_writer *w, const char *p, va_list *ap)
{
    ttft_tpot__spec sp;
    char text[400], fmt[32];
    if (!(p = ttft_tpot__spec_of(p, &sp, ap)))
        return NULL;
    switch (sp.conv) {
    case '%':
        ttft_tpot__out_chr(w, '%');
        break;
    case 'c':
        ttft_tpot__out_chr(w, (char)va_arg(*ap, int));
        break;
    case 's':
        ttft_tpot__put_string(w, &sp, va_arg(*ap, const char *));
        break;
    case 'd': case 'i': case 'u': case 'x':
        ttft_tpot__put_integer(w, &sp, ap);
        break;
    case 'f': case 'e': case 'g':
        ttft_tpot__spec_fmt(&sp, "", sp.conv, fmt);
        ttft_tpot__out_str(w, ttft_tpot__num(text, sizeof text, fmt, va_arg(*ap, double)));
        break;
    default:
        ttft_tpot__put_report(w, &sp, ap);
    }
    return p;
}

TTFT_TPOT_DEF int ttft_tpot_write(ttft_tpot_writer *w, const char *fmt, ...)
{
    va_list ap;
    const char *p, *q;
    int rc = TTFT_TPOT_OK;
    if (!w || !w->b || !w->cap)
        return TTFT_TPOT_EINVAL;
    if (!fmt) {
        ttft_tpot__out_flush(w);
        w->err |= w->f && ferror((FILE *)w->f);
        return w->err ? TTFT_TPOT_EIO : TTFT_TPOT_OK;
    }
    va_start(ap, fmt);
    for (p = fmt; rc == TTFT_TPOT_OK && *p; p = q) {
        for (q = p; *q && *q != '%'; q++) /* the text up to the next conversion, copied whole */
            ;
        ttft_tpot__out_put(w, p, (size_t)(q - p));
        if (*q && !(q = ttft_tpot__convert(w, q + 1, &ap)))
            rc = TTFT_TPOT_EINVAL;
    }
    va_end(ap);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifndef TTFT_TPOT_NO_STDIO /* a trace is a file: its restore is read with its messages */

/* ---- Layers: restoring a trace ----------------------------------------------------------------- */


/* A phase's histogram as the trace being read leaves it: what it held, then its "# hist:" lines and
   its steady samples (a bounded phase's, or past the storage); it replaces the phase's when the whole
   trace has been read. Its count is kept, so that nothing added can pass 2^64 unseen (its sum cannot
   pass 2^128 then: fewer than 2^64 values below 2^64). */
typedef struct ttft_tpot__pending {
    int phase;
    int outgrown; /* the phase outgrew the storage while this trace was read */
    uint64_t n;   /* the values in h */
    ttft_tpot_hist h;
} ttft_tpot__pending;

/* How far the tables were filled, to go back to when a trace is refused (samples past the store's n
   are never counted: they need nothing). */
typedef struct ttft_tpot__mark {
    unsigned phases, hists, runs;
    size_t last_end; /* the last run's end (a read closes it) */
    uint64_t runs_dropped;
    int starts, seqs; /* start times, sequences were kept (a read may take them on) */
} ttft_tpot__mark;

/* One trace being restored (ttft_tpot.reading): what it adds, staged past the collector's tables and
   committed at the end, or rolled back. */
typedef struct ttft_tpot__reading {
    ttft_tpot__mark old; /* where the tables stood */
    size_t n;            /* samples stored past c->store.n */
    size_t old_samples;  /* c->store.n before the read */
    uint64_t dropped, counts[TTFT_TPOT_COUNT_KEYS]; /* "# counts:" lines: losses added, limits kept */
    unsigned limits;     /* bit k: key k, a limit, was given */
    ttft_tpot__pending *pending;
    unsigned n_pending, cap_pending, slots; /* slots: histogram slots the pending ones need */
    uint32_t *pend_of;   /* by phase: its pending histogram of steady samples + 1; UINT32_MAX: a
                            first sample kept exact; 0: none yet (allocated with the first) */
    uint64_t (*prompt)[4]; /* by phase: "# prompt:" sums, added when the trace has been read, and the
                              line of the last (0: none), where a contradiction is reported */
    size_t cap_pend, cap_prompt; /* the phases each of the two holds: c->phase.n once allocated */
    size_t rows;          /* sample lines read */
    size_t first_lost;    /* the first of them not stored (in a histogram, or dropped); SIZE_MAX: none */
    size_t dev_n, dev_open; /* device intervals added past c->dev.n, and how many are open */
    int dev_last;           /* the last "# device:" line: 0 none yet, 1 kept (its interval is the last
                               added), -1 no room for it */
    uint64_t dev_lost[2];   /* unresolved (theirs, and ours: no room), refused */
    int step_kept;          /* the sample line just read, for a "# sequences:" line: 0 none, 1 stored at
                               step_at, 2 in a histogram, 3 dropped */
    size_t step_at;
    uint64_t step_tokens;
    int step_phase;
    uint64_t seq_lost, seq_hist; /* steps of several tokens a sequence kept without their sequences */
    char clock_name[32];  /* from a "# clock: NAME, N ns/read" comment, if any */
    uint64_t clock_read_ns;
    uint64_t started_ns;  /* from a "# started: NS" line; 0 none */
} ttft_tpot__reading;

/* What a refusal says, into item->err: what, then arg (NULL: none), EPARSE. */
static int ttft_tpot__refuse(ttft_tpot_restore_item *item, const char *what, const char *arg)
{
    if (item->err && item->errlen)
        snprintf(item->err, item->errlen, "%s%s", what, arg ? arg : "");
    return TTFT_TPOT_EPARSE;
}

/* Part p of old bytes enlarged to sz bytes, its content kept: the new address, or NULL (p stays). */
static void *ttft_tpot__grow(ttft_tpot *c, void *p, size_t old, size_t sz, unsigned part)
{
    void *q;
#ifdef TTFT_TPOT_REALLOC
    if (c->grown & part) {
        if ((q = TTFT_TPOT_REALLOC(p, old, sz, c->alloc_user)) != NULL)
            c->grown |= part;
        return q;
    }
#endif
    if ((q = TTFT_TPOT_MALLOC(sz, c->alloc_user)) == NULL)
        return NULL;
    memcpy(q, p, old);
    if (c->grown & part) /* no realloc hook: malloc, copy, free */
        TTFT_TPOT_FREE(p, c->alloc_user);
    c->grown |= part;
    return q;
}

/* The next size of a table of n entries that must hold need: doubled, within max. */
static size_t ttft_tpot__next_size(size_t n, size_t need, size_t max)
{
    size_t m = n < max / 2 ? 2 * n : max;
    return m < need ? need : m;
}

/* Room for need samples (config.grow): OK, or EFULL past UINT32_MAX, or ENOMEM. */
static int ttft_tpot__store_grow(ttft_tpot *c, size_t need)
{
    ttft_tpot__store *st = &c->store;
    size_t cap = ttft_tpot__next_size(st->capacity, need, UINT32_MAX);
    unsigned p;
    void *s;
    if (!c->grow || need > UINT32_MAX)
        return TTFT_TPOT_EFULL;
    s = ttft_tpot__grow(c, st->samples, (st->capacity + st->reserve) * sizeof *st->samples,
                        (cap + st->reserve) * sizeof *st->samples, TTFT_TPOT__PART_SAMPLES);
    if (!s)
        return TTFT_TPOT_ENOMEM;
    st->samples = (ttft_tpot_sample *)s;
    if (st->starts) { /* the samples are larger now: the capacity stays until both have grown */
        if (!(s = ttft_tpot__grow(c, st->starts, (st->capacity + st->reserve) * sizeof *st->starts,
                                  (cap + st->reserve) * sizeof *st->starts, TTFT_TPOT__PART_STARTS)))
            return TTFT_TPOT_ENOMEM;
        st->starts = (uint64_t *)s;
    }
    if (st->seqs) {
        if (!(s = ttft_tpot__grow(c, st->seqs, (st->capacity + st->reserve) * sizeof *st->seqs,
                                  (cap + st->reserve) * sizeof *st->seqs, TTFT_TPOT__PART_SEQS)))
            return TTFT_TPOT_ENOMEM;
        st->seqs = (uint32_t *)s;
    }
    st->capacity = cap;
    for (p = 0; p < c->phase.n; p++) /* the inline path stores up to the capacity */
        if (c->phase.slots[p].fast_cap)
            c->phase.slots[p].fast_cap = cap;
    return TTFT_TPOT_OK;
}

/* Room for need phases (config.grow): the table and its index, moved to an allocation of their own
   (one block: slots, then the index), as many as a trace names up to 65535. OK, EFULL past it, ENOMEM. */
static int ttft_tpot__phases_grow(ttft_tpot *c, size_t need)
{
    size_t max = ttft_tpot__next_size(c->phase.max, need, 65535u);
    uint32_t slots = ttft_tpot__table_size((unsigned)max);
    unsigned char *mem;
    if (!c->grow || need > 65535u)
        return TTFT_TPOT_EFULL;
    if (!(mem = (unsigned char *)TTFT_TPOT_MALLOC(max * sizeof *c->phase.slots + slots * sizeof *c->phase.index,
                                                  c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    memcpy(mem, c->phase.slots, c->phase.n * sizeof *c->phase.slots);
    if (c->grown & TTFT_TPOT__PART_PHASES)
        TTFT_TPOT_FREE(c->phase.slots, c->alloc_user);
    c->grown |= TTFT_TPOT__PART_PHASES;
    c->phase.slots = (ttft_tpot__phase_slot *)(void *)mem;
    c->phase.index = (uint32_t *)(void *)(mem + max * sizeof *c->phase.slots);
    c->phase.max = (unsigned)max;
    c->phase.mask = slots - 1;
    ttft_tpot__phase_index(c, 0);
    return TTFT_TPOT_OK;
}

/* Room for need histograms (config.grow), the phases' pointers moved along: OK, EFULL, ENOMEM. */
static int ttft_tpot__hists_grow(ttft_tpot *c, size_t need)
{
    ttft_tpot__hist_pool *h = &c->hist;
    size_t max = ttft_tpot__next_size(h->max, need, 65535u), *at;
    unsigned p;
    void *pool;
    if (!c->grow || need > 65535u)
        return TTFT_TPOT_EFULL;
    if (!(at = (size_t *)TTFT_TPOT_MALLOC((c->phase.n + 1) * sizeof *at, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    for (p = 0; p < c->phase.n; p++)
        at[p] = c->phase.slots[p].hist ? (size_t)(c->phase.slots[p].hist - h->pool) + 1 : 0;
    pool = ttft_tpot__grow(c, h->pool, h->max * sizeof *h->pool, max * sizeof *h->pool, TTFT_TPOT__PART_HISTS);
    if (pool) {
        h->pool = (ttft_tpot_hist *)pool;
        h->max = (unsigned)max;
        for (p = 0; p < c->phase.n; p++)
            c->phase.slots[p].hist = at[p] ? &h->pool[at[p] - 1] : NULL;
    }
    TTFT_TPOT_FREE(at, c->alloc_user);
    return pool ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
}

/* Start times (part TTFT_TPOT__PART_STARTS) or sequences (TTFT_TPOT__PART_SEQS) for a growing exact
   collector without them, from the first line that has one: nesting and self time need the starts,
   a multi-token step's figures its sequences, so a trace reads as the collector that wrote it, whatever
   its reader asks for. The samples before it have none (0: unknown, one token a sequence); 8 or 4 bytes
   a sample only for traces that have them. */
static int ttft_tpot__part_take(ttft_tpot *c, unsigned part)
{
    ttft_tpot__store *st = &c->store;
    size_t bytes = (st->capacity + st->reserve) * (part == TTFT_TPOT__PART_STARTS ? sizeof *st->starts : sizeof *st->seqs);
    unsigned p;
    void *s = TTFT_TPOT_MALLOC(bytes ? bytes : 1, c->alloc_user);
    if (!s)
        return TTFT_TPOT_ENOMEM;
    memset(s, 0, bytes);
    if (part == TTFT_TPOT__PART_STARTS)
        st->starts = (uint64_t *)s;
    else
        st->seqs = (uint32_t *)s;
    c->grown |= part;
    for (p = 0; p < c->phase.n; p++) /* the inline path keeps neither */
        c->phase.slots[p].fast_cap = 0;
    return TTFT_TPOT_OK;
}

/* What ttft_tpot__part_take did, undone (a read that fails leaves c as it was). */
static void ttft_tpot__part_drop(ttft_tpot *c, unsigned part)
{
    unsigned p;
    if (part == TTFT_TPOT__PART_STARTS)
        TTFT_TPOT_FREE(c->store.starts, c->alloc_user), c->store.starts = NULL;
    else
        TTFT_TPOT_FREE(c->store.seqs, c->alloc_user), c->store.seqs = NULL;
    c->grown &= ~part;
    for (p = 0; p < c->phase.n; p++)
        if (!c->phase.slots[p].fresh)
            ttft_tpot__phase_called(c, &c->phase.slots[p]);
}

static ttft_tpot__mark ttft_tpot__mark_of(const ttft_tpot *c)
{
    ttft_tpot__mark m;
    m.phases = c->phase.n;
    m.hists = c->hist.n;
    m.runs = c->runs;
    m.last_end = c->runs ? c->run_end[c->runs - 1] : 0;
    m.runs_dropped = c->runs_dropped;
    m.starts = c->store.starts != NULL;
    m.seqs = c->store.seqs != NULL;
    return m;
}

static void ttft_tpot__rollback(ttft_tpot *c, const ttft_tpot__mark *m)
{
    if (c->phase.n != m->phases) {
        c->phase.n = m->phases;
        ttft_tpot__phase_index(c, 0);
    }
    c->hist.n = m->hists;
    c->runs = m->runs;
    if (m->runs)
        c->run_end[m->runs - 1] = m->last_end;
    c->runs_dropped = m->runs_dropped;
    if (!m->starts && c->store.starts) /* taken on by this read: given back, the inline path with them */
        ttft_tpot__part_drop(c, TTFT_TPOT__PART_STARTS);
    if (!m->seqs && c->store.seqs)
        ttft_tpot__part_drop(c, TTFT_TPOT__PART_SEQS);
}

/* -- Layers: restoring phases and samples ------------------------------------------------------ */

/* A table of the reading's by phase (*a, elem bytes a phase, *cap phases) made to hold every phase
   c has, the new ones zero: sized by the phases the trace names, not by the collector's room for
   them. ENOMEM: *a stays. */
static int ttft_tpot__per_phase(ttft_tpot *c, void **a, size_t elem, size_t *cap)
{
    size_t n = ttft_tpot__next_size(*cap ? *cap : 4, c->phase.n, c->phase.max);
    unsigned char *q;
    if (*a && *cap >= c->phase.n)
        return TTFT_TPOT_OK;
    if (!(q = (unsigned char *)TTFT_TPOT_MALLOC(n * elem, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    if (*a)
        memcpy(q, *a, *cap * elem);
    memset(q + (*a ? *cap : 0) * elem, 0, (n - (*a ? *cap : 0)) * elem);
    if (*a)
        TTFT_TPOT_FREE(*a, c->alloc_user);
    *a = q, *cap = n;
    return TTFT_TPOT_OK;
}

/* Both tables by phase, where made, hold every phase (after a new one). */
static int ttft_tpot__per_phase_all(ttft_tpot *c, ttft_tpot__reading *r)
{
    void *pend = r->pend_of, *prompt = r->prompt;
    int rc = pend ? ttft_tpot__per_phase(c, &pend, sizeof *r->pend_of, &r->cap_pend) : TTFT_TPOT_OK;
    r->pend_of = (uint32_t *)pend;
    if (rc == TTFT_TPOT_OK && prompt)
        rc = ttft_tpot__per_phase(c, &prompt, sizeof *r->prompt, &r->cap_prompt);
    r->prompt = (uint64_t(*)[4])prompt;
    return rc;
}

/* The id of the phase an item names (name, len, role), added when new; EPARSE with the reason. */
static int ttft_tpot__restore_phase(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    char text[TTFT_TPOT_NAME_MAX + 1]; /* the name for a message: it may end where its field ends */
    size_t len = item->len < sizeof text ? item->len : sizeof text - 1;
    int id;
    if (c->phase.n == c->phase.max && ttft_tpot__lookup(c, item->name, item->len) < 0 && /* a new phase of a */
        ttft_tpot__phases_grow(c, c->phase.n + 1) == TTFT_TPOT_ENOMEM) /* growing collector: room */
        return TTFT_TPOT_ENOMEM;
    if (c->hist.bounded && c->hist.n == c->hist.max && /* a new phase of a growing bounded */
        ttft_tpot__hists_grow(c, c->hist.n + 1) == TTFT_TPOT_ENOMEM) /* collector needs a slot */
        return TTFT_TPOT_ENOMEM;
    id = ttft_tpot__add_phase(c, item->name, item->len, item->role);
    if (id >= 0) /* a phase of each sample line: its name copied only for a refusal */
        return ttft_tpot__per_phase_all(c, (ttft_tpot__reading *)c->reading) != TTFT_TPOT_OK ? TTFT_TPOT_ENOMEM
                                                                                              : (item->phase = id);
    memcpy(text, item->name, len);
    text[len] = '\0';
    if (id == TTFT_TPOT_EROLE)
        return ttft_tpot__refuse(item, "phase changes role: ", text);
    if (id == TTFT_TPOT_ENAME)
        return ttft_tpot__refuse(item, "invalid phase name (1 to 63 bytes of UTF-8, no control characters): ", text);
    return ttft_tpot__refuse(item, "too many phases for this collector", NULL);
}

/* Room for one more pending histogram. */
static ttft_tpot__pending *ttft_tpot__pending_add(ttft_tpot *c, ttft_tpot__reading *r)
{
    if (r->n_pending == r->cap_pending) {
        unsigned cap = r->cap_pending ? 2 * r->cap_pending : 2;
        ttft_tpot__pending *p = (ttft_tpot__pending *)TTFT_TPOT_MALLOC(cap * sizeof *p, c->alloc_user);
        if (!p)
            return NULL;
        if (r->n_pending)
            memcpy(p, r->pending, r->n_pending * sizeof *p);
        if (r->pending)
            TTFT_TPOT_FREE(r->pending, c->alloc_user);
        r->pending = p;
        r->cap_pending = cap;
    }
    return &r->pending[r->n_pending];
}

/* Where phase id's pending histogram is noted (pend_of[], allocated with the first): NULL, no memory. */
static uint32_t *ttft_tpot__pend_at(ttft_tpot *c, ttft_tpot__reading *r, int id)
{
    void *a = r->pend_of;
    int rc = ttft_tpot__per_phase(c, &a, sizeof *r->pend_of, &r->cap_pend);
    r->pend_of = (uint32_t *)a;
    return rc == TTFT_TPOT_OK ? &r->pend_of[id] : NULL;
}

/* The pending histogram of phase id: made when new from the phase's histogram (or empty), counting
   the histogram slot it needs at the end when the phase has none. NULL: no memory. */
static ttft_tpot__pending *ttft_tpot__pending_of(ttft_tpot *c, ttft_tpot__reading *r, int id, int outgrow)
{
    const ttft_tpot__phase_slot *p = &c->phase.slots[id];
    ttft_tpot__pending *pd;
    uint32_t *at = ttft_tpot__pend_at(c, r, id);
    if (at && *at && *at != UINT32_MAX)
        return &r->pending[*at - 1];
    if (!at || !(pd = ttft_tpot__pending_add(c, r)))
        return NULL;
    pd->phase = id;
    pd->outgrown = outgrow && !p->hist;
    if (p->hist) {
        pd->h = *p->hist;
        pd->n = ttft_tpot__hist_count(p->hist);
    } else {
        ttft_tpot__hist_reset(&pd->h);
        pd->n = 0;
    }
    r->slots += !p->hist;
    *at = ++r->n_pending;
    return pd;
}

/* A steady sample of a bounded phase, into the phase's pending histogram (its first sample is kept
   exact, as recording would): 1 taken, 0 not (the first), EPARSE (the histogram would pass 2^63
   values or tokens) or ENOMEM. outgrow: the phase outgrew the storage instead, which takes a
   histogram slot when it has none (0: no slot is left). */
static int ttft_tpot__restore_bounded(ttft_tpot *c, ttft_tpot_restore_item *item, int outgrow)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    ttft_tpot__pending *pd;
    uint32_t *at = ttft_tpot__pend_at(c, r, item->phase);
    if (!at)
        return TTFT_TPOT_ENOMEM;
    if (*at == 0 && c->phase.slots[item->phase].fresh && !outgrow) {
        *at = UINT32_MAX; /* its first sample: kept exact */
        return 0;
    }
    if ((*at == 0 || *at == UINT32_MAX) && outgrow && !c->phase.slots[item->phase].hist &&
        c->hist.n + r->slots >= c->hist.max)
        return 0; /* no slot left: dropped */
    if (!(pd = ttft_tpot__pending_of(c, r, item->phase, outgrow)))
        return TTFT_TPOT_ENOMEM;
    if (!ttft_tpot__hist_room(pd->n, pd->h.tokens, 1, item->tokens))
        return ttft_tpot__refuse(item, "more than 2^63 samples or tokens in the phase's histogram: ",
                                 c->phase.slots[item->phase].name);
    ttft_tpot__hist_add(&pd->h, item->dur_ns, (uint32_t)item->tokens);
    pd->n++;
    return 1;
}

/* A sample line: a bounded phase's steady one into its histogram; any other where recording would
   keep it (ttft_tpot__keep_where), staged past c->store.n and the collector's slots until the end, a
   growing collector making room in the storage first. */
static int ttft_tpot__restore_kept(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    int rc, where, id = item->phase, warm = item->warmup != 0;
    if (c->phase.slots[id].hist && !warm && (rc = ttft_tpot__restore_bounded(c, item, 0)) != 0)
        return rc < 0 ? rc : TTFT_TPOT_OK;
    if (item->start_ns && !c->store.starts && c->grow && !c->hist.bounded && (rc = ttft_tpot__part_take(c, TTFT_TPOT__PART_STARTS)) != TTFT_TPOT_OK)
        return rc;
    where = ttft_tpot__keep_where(c, id, warm, r->n, r->slots); /* recording's policy */
    if (where != TTFT_TPOT__TO_STORE && (rc = ttft_tpot__store_grow(c, c->store.n + r->n + 1)) != TTFT_TPOT_EFULL) {
        if (rc != TTFT_TPOT_OK)
            return rc; /* ENOMEM */
        where = TTFT_TPOT__TO_STORE; /* a growing collector made room */
    }
    if (where == TTFT_TPOT__TO_STORE) {
        ttft_tpot__store_put(&c->store, c->store.n + r->n, id, item->dur_ns, (uint32_t)item->tokens, warm);
        ttft_tpot__store_start(&c->store, c->store.n + r->n++, item->start_ns);
        return TTFT_TPOT_OK;
    }
    rc = where == TTFT_TPOT__TO_DROP ? 0 : ttft_tpot__restore_bounded(c, item, 1);
    r->dropped += rc == 0;
    return rc < 0 ? rc : TTFT_TPOT_OK;
}

/* A sample line, with where it went (for a "# sequences:" line and the device lines that name it). */
static int ttft_tpot__restore_sample(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    size_t n = r->n;
    uint64_t dropped = r->dropped;
    int rc;
    if (item->phase < 0 || (unsigned)item->phase >= c->phase.n || item->tokens > UINT32_MAX)
        return TTFT_TPOT_EINVAL;
    r->step_phase = item->phase;
    if ((rc = ttft_tpot__restore_kept(c, item)) == TTFT_TPOT_OK && r->n == n && r->first_lost == SIZE_MAX)
        r->first_lost = r->rows;
    r->step_kept = r->n != n ? 1 : r->dropped != dropped ? 3 : 2;
    r->step_at = c->store.n + r->n - 1;
    r->step_tokens = item->tokens;
    r->rows++;
    return rc;
}

/* "# sequences: N": the sequences of the decode step on the sample line just above, 1 to its tokens;
   kept with it, or where it cannot be, counted as recording counts it. */
static int ttft_tpot__restore_sequences(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    int multi;
    if (!r->step_kept || c->phase.slots[r->step_phase].role != TTFT_TPOT_ROLE_DECODE)
        return ttft_tpot__refuse(item, "# sequences: not after a decode-role sample line", NULL);
    if (item->n == 0 || item->n > r->step_tokens)
        return ttft_tpot__refuse(item, "# sequences: expected N, 1 to the tokens of the step above", NULL);
    multi = item->n < r->step_tokens;
    if (r->step_kept == 1 && !c->store.seqs && c->grow &&
        ttft_tpot__part_take(c, TTFT_TPOT__PART_SEQS) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    if (r->step_kept == 1 && c->store.seqs)
        c->store.seqs[r->step_at] = (uint32_t)item->n;
    r->seq_lost += r->step_kept == 1 && !c->store.seqs && multi;
    r->seq_hist += r->step_kept == 2 && multi;
    r->step_kept = 0; /* one a step */
    return TTFT_TPOT_OK;
}

/* -- Layers: restoring what samples cannot say ------------------------------------------------- */

/* 128-bit sums and comparisons, for checking directives against their records. */
static ttft_tpot__u128 ttft_tpot__add(ttft_tpot__u128 a, ttft_tpot__u128 b)
{
    a.lo += b.lo;
    a.hi += b.hi + (a.lo < b.lo);
    return a;
}

/* a <= b */
static int ttft_tpot__le(ttft_tpot__u128 a, ttft_tpot__u128 b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

/* Whether the histogram of a "# hist:" line (n values) is one that samples can make: its buckets of
   min and max its first and last, at most 2^32 - 1 tokens a sample, and a sum that its buckets,
   clamped to its min and max, can hold. 0, or the message's number: 1 buckets, 2 tokens, 3 sum. */
static int ttft_tpot__hist_line_bad(const ttft_tpot_hist *h, uint64_t n)
{
    ttft_tpot__u128 least = {0, 0}, most = {0, 0}, sum;
    uint64_t lo, hi;
    unsigned i, first = TTFT_TPOT_HIST_BUCKETS, last = 0;
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS; i++)
        if (h->counts[i]) {
            first = first < i ? first : i;
            last = i;
        }
    if (n == 0 || h->min_ns > h->max_ns || ttft_tpot__hist_index(h->min_ns) != first ||
        ttft_tpot__hist_index(h->max_ns) != last)
        return 1;
    if (!ttft_tpot__le(ttft_tpot__mul(h->tokens, 1), ttft_tpot__mul(n, UINT32_MAX)))
        return 2;
    for (i = first; i <= last; i++) {
        if (!h->counts[i])
            continue;
        ttft_tpot__bucket_range(i, &lo, &hi);
        least = ttft_tpot__add(least, ttft_tpot__mul(h->counts[i], lo > h->min_ns ? lo : h->min_ns));
        most = ttft_tpot__add(most, ttft_tpot__mul(h->counts[i], hi < h->max_ns ? hi : h->max_ns));
    }
    sum.hi = h->sum_hi;
    sum.lo = h->sum_lo;
    return ttft_tpot__le(least, sum) && ttft_tpot__le(sum, most) ? 0 : 3;
}

/* "# hist: ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C I:C ...,NAME": a bounded phase's histogram
   (item: hist, n its values, and the phase's name and role), checked, then added to the phase's
   pending histogram. */
static int ttft_tpot__restore_hist(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    static const char *const bad[4] = {"", ("# hist: expected ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C ...,NAME "
                                            "with the buckets of min and max first and last"),
                                       "# hist: more tokens than 4294967295 a sample: ",
                                       "# hist: a sum its buckets cannot hold: "};
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    ttft_tpot__pending *pd;
    char name[TTFT_TPOT_NAME_MAX + 1];
    int k = ttft_tpot__hist_line_bad(item->hist, item->n), id;
    size_t len = item->len < sizeof name ? item->len : sizeof name - 1;
    memcpy(name, item->name, len);
    name[len] = '\0';
    if (k)
        return ttft_tpot__refuse(item, bad[k], k > 1 ? name : NULL);
    if ((id = ttft_tpot__restore_phase(c, item)) < 0)
        return id;
    if (!(pd = ttft_tpot__pending_of(c, r, id, 0)))
        return TTFT_TPOT_ENOMEM;
    if (c->hist.n + r->slots > c->hist.max && ttft_tpot__hists_grow(c, c->hist.n + r->slots) == TTFT_TPOT_ENOMEM)
        return TTFT_TPOT_ENOMEM;
    if (c->hist.n + r->slots > c->hist.max)
        return ttft_tpot__refuse(item, "a bounded phase's histogram needs a free histogram slot "
                                       "(config.hist_slots, or config.bounded): ", name);
    if (!ttft_tpot__hist_room(pd->n, pd->h.tokens, item->n, item->hist->tokens))
        return ttft_tpot__refuse(item, "# hist: more than 2^63 samples or tokens in the phase's histogram: ", name);
    ttft_tpot__hist_merge(&pd->h, item->hist);
    pd->n += item->n;
    return TTFT_TPOT_OK;
}

/* "# prompt: N,TOKENS,NS,NAME": a prefill phase's steady samples that carry prompt tokens, their
   tokens and their time (item: v[0..2], the phase's name). Kept aside; added to the phase when the
   trace has been read. */
static int ttft_tpot__restore_prompt(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    const uint64_t *v = item->v;
    char what[TTFT_TPOT_NAME_MAX + 64];
    int id, k;
    if (v[0] == 0 || v[1] < v[0] || !ttft_tpot__le(ttft_tpot__mul(v[1], 1), ttft_tpot__mul(v[0], UINT32_MAX)))
        return ttft_tpot__refuse(item, "# prompt: expected N,TOKENS,NS,NAME with N >= 1 and N <= TOKENS <= "
                                       "N * 4294967295", NULL);
    item->role = TTFT_TPOT_ROLE_PREFILL;
    if ((id = ttft_tpot__restore_phase(c, item)) < 0)
        return id;
    if (!r->prompt) {
        void *a = NULL;
        if (ttft_tpot__per_phase(c, &a, sizeof *r->prompt, &r->cap_prompt) != TTFT_TPOT_OK)
            return TTFT_TPOT_ENOMEM;
        r->prompt = (uint64_t(*)[4])a;
    }
    for (k = 0; k < 3; k++) /* the phase's sums as they will be: within 64 bits */
        if (v[k] > UINT64_MAX - r->prompt[id][k] - c->phase.slots[id].prompt[k]) {
            snprintf(what, sizeof what, "# prompt: the sums of %s would pass 2^64 - 1", c->phase.slots[id].name);
            return ttft_tpot__refuse(item, what, NULL);
        }
    for (k = 0; k < 3; k++)
        r->prompt[id][k] += v[k];
    r->prompt[id][3] = item->line;
    return TTFT_TPOT_OK;
}

/* Room for one more device interval past c->dev.n while reading: 1, 0 (none: counted), ENOMEM. */
static int ttft_tpot__device_room(ttft_tpot *c, ttft_tpot__reading *r)
{
    size_t need = c->dev.n + r->dev_n + 1, max;
    void *p;
    if (need <= c->dev.max)
        return 1;
    if (!c->grow || need >= UINT32_MAX)
        return 0;
    max = ttft_tpot__next_size(c->dev.max ? c->dev.max : 64, need, UINT32_MAX - 1);
    if (!(p = ttft_tpot__grow(c, c->dev.log, c->dev.max * sizeof *c->dev.log, max * sizeof *c->dev.log,
                              TTFT_TPOT__PART_DEVICE)))
        return TTFT_TPOT_ENOMEM;
    c->dev.log = (ttft_tpot_device_interval *)p;
    c->dev.max = max;
    return 1;
}

/* "# device: SAMPLE,STREAM,STATE,PART,WARMUP,ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE": an interval (item:
   interval, its phase by name), its sample counted among this trace's sample lines. Kept past
   c->dev.n until the end. */
static int ttft_tpot__restore_device(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    const ttft_tpot_device_interval *in = item->interval;
    ttft_tpot_device_interval *d;
    char name[TTFT_TPOT_NAME_MAX + 1];
    size_t len = item->len < sizeof name ? item->len : sizeof name - 1;
    int k, id;
    memcpy(name, item->name, len);
    name[len] = '\0';
    if (in->state < TTFT_TPOT_DEVICE_OPEN || in->state > TTFT_TPOT_DEVICE_ABSOLUTE || in->part > 1 || in->warmup > 1 ||
        in->device_ns > TTFT_TPOT__DEVICE_MAX_NS)
        return ttft_tpot__refuse(item, "# device: expected SAMPLE,STREAM,STATE (1-3),PART (0-1),WARMUP (0-1),"
                                       "ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE", NULL);
    if (in->sample > r->rows)
        return ttft_tpot__refuse(item, "# device: a sample past the samples read so far", NULL);
    if ((id = ttft_tpot__lookup(c, name, len)) < 0)
        return ttft_tpot__refuse(item, "# device: unknown phase: ", name);
    if ((k = ttft_tpot__device_room(c, r)) <= 0) {
        r->dev_lost[0] += k == 0;
        r->dev_last = -1;
        return k < 0 ? k : TTFT_TPOT_OK;
    }
    r->dev_last = 1;
    d = &c->dev.log[c->dev.n + r->dev_n++];
    *d = *in;
    /* its sample, where the trace's samples up to it were all stored (else unknown: 0) */
    d->sample = in->sample && in->sample - 1 < r->first_lost ? r->old_samples + in->sample : 0;
    d->queued_ns = 0;
    d->phase = (uint32_t)id;
    memset(d->reserved, 0, sizeof d->reserved);
    r->dev_open += d->state == TTFT_TPOT_DEVICE_OPEN;
    return TTFT_TPOT_OK;
}

/* "# device_queued: QUEUED_NS": the runtime's queued stamp of the absolute interval of the device line
   above it (none where that one found no room), on the host clock, at or before its begin. */
static int ttft_tpot__restore_queued(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    ttft_tpot_device_interval *d;
    if (r->dev_last < 0)
        return TTFT_TPOT_OK;
    d = r->dev_last ? &c->dev.log[c->dev.n + r->dev_n - 1] : NULL;
    if (!d || d->state != TTFT_TPOT_DEVICE_ABSOLUTE || d->queued_ns)
        return ttft_tpot__refuse(item, "# device_queued: not after an absolute # device: line of its own", NULL);
    if (item->n == 0 || item->n > d->begin_ns)
        return ttft_tpot__refuse(item, "# device_queued: expected QUEUED_NS, 1 to the interval's BEGIN_NS", NULL);
    d->queued_ns = item->n;
    return TTFT_TPOT_OK;
}

/* "# device_lost: UNRESOLVED,REFUSED". */
static int ttft_tpot__restore_device_lost(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    if (item->v[0] > UINT64_MAX - r->dev_lost[0] || item->v[1] > UINT64_MAX - r->dev_lost[1])
        return ttft_tpot__refuse(item, "# device_lost: expected UNRESOLVED,REFUSED", NULL);
    r->dev_lost[0] += item->v[0];
    r->dev_lost[1] += item->v[1];
    return TTFT_TPOT_OK;
}

/* "# counts: NAME=N ...": losses added (within 64 bits), limits kept (the first given). */
static int ttft_tpot__restore_counts(ttft_tpot *c, ttft_tpot_restore_item *item)
{
#define TTFT_TPOT__COUNT_LIMIT(key, limit) limit,
    static const unsigned char limit[] = {TTFT_TPOT_COUNTS(TTFT_TPOT__COUNT_LIMIT)};
#undef TTFT_TPOT__COUNT_LIMIT
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    unsigned k;
    for (k = 0; k < TTFT_TPOT_COUNT_KEYS; k++)
        if ((item->given >> k & 1u) && !limit[k] && item->v[k] > UINT64_MAX - r->counts[k])
            return ttft_tpot__refuse(item, "# counts: expected NAME=N ..., each name once, of ", "dropped rejected "
                                     "shapes_dropped requests_dropped requests_refused events_lost runs_dropped outgrown "
                                     "spans_open sequences_lost sequences_in_histogram spans_cancelled capacity max_requests "
                                     "max_request_events max_shapes");
    for (k = 0; k < TTFT_TPOT_COUNT_KEYS; k++) {
        if (!(item->given >> k & 1u))
            continue;
        if (!limit[k]) {
            r->counts[k] += item->v[k];
        } else if (!(r->limits >> k & 1u)) { /* a limit: the first one given */
            r->counts[k] = item->v[k];
            r->limits |= 1u << k;
        }
    }
    return c->layer && c->layer->restore ? c->layer->restore(c->layer->state, item) : TTFT_TPOT_OK;
}

/* "# clock: NAME, N ns/read": the clock that recorded the trace (the first read's names a collector's). */
static int ttft_tpot__restore_clock(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    if (!r->clock_read_ns && item->n && item->len && item->len < sizeof r->clock_name) {
        memcpy(r->clock_name, item->name, item->len);
        r->clock_name[item->len] = '\0';
        r->clock_read_ns = item->n;
    }
    return TTFT_TPOT_OK;
}

/* "# run:" (n 0) or "# run: end" (n 1) before the next sample. */
static int ttft_tpot__restore_run(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    size_t at = c->store.n + ((ttft_tpot__reading *)c->reading)->n;
    if (item->n)
        ttft_tpot__run_close(c, at);
    else
        (void)ttft_tpot__run_mark(c, at);
    return TTFT_TPOT_OK;
}

/* -- Layers: the end of a restore -------------------------------------------------------------- */

/* The steady samples of phase p once the trace joins: the scan of its stored ones (n, sum, min, max),
   with its histogram's (the pending one, else its own). */
static ttft_tpot__scan ttft_tpot__steady_of(const ttft_tpot *c, const ttft_tpot__reading *r,
                                            const ttft_tpot__scan *stored, unsigned p)
{
    const ttft_tpot_hist *h = r->pend_of && r->pend_of[p] && r->pend_of[p] != UINT32_MAX
                                  ? &r->pending[r->pend_of[p] - 1].h : c->phase.slots[p].hist;
    ttft_tpot__scan s = *stored;
    uint64_t n = h ? ttft_tpot__hist_count(h) : 0;
    if (n) {
        s.mn = s.n && s.mn < h->min_ns ? s.mn : h->min_ns;
        s.mx = s.n && s.mx > h->max_ns ? s.mx : h->max_ns;
        s.lo += h->sum_lo;
        s.hi += h->sum_hi + (s.lo < h->sum_lo);
        s.n += (size_t)n;
    }
    return s;
}

/* A prefill phase's prompt sums (N, NS) against its steady samples (ttft_tpot__steady_of): N of them
   at most, or more by no more than the samples dropped anywhere (dropped, a merge may have dropped the
   ones that carried prompts); and with nothing dropped, NS the time of N of them: N times their
   least to N times their most, and the rest's time between as many times their least and most. */
static int ttft_tpot__prompt_ok(const ttft_tpot__scan *s, uint64_t n, uint64_t ns, uint64_t dropped)
{
    ttft_tpot__u128 sum, t;
    if (n > s->n)
        return n - s->n <= dropped;
    if (dropped)
        return 1;
    sum.hi = s->hi;
    sum.lo = s->lo;
    t.hi = 0;
    t.lo = ns;
    return ttft_tpot__le(ttft_tpot__mul(n, s->mn), t) && ttft_tpot__le(t, ttft_tpot__mul(n, s->mx)) &&
           ttft_tpot__le(ttft_tpot__add(t, ttft_tpot__mul(s->n - n, s->mn)), sum) &&
           ttft_tpot__le(sum, ttft_tpot__add(t, ttft_tpot__mul(s->n - n, s->mx)));
}

/* Phase p's prompt sums (n prefills, ns) refused: what they contradict of its steady samples (s). */
static int ttft_tpot__prompt_refused(const ttft_tpot *c, unsigned p, const ttft_tpot__scan *s, uint64_t n, uint64_t ns,
                                     ttft_tpot_restore_item *item)
{
    char what[TTFT_TPOT_NAME_MAX + 160];
    if (n > s->n)
        snprintf(what, sizeof what, "# prompt: %llu prefills carry prompt tokens, more than the %llu steady samples "
                 "of %s", (unsigned long long)n, (unsigned long long)s->n, c->phase.slots[p].name);
    else
        snprintf(what, sizeof what, "# prompt: %llu ns is not the time of %llu steady samples of %s (each %llu to "
                 "%llu ns)", (unsigned long long)ns, (unsigned long long)n, c->phase.slots[p].name,
                 (unsigned long long)s->mn, (unsigned long long)s->mx);
    return ttft_tpot__refuse(item, what, NULL);
}

/* Every "# prompt:" sum against the samples it describes, once the whole trace has been read: OK, ENOMEM,
   or EPARSE with item->line the phase's last "# prompt:" line. */
static int ttft_tpot__check_prompts(const ttft_tpot *c, const ttft_tpot__reading *r, ttft_tpot_restore_item *item)
{
    ttft_tpot__scan *stored = (ttft_tpot__scan *)TTFT_TPOT_MALLOC(c->phase.n * sizeof *stored, c->alloc_user), s;
    uint64_t dropped = c->store.dropped + r->dropped + r->counts[TTFT_TPOT_COUNT_dropped], n, ns;
    size_t i;
    unsigned p;
    int rc = TTFT_TPOT_OK;
    if (!stored)
        return TTFT_TPOT_ENOMEM;
    memset(stored, 0, c->phase.n * sizeof *stored);
    for (i = 0; i < c->store.n + r->n; i++) {
        const ttft_tpot_sample *x = &c->store.samples[i];
        if (!x->warmup && r->prompt[x->phase][3])
            ttft_tpot__scan_one(&stored[x->phase], x->dur_ns);
    }
    for (p = 0; p < c->phase.n && rc == TTFT_TPOT_OK; p++) {
        if (!r->prompt[p][3])
            continue;
        s = ttft_tpot__steady_of(c, r, &stored[p], p);
        n = c->phase.slots[p].prompt[0] + r->prompt[p][0];
        ns = c->phase.slots[p].prompt[2] + r->prompt[p][2];
        if (ttft_tpot__prompt_ok(&s, n, ns, dropped < c->store.dropped ? UINT64_MAX : dropped))
            continue;
        item->line = (unsigned long)r->prompt[p][3];
        rc = ttft_tpot__prompt_refused(c, p, &s, n, ns, item);
    }
    TTFT_TPOT_FREE(stored, c->alloc_user);
    return rc;
}

/* The counts, limits and clock of a trace read whole, into c. */
static void ttft_tpot__commit_counts(ttft_tpot *c, const ttft_tpot__reading *r)
{
    const uint64_t *k = r->counts;
    c->store.dropped += r->dropped + k[TTFT_TPOT_COUNT_dropped];
    c->rejected += k[TTFT_TPOT_COUNT_rejected];
    c->shape.dropped += k[TTFT_TPOT_COUNT_shapes_dropped];
    c->runs_dropped += k[TTFT_TPOT_COUNT_runs_dropped];
    c->store.outgrown += k[TTFT_TPOT_COUNT_outgrown];
    c->spans_open += k[TTFT_TPOT_COUNT_spans_open];
    c->spans_cancelled += k[TTFT_TPOT_COUNT_spans_cancelled];
    c->store.seq_lost += k[TTFT_TPOT_COUNT_sequences_lost] + r->seq_lost;
    c->store.seq_hist += k[TTFT_TPOT_COUNT_sequences_in_histogram] + r->seq_hist;
    if ((r->limits >> TTFT_TPOT_COUNT_capacity & 1u) && !(c->full_known & 1u)) /* the recording collector's */
        c->full_at[0] = k[TTFT_TPOT_COUNT_capacity], c->full_known |= 1u;
    if ((r->limits >> TTFT_TPOT_COUNT_max_shapes & 1u) && !(c->full_known & 2u))
        c->full_at[1] = k[TTFT_TPOT_COUNT_max_shapes], c->full_known |= 2u;
    ttft_tpot__device_count(&c->dev.unresolved, r->dev_lost[0]);
    ttft_tpot__device_count(&c->dev.refused, r->dev_lost[1]);
    if (r->clock_read_ns && !c->clock_from_trace) { /* the clock that recorded the first trace read */
        memcpy(c->clock_name, r->clock_name, sizeof c->clock_name);
        c->clock_read_ns = r->clock_read_ns;
        c->clock_from_trace = 1;
    }
    /* the first trace's start replaces init's */
    c->started_ns = c->traces_read++ ? ttft_tpot__earliest(c->started_ns, r->started_ns) : r->started_ns;
}

/* The whole trace was read: its samples, histograms, counts and clock join the collector. */
static void ttft_tpot__commit(ttft_tpot *c, const ttft_tpot__reading *r)
{
    size_t i;
    unsigned k;
    for (i = c->store.n; i < c->store.n + r->n; i++)
        if (c->phase.slots[c->store.samples[i].phase].fresh)
            ttft_tpot__phase_called(c, &c->phase.slots[c->store.samples[i].phase]);
    c->store.n += r->n;
    ttft_tpot__run_close(c, c->store.n); /* the trace's runs are its own */
    ttft_tpot__commit_counts(c, r);
    for (k = 0; r->prompt && k < c->phase.n; k++) {
        c->phase.slots[k].prompt[0] += r->prompt[k][0];
        c->phase.slots[k].prompt[1] += r->prompt[k][1];
        c->phase.slots[k].prompt[2] += r->prompt[k][2];
    }
    for (k = 0; k < r->n_pending; k++) {
        ttft_tpot__phase_slot *p = &c->phase.slots[r->pending[k].phase];
        if (!p->hist) { /* the slot was counted while reading */
            ttft_tpot_phase_bounded(c, r->pending[k].phase);
            p->outgrown = (uint16_t)r->pending[k].outgrown;
            c->store.outgrown += (uint64_t)r->pending[k].outgrown;
        }
        *p->hist = r->pending[k].h; /* it started from the phase's */
        if (p->fresh)
            ttft_tpot__phase_called(c, p);
    }
    c->dev.n += r->dev_n;
    c->dev.open += r->dev_open;
}

/* The end of a read: its staging freed, c's reading over. */
static void ttft_tpot__reading_free(ttft_tpot *c)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    if (r->pending)
        TTFT_TPOT_FREE(r->pending, c->alloc_user);
    if (r->pend_of)
        TTFT_TPOT_FREE(r->pend_of, c->alloc_user);
    if (r->prompt)
        TTFT_TPOT_FREE(r->prompt, c->alloc_user);
    TTFT_TPOT_FREE(r, c->alloc_user);
    c->reading = NULL;
}

/* BEGIN: a read's staging; the trace's samples are in no run of c's. */
static int ttft_tpot__restore_begin(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r;
    if (c->reading)
        return TTFT_TPOT_EINVAL;
    if (!(r = (ttft_tpot__reading *)TTFT_TPOT_MALLOC(sizeof *r, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    memset(r, 0, sizeof *r);
    r->old = ttft_tpot__mark_of(c);
    r->old_samples = c->store.n;
    r->first_lost = SIZE_MAX;
    c->reading = r;
    ttft_tpot__run_close(c, c->store.n);
    if (c->layer && c->layer->restore && c->layer->restore(c->layer->state, item) != TTFT_TPOT_OK) {
        ttft_tpot__reading_free(c);
        return TTFT_TPOT_ENOMEM;
    }
    return TTFT_TPOT_OK;
}

/* COMMIT (its checks first: a failed one rolls back) or ROLLBACK. */
static int ttft_tpot__restore_end(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    ttft_tpot__reading *r = (ttft_tpot__reading *)c->reading;
    int rc = item->kind == TTFT_TPOT_RESTORE_COMMIT ? TTFT_TPOT_OK : TTFT_TPOT_EINVAL;
    ttft_tpot_restore_item end = *item;
    if (rc == TTFT_TPOT_OK && r->prompt)
        rc = ttft_tpot__check_prompts(c, r, item);
    if (rc == TTFT_TPOT_OK && c->layer && c->layer->restore) /* the layer's checks, then its commit: last */
        rc = c->layer->restore(c->layer->state, item);
    if (rc == TTFT_TPOT_OK) {
        ttft_tpot__commit(c, r);
    } else { /* forget what this read added; samples past c->store.n were never counted */
        ttft_tpot__rollback(c, &r->old);
        end.kind = TTFT_TPOT_RESTORE_ROLLBACK;
        if (c->layer && c->layer->restore)
            (void)c->layer->restore(c->layer->state, &end);
    }
    ttft_tpot__reading_free(c);
    return item->kind == TTFT_TPOT_RESTORE_ROLLBACK ? TTFT_TPOT_OK : rc;
}

TTFT_TPOT_DEF int ttft_tpot_restore(ttft_tpot *c, ttft_tpot_restore_item *item)
{
    if (!c || !item || !c->phase.slots)
        return TTFT_TPOT_EINVAL;
    if (item->kind == TTFT_TPOT_RESTORE_BEGIN)
        return ttft_tpot__restore_begin(c, item);
    if (!c->reading)
        return TTFT_TPOT_EINVAL;
    switch (item->kind) {
    case TTFT_TPOT_RESTORE_COMMIT:
    case TTFT_TPOT_RESTORE_ROLLBACK:
        return ttft_tpot__restore_end(c, item);
    case TTFT_TPOT_RESTORE_PHASE:
        return ttft_tpot__restore_phase(c, item);
    case TTFT_TPOT_RESTORE_SAMPLE:
        return ttft_tpot__restore_sample(c, item);
    case TTFT_TPOT_RESTORE_SEQUENCES:
        return ttft_tpot__restore_sequences(c, item);
    case TTFT_TPOT_RESTORE_RUN:
        return ttft_tpot__restore_run(c, item);
    case TTFT_TPOT_RESTORE_HIST:
        return item->hist ? ttft_tpot__restore_hist(c, item) : TTFT_TPOT_EINVAL;
    case TTFT_TPOT_RESTORE_PROMPT:
        return ttft_tpot__restore_prompt(c, item);
    case TTFT_TPOT_RESTORE_DEVICE:
        return item->interval ? ttft_tpot__restore_device(c, item) : TTFT_TPOT_EINVAL;
    case TTFT_TPOT_RESTORE_DEVICE_QUEUED:
        return ttft_tpot__restore_queued(c, item);
    case TTFT_TPOT_RESTORE_DEVICE_LOST:
        return ttft_tpot__restore_device_lost(c, item);
    case TTFT_TPOT_RESTORE_COUNTS:
        return ttft_tpot__restore_counts(c, item);
    case TTFT_TPOT_RESTORE_CLOCK:
        return ttft_tpot__restore_clock(c, item);
    case TTFT_TPOT_RESTORE_STARTED: /* the first line's */
        if (!((ttft_tpot__reading *)c->reading)->started_ns)
            ((ttft_tpot__reading *)c->reading)->started_ns = item->n;
        return TTFT_TPOT_OK;
    default:
        return TTFT_TPOT_EINVAL;
    }
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifdef __cplusplus
}
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
#endif /* TTFT_TPOT_LAYERS */

/*
MIT License

Copyright (c) 2026 The ttft_tpot authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense,
and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY,
WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/

