/* ttft_tpot.h v0.3.0 - TTFT / TPOT latency metrics for LLM inference drivers. MIT license (end of file).

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
         for (...) { TTFT_TPOT_SPAN_BEGIN(d, &tp, dec); decode_step(...); TTFT_TPOT_SPAN_END_TOKENS(d, batch); }
         if (profile) ttft_tpot_report(&tp, stdout);
         ttft_tpot_free(&tp);

   INDEX (every public function and macro of this header, by section; each declared below with its
   contract. A program that reads traces or takes figures apart also includes ttft_tpot_tools.h.)
     Errors       ttft_tpot_strerror              an error code's name
     Clock        ttft_tpot_now                   monotonic ns, the collectors' clock
     Phases       ttft_tpot_phase                 register a phase (or find it): its id
                  ttft_tpot_phase_bounded         its steady samples go on in a histogram
                  ttft_tpot_role_name             "prefill", "decode", "kernel", "e2e"
                  ttft_tpot_link_prefill_kernel   the kernel whose fastest run bounds TTFT below
                  ttft_tpot_warmup_begin          a warmup section begins: all inside is warmup
                  ttft_tpot_warmup_end            ... and ends
                  ttft_tpot_shape_row             a shape key with its own row (first call: warmup)
     Requests     ttft_tpot_request_submit        a request arrives (_at: at a time of yours)
                  ttft_tpot_request_submit_at
                  ttft_tpot_request_schedule      it is scheduled (queue time ends)
                  ttft_tpot_request_schedule_at
                  ttft_tpot_request_tokens        it produced tokens (the first: its TTFT)
                  ttft_tpot_request_tokens_at
                  ttft_tpot_request_output        its first output token came (not reasoning)
                  ttft_tpot_request_output_at
                  ttft_tpot_request_mark_at       a mark (schedule, output) by its point's number
                  ttft_tpot_request_finish        it is done
                 ttft_tpot_request_finish_reason ... and why (stop, length, abort, error)
                  ttft_tpot_request_prompt        its prompt tokens
                 ttft_tpot_request_get           a request held, by its id (to log it)
                  ttft_tpot_set_slo               the SLOs goodput counts against
     Device time  ttft_tpot_device_resolve        a step's tickets, resolved at once
                  ttft_tpot_device_elapsed        one ticket from an event pair's elapsed ns
                  ttft_tpot_device_elapsed_ms     ... in ms, as cudaEventElapsedTime gives it
                  ttft_tpot_device_absolute       one ticket from device begin and end stamps
                  ttft_tpot_device_part           a kernel inside a resolved launch (a graph's)
                  ttft_tpot_stamp_elapsed         a whole stamp, elapsed form (inline)
                  ttft_tpot_stamp_absolute        ... absolute form (inline)
                  ttft_tpot_stamp_queued          ... with the runtime's queued stamp (inline)
                  ttft_tpot_clock_pair_read       a clock pair from a device clock the host reads
     Collector    ttft_tpot_bytes_needed          the bytes init takes for a config
                  ttft_tpot_init                  make a collector (NULL config: defaults)
                  ttft_tpot_free                  free it
                  ttft_tpot_enable                recording on or off
                  ttft_tpot_clear                 empty it (phases stay)
                  ttft_tpot_merge                 add one collector to another (a thread's)
                  ttft_tpot_run_begin             a repeated run begins
     Recording    ttft_tpot_span_begin            begin a span (reads the clock)
                  ttft_tpot_span_begin_at         begin a span at a start of yours (no clock read)
                  ttft_tpot_clock_now             the collector's clock now
                  ttft_tpot_span_set_tokens       the tokens it produced
                  ttft_tpot_span_set_prompt       the prompt tokens a prefill processed
                  ttft_tpot_span_set_shape        the shape key it ran with
                  ttft_tpot_span_set_start        its start, known after the begin
                  ttft_tpot_span_set_duration     a duration measured elsewhere
                  ttft_tpot_span_set_device       its device time comes later (a ticket)
                  ttft_tpot_span_end              end it: one sample recorded
                  ttft_tpot_span_cancel           end it, recording nothing
                  ttft_tpot_span_ticket           its device ticket, after the end
                  ttft_tpot_record                a duration measured elsewhere, as one sample
                  ttft_tpot_record_ms             ... in ms
                  ttft_tpot_ms_to_ns              ms to ns, exactly (refuses NaN, negative, huge)
                  ttft_tpot_record_shape          wrappers kept for the code that uses them:
                  ttft_tpot_record_prompt           record + set_shape, record + set_prompt,
                  ttft_tpot_span_begin_shape        begin + set_shape, set_tokens + end,
                  ttft_tpot_span_end_tokens         set_tokens + set_prompt + end
                  ttft_tpot_span_end_prompt
                  TTFT_TPOT_SPAN_BEGIN            the macros (nothing under TTFT_TPOT_DISABLE):
                  TTFT_TPOT_SPAN_BEGIN_SHAPE        begin, setters and end as statements,
                  TTFT_TPOT_SPAN_SET_TOKENS         and TIME, which times one statement
                  TTFT_TPOT_SPAN_SET_PROMPT
                  TTFT_TPOT_SPAN_SET_SHAPE
                  TTFT_TPOT_SPAN_SET_DURATION
                  TTFT_TPOT_SPAN_SET_DEVICE
                  TTFT_TPOT_SPAN_END
                  TTFT_TPOT_SPAN_END_TOKENS
                  TTFT_TPOT_SPAN_END_PROMPT
                  TTFT_TPOT_TIME
     Report model ttft_tpot_model_compute         every figure, computed once
                  ttft_tpot_model_free            free a model
     Writers      ttft_tpot_report                the text report (compute + write + free)
                  ttft_tpot_report_json           the JSON report
                  ttft_tpot_prometheus            the Prometheus exposition (vLLM's names)
                  ttft_tpot_model_report          the text of a model
                  ttft_tpot_model_report_json     the JSON of a model
                  ttft_tpot_model_prometheus      the exposition of a model
                  ttft_tpot_publish               a live exposition: counters that only grow
                  ttft_tpot_publish_file          ... written whole to a file (a textfile collector's)
     Trace I/O    ttft_tpot_trace_write           every sample and event, to read back later

   RECORDING
     One begin, one end, and setters between them for what a sample carries: tokens, prompt tokens,
     a shape key, a duration measured elsewhere (a device timer). The other record functions and
     macros are thin wrappers over these ("Recording has one begin" in the Recording section):
         ttft_tpot_span s = ttft_tpot_span_begin(&tp, pre);
         prefill(batch);
         ttft_tpot_span_set_tokens(&s, batch);            // one token a sequence
         ttft_tpot_span_set_prompt(&s, batch * prompt_len);
         ttft_tpot_span_set_shape(&s, batch);             // first call of each batch size: warmup
         ttft_tpot_span_end(&s);

   REPORT MODEL
     ttft_tpot_model_compute computes every figure once (headline, phases, steady states, runs,
     request metrics, kernel shares, losses); the text, JSON and Prometheus writers and the tools read
     the model. ttft_tpot_report(c, f) is compute + ttft_tpot_model_report + free.

   SECTIONS
     Each heading stands twice, in the same order: over the declarations and over the implementation
     (search "---- Requests" to find both): Errors · Clock · Names, hashing and numbers · Statistics
     (exact and bounded) · Phases and warmup · Requests · Storage · Device time · Collector and config ·
     Recording · Report model · Writers (text, JSON, Prometheus) · Trace I/O. Each section uses only
     those above it. Writers and Trace I/O have sub-headings ("-- Writers: the JSON report").
     ttft_tpot_tools.h adds the tools' half in sections of its own: Statistics · Queries and accessors ·
     Parsers · Files (the trace reader, the Chrome trace, the requests CSV) · Reports (the HTML page) ·
     Comparison · Ranks.

   COMPILE-TIME OPTIONS (define before the #include that they should affect)
     TTFT_TPOT_IMPLEMENTATION   in one file: emit the function bodies there.
     TTFT_TPOT_STATIC           with the implementation: make every function static to that file.
     TTFT_TPOT_DEF              the declaration prefix of every non-inline function (default extern).
     TTFT_TPOT_DISABLE          span macros compile to nothing; types and functions stay, so code builds.
     TTFT_TPOT_NO_STDIO         for a host without stdio: no FILE* writer or reader (Writers, Trace I/O)
                                is declared or compiled, and <stdio.h> is not included; recording,
                                statistics and requests stay (read figures with ttft_tpot_model_compute).
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
       n/a (time one warmup request first). If the driver links a kernel phase as the prefill
       kernel (ttft_tpot_link_prefill_kernel), the text shows that kernel's fastest sample as a
       lower bound.
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
     Window (serving) = the last token of any measured request - the first submit of a measured
       request (measured: not submitted inside a warmup section, not truncated, one token at
       least). Request throughput = measured requests / window; output token throughput = their
       tokens / window (JSON requests.window_ms, request_throughput_rps, output_throughput_tok_s;
       null without a measured request or with a window of 0).
     Goodput (with SLOs: ttft_tpot_set_slo, --slo) = the measured requests that meet each SLO set:
       a figure equal to its SLO meets it (<=, compared in ns; TPOT exactly, not rounded), and a
       request with one token has no TPOT and passes the TPOT SLO, as in vLLM. Reported: good n,
       their fraction of the measured requests, and good requests / window (JSON requests.goodput:
       n, fraction, rps, slo; null without an SLO or a measured request).
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
       (ttft_tpot_ci95_min_n computes them). A bounded phase's interval is read from its
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
       (tests/compare_sim measures it), and it is the figure to compare. A CV above 5% is flagged
       (WARNING: the runs vary): the runs disagree more than a difference you might want to
       see. Runs come from
       stored samples; a collector with bounded prefill or decode phases has none (n/a). Traces
       carry the runs as # run: lines, so the report of a trace gives the same runs.
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
       flags decide: no figure changes because of it. The requests' TTFT series (submit order,
       warmup requests included) gets the same, as requests.steady_state. No steady state: White's
       rule (the best cut over every d that leaves 5 batches or more lies past m/2) says a series
       keeps rising or falling (a queue building up under a burst, say), but it also fires on a
       steady series with one slow step late in it. So it is asked of the batch means with the
       isolated spikes (below) replaced by the steady p50, and where it still fires, its cut is
       checked: it splits the series' steady values (not flagged warmup) into those before it and
       those from it on, and the series has no steady state when the two sides' p50 intervals
       (above) are disjoint, or, where a side has too few values for one, when their ranges are
       (each value of one below each of the other; an empty side: never). Then the text says "no
       steady state" instead of naming a warmup, and JSON steady_state.no_steady_state is true; else
       the first-half cut is reported as above. Like the intervals, the check assumes independent
       values: of simulated flat series (tests/steady_sim.c) 0.1% are called unsteady with
       independent noise, 18% when each step keeps 0.9 of the last one's deviation; of series rising
       5% over the run, 95%. An isolated spike is a steady value above twice the series' steady p50
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
       a token count (TTFT_TPOT_SPAN_END_TOKENS gives one) has no rate, steady decode steps that
       took 0 ns in total have no throughput, and the first prefill after ttft_tpot_clear is not
       labelled as the cold one.

   ERRORS AND ODD INPUT
     Functions return TTFT_TPOT_OK (0) or a negative TTFT_TPOT_E* code (one list: TTFT_TPOT_ERRORS);
     ttft_tpot_strerror names it. Nothing aborts on run-time data. Past the storage a phase goes on
     in a histogram (counted in "outgrown"); a sample that can be kept nowhere is counted in
     "dropped"; a call that is rejected (unknown phase, invalid duration, a span ended twice) is
     counted in "rejected"; a span begun and not yet ended is counted in "spans_open" (a clear keeps
     it: the span is still running). All appear in every report, and travel in traces. Contract of each
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
     away, so record_ms, ms_to_ns and set_slo refuse them under any compiler, also inlined into a
     caller built with those options. With another compiler's fast-math mode, doubles derived from the
     samples (means, rates, sd and CV) may differ in their last digits; integer figures do not. The
     inline record path computes no floating point.

   REQUESTS (serving)
     With config.max_requests, the collector also records each request's time points (one row each
     in TTFT_TPOT_POINTS): its submit; its schedule (optional: ttft_tpot_request_schedule), at or
     after its submit and at or before its first token; its first, second and last token, from its
     token events, each at or after every point before it; its first output token (optional:
     ttft_tpot_request_output), the first token that is not reasoning, once, at or after its first
     token and at or before its last (meant as the time of the token event that held it: the form
     without _at takes the latest). An event that would break that order is refused (EREQUEST), so
     every figure below is a difference of ordered points. It reports vLLM's per-request metrics, each
     spanning two points: TTFT = first token - submit, E2E = last token - submit, TPOT = (E2E - TTFT)
     / (tokens - 1), ITL = every gap between a request's token events (an event of several tokens,
     as speculative decoding streams them, adds one gap and no zero gaps inside it: vLLM's ITL,
     while TPOT spreads the time over every token), TTST = second token - submit,
     queue = schedule - submit, prefill = first token - schedule, decode = last token - first token
     (vLLM's request_decode_time_seconds), and TTFO = first output token -
     submit (time to first output token, as AIPerf and guidellm report it: TTFT past the reasoning)
     (one row each in TTFT_TPOT_METRICS: label, JSON key, Prometheus name, help, buckets, points; a
     request without both points of a metric is left out of it, so TTFO is over the requests with an
     output event); goodput under SLOs; Prometheus exposition (ttft_tpot_prometheus). Warmup per
     shape: spans and records with a shape key flag the first sample of each (phase, key).
     A server that runs for weeks: a request finished (ttft_tpot_request_finish) is folded once into
     cumulative histograms and counters (its metrics' values bucketed, its sums exact), which the
     live exposition (ttft_tpot_publish) writes in O(buckets). When a submit or a token event finds
     the request table or the event log full, the finished requests but the last
     config.request_window (and at most half of them) leave the table, oldest first, their slots and
     events reused: every report figure is then exact over the requests held (the window), and the
     requests folded away are counted (JSON requests.folded) and stay in every Prometheus histogram
     and counter, within the buckets' bound. Memory stays that of the table, however many requests
     were served. Only finished requests fold: a driver that never finishes its requests fills the
     table as before (refused, and counted).

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
     globals, and ttft_tpot_now, ttft_tpot_strerror and ttft_tpot_role_name may be called from any
     thread.
*/
#ifndef TTFT_TPOT_H
#define TTFT_TPOT_H

/* Strict ISO modes (-std=c99) hide clock_gettime: ask for POSIX before the first libc header. */
#if defined(TTFT_TPOT_IMPLEMENTATION) && defined(__STRICT_ANSI__) && !defined(_WIN32) &&             \
    !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 199309L /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#endif

#define TTFT_TPOT_VERSION_MAJOR 0
#define TTFT_TPOT_VERSION_MINOR 3
#define TTFT_TPOT_VERSION_PATCH 0
#define TTFT_TPOT_VERSION "0.3.0"

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

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ttft_tpot ttft_tpot; /* the collector: Collector and config */

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

/* Name of an error code, "ok" for 0. */
TTFT_TPOT_DEF const char *ttft_tpot_strerror(int err);

/* ---- Clock ----------------------------------------------------------------------------------- */

/* A clock returns monotonic nanoseconds; user is config.clock_user. */
typedef uint64_t (*ttft_tpot_clock_fn)(void *user);

/* Monotonic nanoseconds from the platform clock (see CLOCK above). */
TTFT_TPOT_DEF uint64_t ttft_tpot_now(void);

/* ---- Names, hashing and numbers -------------------------------------------------------------- */

/* Implementation only: the name rule that phase names and request ids follow (ttft_tpot_phase),
   the keyed SipHash-1-3 their indexes use (HASHING, above), and the exact integer arithmetic
   (128-bit products and quotients, ms to ns, plain decimals) the sections below share. */

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
    int has_ci[3];        /* 0: too few values for that interval (ttft_tpot_ci95_min_n says how many) */
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

typedef enum ttft_tpot_role {
    TTFT_TPOT_ROLE_PREFILL = 0, /* a request's prefill: the source of TTFT */
    TTFT_TPOT_ROLE_DECODE = 1,  /* one decode step: the source of TPOT */
    TTFT_TPOT_ROLE_KERNEL = 2,  /* any other timed dispatch: raw aggregates only */
    TTFT_TPOT_ROLE_E2E = 3      /* a whole generate call: the mixed e2e rate */
} ttft_tpot_role;

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

/* Register a phase, or find it again: returns its id (>= 0), the same id for the same name and role.
   EINVAL (c or name NULL, role unknown), ENAME (empty, TTFT_TPOT_NAME_MAX bytes or longer, not valid
   UTF-8, or holding a character a terminal does not show as text: a C0 or C1 control (U+0000-U+001F,
   U+007F-U+009F) or a bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069); request ids
   follow the same rule), EROLE (name taken by another role), EPHASE (table full). */
TTFT_TPOT_DEF int ttft_tpot_phase(ttft_tpot *c, const char *name, ttft_tpot_role role);

/* A row of its own for the samples of phase with shape key key (a matrix shape, a batch size): the
   phase "PHASE[NAME]", of phase's role, which spans and records of (phase, key) go to from now on,
   each row with its own first-call warmup and figures; the driver names each key once and keeps
   timing phase with the key. Returns the row's phase id (the same for the same name), or EINVAL (c
   or name NULL), EPHASE (unknown phase, or the phase table is full), ENAME (the row's name is not a
   valid phase name: TTFT_TPOT_NAME_MAX bytes or longer, say), EROLE (that name has another role),
   EFULL (config.max_shapes pairs are known). Naming a key again sends its later samples to the new
   row. */
TTFT_TPOT_DEF int ttft_tpot_shape_row(ttft_tpot *c, int phase, uint64_t key, const char *name);

/* Make a phase bounded: from now on its steady samples go to a histogram (warmup samples stay exact).
   OK (also when it already is); EINVAL (c NULL); EPHASE (unknown phase); ENOMEM (all of
   config.hist_slots are taken). */
TTFT_TPOT_DEF int ttft_tpot_phase_bounded(ttft_tpot *c, int phase);

/* Show kernel_phase in the text report as a lower bound of steady TTFT (its fastest sample).
   -1 unlinks. EINVAL (c NULL), EPHASE (unknown phase). */
TTFT_TPOT_DEF int ttft_tpot_link_prefill_kernel(ttft_tpot *c, int kernel_phase);

/* Every sample recorded between begin and end is flagged warmup; sections nest.
   EINVAL (c NULL); warmup_end without a matching begin: ESTATE, counted as rejected. */
TTFT_TPOT_DEF int ttft_tpot_warmup_begin(ttft_tpot *c);
TTFT_TPOT_DEF int ttft_tpot_warmup_end(ttft_tpot *c);

/* Name of a role ("prefill", "decode", "kernel", "e2e"), or "?" when unknown. */
TTFT_TPOT_DEF const char *ttft_tpot_role_name(int role);

/* ---- Requests -------------------------------------------------------------------------------- */

/* A request, as the driver names it (1..TTFT_TPOT_NAME_MAX-1 bytes of UTF-8, like a phase). Its
   times are its points' (TTFT_TPOT_POINTS, below): a field each, set when its bit in points is. */
typedef struct ttft_tpot_request {
    char id[TTFT_TPOT_NAME_MAX];
    uint64_t submit_ns, first_ns, last_ns; /* first_ns and last_ns: 0 with no token yet */
    uint64_t tokens;
    uint32_t token_events;
    int scheduled;          /* scheduled_ns holds when it was scheduled (ttft_tpot_request_schedule_at) */
    uint64_t scheduled_ns;
    int warmup;    /* submitted inside a warmup section */
    int truncated; /* an event of it did not fit config.max_request_events: out of every figure */
    int finished;  /* ttft_tpot_request_finish: no more tokens; a live exposition counts it */
    uint64_t second_ns; /* the token event that brought it to two tokens */
    uint64_t output_ns; /* its first output token, not reasoning (ttft_tpot_request_output_at) */
    uint32_t points;    /* the points it has: bit TTFT_TPOT_POINT_BIT(NAME) for each */
    uint64_t prompt_tokens; /* ttft_tpot_request_prompt; 0: not given */
    size_t ev_first, ev_last; /* its first and last event in the log (SIZE_MAX: none): where folding it
                                 walks (ttft_tpot__fold) */
    int reason;               /* why it finished (TTFT_TPOT_FINISH_*): abort and error are out of every
                                 figure */
} ttft_tpot_request;

/* A request's time points, one list: recording and its order checks, the metric table (a metric spans
   two points), the trace's request rows, the requests CSV, the Chrome trace and the Python binding
   all expand it, so a metric that needs a new point is a row here (with its ttft_tpot_request field)
   and its recording call. X(NAME, FIELD, SET, TOKENS, FOLLOWS, NOW, ROLE, CSV, WORDS):
   TTFT_TPOT_POINT_NAME; the field that holds its time; how it is set: SUBMIT (the submit, which makes
   the request), TOKEN (by the token event that brings the request to TOKENS tokens or more, or with
   TOKENS 0 by each token event: the latest) or MARK (a call of its own, once a request: kept with the
   request, not in the event log); FOLLOWS: the points it lies at or after (TTFT_TPOT_POINT_BIT): an
   event that would break that order is refused, and a mark before every point it follows is set;
   NOW: the point whose time TTFT_TPOT_NOW stands for in its call (NONE: the collector's clock); ROLE:
   its rows' role in a trace (token events: "token"); CSV: its column in the requests CSV ("": none);
   WORDS: its name in words, for messages. Definitions: REQUESTS, above. */
#define TTFT_TPOT_POINTS(X)                                                                           \
    X(SUBMIT, submit_ns, SUBMIT, 0, 0, NONE, "submit", "submit_ns", "submit")                         \
    X(SCHEDULE, scheduled_ns, MARK, 0, TTFT_TPOT_POINT_BIT(SUBMIT), NONE, "schedule", "schedule_ns",  \
      "schedule")                                                                                     \
    X(FIRST, first_ns, TOKEN, 1, TTFT_TPOT_POINT_BIT(SUBMIT) | TTFT_TPOT_POINT_BIT(SCHEDULE), NONE,   \
      "token", "first_token_ns", "first token")                                                       \
    X(SECOND, second_ns, TOKEN, 2, TTFT_TPOT_POINT_BIT(FIRST), NONE, "token", "", "second token")     \
    X(OUTPUT, output_ns, MARK, 0, TTFT_TPOT_POINT_BIT(FIRST), LAST, "output", "first_output_ns",       \
      "first output token")                                                                           \
    X(LAST, last_ns, TOKEN, 0, ~0u /* each token event: after every point so far */, NONE, "token",   \
      "last_token_ns", "last token")

#define TTFT_TPOT__POINT_ENUM(name, field, set, tokens, follows, now, role, csv, words) TTFT_TPOT_POINT_##name,
enum { TTFT_TPOT_POINTS(TTFT_TPOT__POINT_ENUM) TTFT_TPOT_POINT_COUNT };
#undef TTFT_TPOT__POINT_ENUM
enum { TTFT_TPOT_POINT_NONE = -1 }; /* NOW of a point whose call reads the clock */
#define TTFT_TPOT_POINT_BIT(name) (1u << TTFT_TPOT_POINT_##name)

/* One request event: a submit (tokens 0) or tokens delivered, in call order. */
typedef struct ttft_tpot__event {
    uint64_t t_ns;
    uint32_t request, tokens;
} ttft_tpot__event;

/* The request table: each request's aggregates, an index by id, and the event log. */
typedef struct ttft_tpot__request_table {
    ttft_tpot_request *list;
    unsigned n, max;
    unsigned done;   /* of the n: those finished (what folding may take, known without a pass) */
    uint32_t *index; /* open addressing by id: request number + 1, 0 empty */
    uint32_t mask;
    ttft_tpot__event *events;
    size_t n_events, max_events;
    uint64_t dropped;     /* request events not kept: the request or event table was full */
    uint64_t refused;     /* submits refused: the request table was full */
    uint64_t events_lost; /* events of tracked requests not kept: the event table was full */
} ttft_tpot__request_table;

/* Service level objectives for goodput, in ms; 0: none. */
typedef struct ttft_tpot_slo {
    double ttft_ms, tpot_ms, e2e_ms;
} ttft_tpot_slo;

/* The request metrics, one list: the enum, the text, JSON and Prometheus writers, the requests CSV,
   the Chrome trace, the HTML report's charts and --compare's rows all expand it, so a new metric is a
   row here (and, if it needs one, a point in TTFT_TPOT_POINTS). X(NAME, LABEL, WORDS, JSON,
   PROMETHEUS, HELP, BUCKETS, UNDER, NOTE, COMPARE, FROM, TO, RULE, SLICE, CSV): TTFT_TPOT_METRIC_NAME;
   its text label; its name in words; its key under "requests" in the JSON report (a STATS object); its
   name in the Prometheus exposition, after the prefix; its HELP line; its bucket bounds (the TTFT,
   TPOT or E2E bounds of ttft_tpot_prometheus); the metric it is a part of (its text line goes under
   that one's, indented; NONE: none); what its text line says it spans ("": nothing); its row's name
   in --compare; the points it spans (TTFT_TPOT_POINT_*: a request without both has no value); how its
   values come: SPAN (TO - FROM, a value a request), PER_TOKEN (TO - FROM over tokens - 1, a request
   with two tokens or more) or GAPS (every gap between a request's token events, FROM to TO); the
   Chrome trace's slice of it on a request's lane ("": none; a metric whose parts are drawn is not);
   its column in the requests CSV ("": none). Definitions: REQUESTS, above. */
#define TTFT_TPOT_METRICS(X)                                                                          \
    X(TTFT, "TTFT", "time to first token", "ttft_ms", "time_to_first_token_seconds",                  \
      "Histogram of time to first token in seconds.", TTFT, NONE, "", "requests.ttft", SUBMIT, FIRST, \
      SPAN, "ttft", "ttft_ns")                                                                        \
    X(QUEUE, "queue", "queue time", "queue_ms", "request_queue_time_seconds",                         \
      "Histogram of time spent waiting to be scheduled, per request with a schedule event.", E2E, TTFT,        \
      "submit to schedule", "requests.queue", SUBMIT, SCHEDULE, SPAN, "queued", "")                   \
    X(PREFILL, "prefill", "prefill time", "prefill_ms", "request_prefill_time_seconds",               \
      "Histogram of time from schedule to first token, per request with a schedule event.", E2E, TTFT,        \
      "schedule to first token", "requests.prefill", SCHEDULE, FIRST, SPAN, "prefill", "")            \
    X(TTST, "TTST", "time to second token", "ttst_ms", "time_to_second_token_seconds",                \
      "Histogram of time to second token in seconds, per request with two tokens or more.", TTFT, NONE, "",    \
      "ttst", SUBMIT, SECOND, SPAN, "", "")                                                           \
    X(TTFO, "TTFO", "time to first output token", "ttfo_ms", "time_to_first_output_token_seconds",    \
      "Histogram of time to first output token (not reasoning) in seconds, per request with an output event.", \
      TTFT, NONE, "", "ttfo", SUBMIT, OUTPUT, SPAN, "", "ttfo_ns")                                    \
    X(TPOT, "TPOT", "time per output token", "tpot_ms", "request_time_per_output_token_seconds",      \
      "Histogram of time per output token in seconds, per request.", TPOT, NONE, "", "requests.tpot", \
      FIRST, LAST, PER_TOKEN, "", "tpot_ns")                                                          \
    X(ITL, "ITL", "inter-token latency", "itl_ms", "inter_token_latency_seconds",                     \
      "Histogram of inter-token latency in seconds.", TPOT, NONE, "", "itl", FIRST, LAST, GAPS,       \
      "decode", "")                                                                                   \
    X(E2E, "E2E", "E2E latency", "e2e_ms", "e2e_request_latency_seconds",                             \
      "Histogram of end to end request latency in seconds.", E2E, NONE, "", "e2e", SUBMIT, LAST, SPAN, \
      "", "e2e_ns")                                                                                   \
    X(DECODE, "decode", "decode time", "decode_ms", "request_decode_time_seconds",                    \
      "Histogram of time from first token to last in seconds, per request.", E2E, E2E,                \
      "first to last token", "requests.decode", FIRST, LAST, SPAN, "", "")

#define TTFT_TPOT__METRIC_ENUM(name, label, words, json, prom, help, le, under, note, cmp, from, to, rule, slice, \
                               csv)                                                                   \
    TTFT_TPOT_METRIC_##name,
enum { TTFT_TPOT_METRICS(TTFT_TPOT__METRIC_ENUM) TTFT_TPOT_METRIC_COUNT };
#undef TTFT_TPOT__METRIC_ENUM
enum { TTFT_TPOT_METRIC_NONE = -1 }; /* UNDER of a metric that is part of none */

/* Why a request finished, as vLLM's finished_reason label names it: stop (an end token or a stop
   string), length (its token limit), abort (the client went away, or the server dropped it), error.
   An aborted or errored request is in no latency figure or histogram (vLLM's histograms leave them
   out too): it is counted by its reason (JSON requests.finish_reasons, Prometheus
   request_failure_total{finished_reason=...}); stop and length count among the successes
   (request_success_total{finished_reason=...}). */
enum { TTFT_TPOT_FINISH_NONE = 0, /* ttft_tpot_request_finish: no reason given (or not finished) */
       TTFT_TPOT_FINISH_STOP, TTFT_TPOT_FINISH_LENGTH, TTFT_TPOT_FINISH_ABORT, TTFT_TPOT_FINISH_ERROR,
       TTFT_TPOT_FINISH_COUNT };

/* Serving metrics over requests, in vLLM's definitions (REQUESTS and METRICS, above). Durations in ns.
   n counts measured requests: not submitted inside a warmup section, with at least one token. */
typedef struct ttft_tpot_requests {
    uint64_t seen, n, incomplete, warmup_excluded, dropped;
    uint64_t truncated; /* tracked, but their events did not all fit: left out of every figure */
    ttft_tpot_stats metric[TTFT_TPOT_METRIC_COUNT]; /* each request metric (TTFT_TPOT_METRICS): TPOT of the
                                             requests with more than one token, ITL every gap, queue
                                             and prefill (TTFT's parts) of those with a schedule event */
    uint64_t unscheduled;                 /* measured requests without a schedule event */
    int has_window;                       /* a measured request exists and the window is > 0 */
    double window_ns, request_rps, output_tok_s;
    uint64_t tokens;                      /* of the measured requests */
    uint64_t prompt_tokens;               /* theirs given (ttft_tpot_request_prompt) */
    uint64_t max_concurrent_requests;     /* the most measured requests in flight (submit to last token) at once */
    int has_max_tok_s;                    /* a slice holds a token */
    double max_output_tok_s;              /* the busiest slice's output tok/s (vLLM's peak, over 1 s slices) */
    int has_goodput;                      /* an SLO is set and n > 0 */
    uint64_t good_n;
    double good_fraction, good_rps;       /* good_rps needs has_window */
    uint64_t folded;                      /* measured requests folded out of the table (config.request_window):
                                             in the exposition's histograms and counters, in no figure above */
    uint64_t folded_tokens, folded_prompt_tokens; /* theirs */
    uint64_t folded_other;                /* finished requests folded away that no figure counts (warmup, no
                                             token, aborted, errored); truncated ones are in truncated */
    uint64_t finish_reasons[TTFT_TPOT_FINISH_COUNT]; /* the measured requests by why they finished (NONE:
                                             no reason given, or not finished), and the aborted and
                                             errored ones (not warmup: out of every figure), folded
                                             ones included */
} ttft_tpot_requests;

/* Requests. A request is submitted once, then delivers tokens in events of one or more tokens; it
   finishes implicitly at its last token. One pair of calls: t_ns is a time on the collector's clock
   (device timestamps, traces, tests), or TTFT_TPOT_NOW to read that clock; the forms without _at
   are the same at TTFT_TPOT_NOW. A request submitted inside a warmup
   section is a warmup request. Disabled collector: nothing, OK.
   submit: OK; EINVAL (c or id NULL); ENAME (id as a phase name would be refused); EREQUEST (the id
   was submitted before: counted as rejected); EFULL: the request table is full (config.max_requests:
   counted in requests_dropped and requests_refused), or the event table is full (the request is
   tracked but truncated: counted in requests_dropped and events_lost).
   tokens: as submit, and EREQUEST for an unknown id, or a time before the request's submit or its
   previous tokens (counted as rejected); EINVAL for 0 tokens. EFULL when the event table is full:
   the request is truncated, and a truncated request is left out of every request figure (counted
   in requests.truncated; its later events are dropped too). Once a submit was refused for a full
   request table, a token for an unknown id is counted as dropped (EFULL), not rejected. */
#define TTFT_TPOT_NOW UINT64_MAX /* a request event's time: read the collector's clock (or, for a point
                                    whose NOW names another, take that point's time: TTFT_TPOT_POINTS) */
TTFT_TPOT_DEF int ttft_tpot_request_submit_at(ttft_tpot *c, const char *id, uint64_t t_ns);
TTFT_TPOT_DEF int ttft_tpot_request_tokens_at(ttft_tpot *c, const char *id, uint64_t t_ns, uint32_t tokens);

/* When a submitted request was scheduled (its prefill began), between its submit and its first
   token: TTFT splits into queue time (submit to schedule) and prefill (schedule to first token).
   Once a request. As submit and tokens otherwise; EREQUEST (unknown id, scheduled before, a time
   before its submit or after its first token: counted as rejected). Takes no event storage. */
TTFT_TPOT_DEF int ttft_tpot_request_schedule_at(ttft_tpot *c, const char *id, uint64_t t_ns);

/* The request's first output token, the first that is not reasoning (TTFO: REQUESTS), came at t_ns
   (the time of the token event that held it): at or after its first token and at or before its
   latest, once a request. TTFT_TPOT_NOW (and ttft_tpot_request_output) takes its latest token
   event's time: call it right after the tokens that hold the first output token. As schedule
   otherwise; EREQUEST (unknown id, no token yet, marked before, out of that order: counted as
   rejected). Takes no event storage. */
TTFT_TPOT_DEF int ttft_tpot_request_output_at(ttft_tpot *c, const char *id, uint64_t t_ns);

/* A mark by its point's number (TTFT_TPOT_POINT_*, one set by a call of its own: SET MARK), for code
   that loops over TTFT_TPOT_POINTS (a binding); the named calls (schedule) are this. EINVAL for a
   point that is not a mark; else as that mark's call. */
TTFT_TPOT_DEF int ttft_tpot_request_mark_at(ttft_tpot *c, const char *id, int point, uint64_t t_ns);

/* The request has delivered its last token: later tokens and schedules are refused, and a live
   exposition (ttft_tpot_publish) counts it from now on, and no longer as in flight. The reports need
   no finish (a request ends at its last token); a trace carries it ("# finished:"). OK (also when disabled: nothing); EINVAL (c or id
   NULL); EREQUEST (unknown id, or finished before: counted as rejected); EFULL (unknown after a submit
   was refused for a full table: counted as dropped, as its tokens are). */
TTFT_TPOT_DEF int ttft_tpot_request_finish(ttft_tpot *c, const char *id);

/* ttft_tpot_request_finish with its reason (TTFT_TPOT_FINISH_STOP .. ERROR; EINVAL otherwise), carried
   by a trace ("# finish_reason: REASON,ID"). As finish otherwise. */
TTFT_TPOT_DEF int ttft_tpot_request_finish_reason(ttft_tpot *c, const char *id, int reason);

/* A reason's name ("stop", "length", "abort", "error"; "" for NONE), or NULL when unknown. */
TTFT_TPOT_DEF const char *ttft_tpot_finish_reason_name(int reason);

/* The request's prompt tokens (once, after its submit), for vLLM's prompt_tokens_total and the JSON's
   requests.prompt_tokens. OK (also when disabled: nothing); EINVAL (c or id NULL, 0 tokens); EREQUEST
   (unknown id, or given before: counted as rejected); EFULL as finish. Takes no event storage. */
TTFT_TPOT_DEF int ttft_tpot_request_prompt(ttft_tpot *c, const char *id, uint64_t prompt_tokens);

/* The tracked request named id (a server logs a request as it finishes, before it may fold away):
   OK; EINVAL (NULL); EREQUEST (no such request held). */
TTFT_TPOT_DEF int ttft_tpot_request_get(const ttft_tpot *c, const char *id, ttft_tpot_request *out);

/* The four calls above at TTFT_TPOT_NOW. */
static inline int ttft_tpot_request_submit(ttft_tpot *c, const char *id)
{
    return ttft_tpot_request_submit_at(c, id, TTFT_TPOT_NOW);
}

static inline int ttft_tpot_request_tokens(ttft_tpot *c, const char *id, uint32_t tokens)
{
    return ttft_tpot_request_tokens_at(c, id, TTFT_TPOT_NOW, tokens);
}

static inline int ttft_tpot_request_schedule(ttft_tpot *c, const char *id)
{
    return ttft_tpot_request_schedule_at(c, id, TTFT_TPOT_NOW);
}

static inline int ttft_tpot_request_output(ttft_tpot *c, const char *id)
{
    return ttft_tpot_request_output_at(c, id, TTFT_TPOT_NOW);
}

/* SLOs for goodput: a request is good when each SLO set (nonzero) holds, <= inclusive; a request with
   one token has no TPOT and passes the TPOT SLO. OK; EINVAL (c NULL); ERANGE (negative, NaN or
   infinite: nothing changes). */
TTFT_TPOT_DEF int ttft_tpot_set_slo(ttft_tpot *c, ttft_tpot_slo slo);

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
   return) and opens a ticket (ttft_tpot_span_ticket): an open device interval that the driver
   resolves when the device's timestamps are ready (after the step's synchronize), off the record
   path, in one of two forms:
     elapsed   the device time between two events: cudaEventElapsedTime (about 0.5 us resolution),
               hipEventElapsedTime, aclrtEventElapsedTime, torch's Event.elapsed_time;
     absolute  the device's begin and end on its own clock, in ns (aclrtEventGetTimestamp, CUPTI and
               MSPTI activity records), mapped onto the host clock through a clock pair: both clocks
               read together after a full synchronize, host = pair.host_ns + (device - pair.device_ns).
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
   was merged into (the merged intervals are numbered there anew), and after ttft_tpot_clear. Ticket 0 (a span that has none) resolves to
   nothing, OK, so a driver with profiling off needs no test. */

/* A device interval: stored in ticket order, its host sample linked. */
enum { TTFT_TPOT_DEVICE_OPEN = 1, TTFT_TPOT_DEVICE_ELAPSED = 2, TTFT_TPOT_DEVICE_ABSOLUTE = 3 };
typedef struct ttft_tpot_device_interval {
    uint64_t sample;    /* its host sample's index + 1 (ttft_tpot_sample_at); 0: none kept (a histogram) */
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
   at or before begin; 0: none). Make one with ttft_tpot_stamp_elapsed, _absolute or _queued (or zero
   it first): a stamp with a field left unset (a stack array) carries garbage, and an absolute flag of
   garbage is refused. */
typedef struct ttft_tpot_device_stamp {
    uint64_t ticket;
    int absolute;
    uint64_t elapsed_ns;
    uint64_t begin_ns, end_ns;
    uint64_t queued_ns;
} ttft_tpot_device_stamp;

/* A whole stamp of each form, every field set. */
static inline ttft_tpot_device_stamp ttft_tpot_stamp_elapsed(uint64_t ticket, uint64_t elapsed_ns)
{
    ttft_tpot_device_stamp s;
    s.ticket = ticket, s.absolute = 0, s.elapsed_ns = elapsed_ns, s.begin_ns = s.end_ns = s.queued_ns = 0;
    return s;
}

static inline ttft_tpot_device_stamp ttft_tpot_stamp_absolute(uint64_t ticket, uint64_t begin_ns, uint64_t end_ns)
{
    ttft_tpot_device_stamp s;
    s.ticket = ticket, s.absolute = 1, s.elapsed_ns = 0, s.begin_ns = begin_ns, s.end_ns = end_ns, s.queued_ns = 0;
    return s;
}

static inline ttft_tpot_device_stamp ttft_tpot_stamp_queued(uint64_t ticket, uint64_t queued_ns, uint64_t begin_ns,
                                                            uint64_t end_ns)
{
    ttft_tpot_device_stamp s = ttft_tpot_stamp_absolute(ticket, begin_ns, end_ns);
    s.queued_ns = queued_ns;
    return s;
}

/* Resolve n tickets, a step's in one call (pair: the clock pair of absolute stamps; NULL when all are
   elapsed). Each stamp is applied or refused alone: a refused one changes nothing and is counted.
   OK when every stamp applied; otherwise the first refusal's code: ETICKET (unknown, resolved, or of
   an earlier epoch), ERANGE (end before begin, queued after begin, a device time of 2^62 ns or more,
   or a begin or queued stamp that maps outside the host clock), EINVAL (absolute without a pair, or
   a queued stamp on the elapsed form); *refused (may be NULL) gets how many were refused. EINVAL (c NULL, or
   stamps NULL while n > 0: nothing counted). A disabled collector resolves too: its tickets were
   opened while it recorded. */
TTFT_TPOT_DEF int ttft_tpot_device_resolve(ttft_tpot *c, const ttft_tpot_device_stamp *stamps, size_t n,
                                           const ttft_tpot_clock_pair *pair, size_t *refused);

/* A clock pair for a device whose clock the host can read (a runtime that stamps with a host clock,
   as PoCL stamps with CLOCK_MONOTONIC_RAW; CUPTI's cuptiGetTimestamp): c's clock, device_clock(user),
   c's clock again, the device reading paired with the two host reads' midpoint. Read it after a full
   synchronize, once a process or a step (the two clocks drift apart, about 1e-5 a second on a PC). */
TTFT_TPOT_DEF ttft_tpot_clock_pair ttft_tpot_clock_pair_read(const ttft_tpot *c, uint64_t (*device_clock)(void *user),
                                                             void *user);

/* One ticket, elapsed form: in ns, or in ms as the event APIs give it (ttft_tpot_ms_to_ns: a
   negative, NaN or infinite ms is refused, ERANGE). */
TTFT_TPOT_DEF int ttft_tpot_device_elapsed(ttft_tpot *c, uint64_t ticket, uint64_t elapsed_ns);
TTFT_TPOT_DEF int ttft_tpot_device_elapsed_ms(ttft_tpot *c, uint64_t ticket, double ms);

/* One ticket, absolute form: begin and end on the device clock, mapped through pair. */
TTFT_TPOT_DEF int ttft_tpot_device_absolute(ttft_tpot *c, uint64_t ticket, uint64_t begin_ns, uint64_t end_ns,
                                            const ttft_tpot_clock_pair *pair);

/* A part of a launch: one host dispatch that runs many kernels (a CUDA graph replay) has one ticket
   for the whole; the kernels' own events, when the driver has them, add a device interval each for
   phase (a kernel-role row of its own, with no host samples), linked to the launch's sample and
   stream. stamp->ticket is ignored; the launch's ticket may be open or resolved. OK; ETICKET
   (unknown launch), EPHASE (unknown phase), ERANGE, EINVAL as ttft_tpot_device_resolve (counted as
   refused); EFULL (config.max_device kept: counted as device_unresolved). */
TTFT_TPOT_DEF int ttft_tpot_device_part(ttft_tpot *c, uint64_t launch, int phase, const ttft_tpot_device_stamp *stamp,
                                        const ttft_tpot_clock_pair *pair);

/* ---- Collector and config -------------------------------------------------------------------- */

typedef struct ttft_tpot_config {
    size_t capacity;          /* samples kept exactly (0: 65536); at most UINT32_MAX. Past it a phase goes
                                 on in a histogram; warmup samples take max_phases + max_shapes more */
    unsigned max_phases;      /* phases (0: 64); at most 65535 */
    int timeline;             /* nonzero: also keep each sample's start time (8 more bytes a sample) */
    int sequences;            /* nonzero: also keep each sample's sequences (4 more bytes a sample), for
                                 decode steps of several tokens a sequence (ttft_tpot_span_set_sequences);
                                 every span then takes the out-of-line path (a few ns more) */
    void *buffer;             /* optional caller storage of buffer_bytes (see ttft_tpot_bytes_needed) */
    size_t buffer_bytes;
    ttft_tpot_clock_fn clock; /* optional replacement clock */
    void *clock_user;
    const char *clock_name;   /* how the report names a replacement clock ("user clock") */
    void *alloc_user;         /* passed to TTFT_TPOT_MALLOC / TTFT_TPOT_FREE */
    int bounded;              /* nonzero: every phase keeps its steady samples in a histogram */
    unsigned hist_slots;      /* phases that may be bounded or outgrow the storage (0: max_phases when
                                 bounded, else max_phases up to 64) */
    unsigned max_requests;    /* requests tracked (0: none; request calls return EFULL) */
    size_t max_request_events; /* submit and token events kept (0: 4096 per request, 64 KiB each) */
    unsigned max_shapes;      /* (phase, shape key) pairs remembered for warmup per shape (0: 64) */
    int grow;                 /* nonzero: ttft_tpot_trace_read enlarges the samples, histograms and
                                 request tables a trace needs (allocating); recording never does */
    size_t max_device;        /* device intervals kept (Device time; 0: 65536; 56 bytes each, touched only
                                 as intervals arrive) */
    size_t max_pending;       /* device tickets open at once (0: 1024, or max_device when smaller) */
    uint64_t slice_ns;        /* results over time: the requests' slices (0: 1 s, and the text shows none) */
    double percentiles[TTFT_TPOT_MAX_PERCENTILES]; /* the percentiles the serving figures show, ascending in
                                 (0, 100) to 0.001, a 0 after the last (all 0: p50, p90, p99); the JSON adds
                                 each beyond p50/p90/p95/p99 ("p99.9"). ttft_tpot_percentiles_parse reads
                                 "50,90,99,99.9" */
    const char *model_name;   /* a model_name label on every series of the Prometheus exposition, as vLLM
                                 writes it and its dashboards filter on it (NULL: none): at most 127
                                 bytes of UTF-8 without a newline or braces, copied at init */
    int refusals_reported;    /* nonzero: the caller reports each refused call itself (a binding raises
                                 it), so refusals are not counted (rejected, device refusals); losses
                                 (dropped, refused submits, unresolved) still are */
    unsigned request_window;  /* a server's exact window: when a submit or a token finds the request
                                 table or the event log full, the finished requests are folded away
                                 (into the exposition's histograms and counters, where every one
                                 stays counted) but for the last request_window of them, at most half
                                 (0: max_requests / 2); their slots and events are reused */
    int buckets;              /* the exposition's bucket bounds: TTFT_TPOT_BUCKETS_FINE (0: vLLM's and the
                                 E12 series, histogram_quantile within 25%) or TTFT_TPOT_BUCKETS_VLLM
                                 (vLLM's alone: fewer series, coarser quantiles) */
} ttft_tpot_config;

/* The bucket bounds of the Prometheus histograms (config.buckets; README: Fleets). */
enum { TTFT_TPOT_BUCKETS_FINE = 0, TTFT_TPOT_BUCKETS_VLLM = 1 };

#define TTFT_TPOT_BUCKETS_MAX 103 /* bounds of the largest Prometheus bucket table */

/* Finished requests folded into histograms and counters once each (ttft_tpot__fold), in O(buckets)
   whatever their number: each value counted in its bucket (not cumulative; past the last bound: in
   count alone), per-token metrics' sums in 1/1024 ns, the others' in ns, 128 bits each. */
typedef struct ttft_tpot__tally {
    uint64_t bucket[TTFT_TPOT_METRIC_COUNT][TTFT_TPOT_BUCKETS_MAX];
    uint64_t count[TTFT_TPOT_METRIC_COUNT], sum_hi[TTFT_TPOT_METRIC_COUNT], sum_lo[TTFT_TPOT_METRIC_COUNT];
    uint64_t requests, tokens, prompt_tokens; /* measured: request_success_total, generation_tokens_total,
                                                 prompt_tokens_total */
    uint64_t truncated, unmeasured; /* finished requests out of the figures: truncated; warmup or no token */
    uint64_t reasons[TTFT_TPOT_FINISH_COUNT]; /* by finish reason: the measured ones (NONE, STOP, LENGTH),
                                                 the aborted and errored ones (not warmup) */
} ttft_tpot__tally;

/* The collector. Fields are visible so the record path can be inlined; read them through functions. */
struct ttft_tpot {
    ttft_tpot__store store;          /* the samples (Recording) */
    ttft_tpot__phase_table phase;    /* Phases and warmup */
    ttft_tpot__hist_pool hist;       /* bounded phases' histograms (Statistics) */
    ttft_tpot__request_table req;    /* Requests */
    ttft_tpot__shape_table shape;    /* warmup per shape (Phases and warmup) */
    ttft_tpot__device_log dev;       /* Device time */
    uint64_t rejected; /* calls refused: unknown phase, invalid duration, span misuse */
    uint64_t refusal;  /* what a refusal adds to its count: 1, or 0 with config.refusals_reported */
    uint64_t spans_open; /* spans begun and not ended: what they timed is in no figure */
    void *nvtx_domain;   /* the NVTX domain "ttft_tpot" (TTFT_TPOT_NVTX), else NULL */
    unsigned warmup_depth;
    uint16_t warm_all; /* warmup_depth != 0 */
    int enabled;
    int prefill_kernel; /* phase linked as the prefill kernel, or -1 */
    ttft_tpot_clock_fn clock;
    void *clock_user;
    void *alloc_user;
    void *owned; /* the one allocation made by init, NULL with a caller buffer */
    int grow;      /* config.grow */
    unsigned grown; /* parts moved to allocations of their own by growing (TTFT_TPOT__PART_*) */
    uint64_t clock_read_ns;  /* median cost of one clock read, measured at init; 0: not measured */
    char clock_name[32];
    int clock_from_trace;    /* clock_* describe the clock of the first trace read */
    ttft_tpot_slo slo;
    uint64_t slice_ns; /* config.slice_ns */
    uint32_t pick_pm[TTFT_TPOT_MAX_PERCENTILES]; /* config.percentiles in thousandths of a percent */
    unsigned pick_n;
    uint64_t key[2]; /* SipHash key of the name and id indexes, drawn at init (HASHING, above) */
    size_t run_at[TTFT_TPOT_MAX_RUNS]; /* the first stored sample of each run (ttft_tpot_run_begin) */
    size_t run_end[TTFT_TPOT_MAX_RUNS]; /* the stored sample after each run; SIZE_MAX: the last run is
                                           open (its samples go on to the end) */
    unsigned runs;
    uint64_t runs_dropped; /* run_begin calls past TTFT_TPOT_MAX_RUNS: their samples join the last run */
    uint64_t full_at[4]; /* the limits losses read from a trace met (capacity, max_requests,
                            max_request_events, max_shapes of the recording collector) */
    unsigned full_known; /* bit k: full_at[k] was read (else the limit is c's own) */
    ttft_tpot__tally finished; /* every request finished since init: the live exposition (never cleared) */
    ttft_tpot__tally folded;   /* the finished requests folded out of the table since the last clear */
    uint64_t refused_cleared, dropped_cleared; /* the request losses of the intervals cleared (publish) */
    unsigned request_window;   /* config.request_window */
    char model_label[272];      /* model_name="..." (config.model_name, escaped), or "" */
    uint64_t le_ns[3][TTFT_TPOT_BUCKETS_MAX]; /* each bucket table's bounds in ns (TTFT_TPOT__LE_*), */
    size_t le_n[3];                           /* read once at init: what folding a request compares */
    int buckets;                              /* config.buckets */
};

/* Bytes of storage init needs for cfg (NULL: defaults); 0 when the sizes overflow. */
TTFT_TPOT_DEF size_t ttft_tpot_bytes_needed(const ttft_tpot_config *cfg);

/* Set up c from cfg (NULL: defaults). Storage is cfg->buffer when given, else one allocation; recording
   never allocates (with cfg->grow, ttft_tpot_trace_read may: parts it outgrows move to allocations of
   their own). A capacity or max_phases of 0 means the default (there is no empty collector). The key of
   the name and id indexes is drawn here (HASHING, above).
   Returns OK; EINVAL (c NULL, capacity over UINT32_MAX, max_phases over 65535, hist_slots over
   max_phases, percentiles, model_name or buckets invalid); ENOMEM (allocation failed or buffer smaller than ttft_tpot_bytes_needed). On error c is
   zeroed, safe to free. The collector starts enabled. A zeroed collector (never set up, or freed)
   records nothing and reports empty; ttft_tpot_phase, trace_read and merge into it return EINVAL. */
TTFT_TPOT_DEF int ttft_tpot_init(ttft_tpot *c, const ttft_tpot_config *cfg);

/* Release what init (and a growing trace_read) allocated; c is zeroed. NULL or an already freed collector: nothing happens. */
TTFT_TPOT_DEF void ttft_tpot_free(ttft_tpot *c);

/* Empty c for a new interval: samples, histograms, requests and every count of what was lost go;
   phases, their roles, their first-call state and the shapes seen stay (warmup is once per process),
   and so do the finished requests' figures of a live exposition (ttft_tpot_publish counts them).
   NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_clear(ttft_tpot *c);

/* Add src's samples, histograms and requests to dst, phases matched by name (added to dst when new),
   for per-thread collectors reported together. A phase's first call is warmup once in the merged
   whole: src's first call of a phase dst had called before becomes steady (unless it was warmup for
   another reason too: a warmup section, a new shape); merge order is call order. All or nothing: EINVAL (NULL, dst == src,
   or their config.buckets differ), EROLE (a
   name has another role in dst), EPHASE (dst's phase table is full), EREQUEST (a request id is in
   both), EFULL (dst's request tables cannot hold src's requests, or a histogram would pass 2^63
   values or tokens), ENOMEM (no histogram slot for a bounded phase, or no memory). Samples past dst's
   capacity are counted as dropped. */
TTFT_TPOT_DEF int ttft_tpot_merge(ttft_tpot *dst, const ttft_tpot *src);

/* Turn recording on (nonzero) or off. Off: spans record nothing and read no clock. NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_enable(ttft_tpot *c, int on);

/* Begin a run: the samples recorded from now on, until the next run begins, are one run of a repeated
   generation, reported one by one and across runs (mean, sd, CV of steady TTFT p50, TPOT p50 and
   output throughput). Samples before the first run belong to none (a warmup run, say). A trace read
   (ttft_tpot_trace_read) and a merge end the last run before their samples and after them: the runs
   of each trace are its own, and samples of a trace without runs belong to none. OK (also when
   disabled: nothing is marked); EINVAL (c NULL); EFULL (TTFT_TPOT_MAX_RUNS runs already: not marked,
   counted in runs_dropped, its samples join the last run while it has not ended). */
TTFT_TPOT_DEF int ttft_tpot_run_begin(ttft_tpot *c);

/* ---- Recording ------------------------------------------------------------------------------- */

/* Recording has one begin (ttft_tpot_span_begin), one end (ttft_tpot_span_end) and setters between
   them, in any order, for what a sample carries beside its phase and duration:
     ttft_tpot_span_set_tokens    the tokens it produced (unset: the phase's default, 1 for prefill and
                                  decode, 0 for kernel and e2e);
     ttft_tpot_span_set_prompt    the prompt tokens a prefill-role sample processed (the prefill rate);
     ttft_tpot_span_set_shape     the shape key it ran with (the first sample of each (phase, key) is
                                  warmup, as graph capture or compilation happens once per shape);
     ttft_tpot_span_set_duration  a duration measured elsewhere (a device timer), recorded instead of
                                  the time since begin;
     ttft_tpot_span_set_start     where it starts, for a span begun with ttft_tpot_span_begin_at (a
                                  binding that reads the clock itself: ttft_tpot_clock_now).
   Every other way to record is a thin wrapper over these three calls, kept for the code that uses it:
   ttft_tpot_record (duration, tokens), _record_shape (+ shape), _record_prompt (+ prompt), _record_ms
   (a duration in ms, see ttft_tpot_ms_to_ns), ttft_tpot_span_begin_shape (begin + shape),
   _span_end_tokens (tokens + end), _span_end_prompt (tokens + prompt + end), and the macros
   TTFT_TPOT_SPAN_BEGIN[_SHAPE], TTFT_TPOT_SPAN_END[_TOKENS|_PROMPT] and TTFT_TPOT_TIME. */

/* A span in flight. Zero-initialised means "never begun". The setters fill the fields after state. */
typedef struct ttft_tpot_span {
    ttft_tpot *c;
    uint64_t start;
    int phase;
    int state; /* 0 never begun, 1 running, 2 disabled (records nothing), 3 ended */
    uint64_t tokens, shape, dur; /* tokens TTFT_TPOT__DEFAULT_TOKENS, shape TTFT_TPOT_NO_SHAPE: unset */
    uint32_t prompt;
    unsigned char has_prompt, has_dur;
    unsigned char device; /* ttft_tpot_span_set_device: the end opens a ticket */
    unsigned char nvtx;   /* an NVTX range was pushed at its begin (TTFT_TPOT_NVTX) */
    uint32_t stream;
    uint32_t sequences;   /* ttft_tpot_span_set_sequences; 0 unset: one token a sequence */
    uint64_t ticket;      /* after the end: its device ticket, 0 none (ttft_tpot_span_ticket) */
} ttft_tpot_span;

#define TTFT_TPOT__DEFAULT_TOKENS ((uint64_t)1 << 32) /* push: use the phase's default count */

/* Everything the inline path leaves: unknown phases, a phase's first call, full storage, start
   times, warmup samples of bounded phases. */
TTFT_TPOT_DEF int ttft_tpot__push_slow(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                       int new_shape);

/* The collector's clock; the platform clock inline where <time.h> declares CLOCK_MONOTONIC (a strict
   -std=c99 file without _POSIX_C_SOURCE calls ttft_tpot_now instead). */
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
    return ttft_tpot_now();
#endif
}

/* Record one sample. The first call of a phase, and any call inside a warmup section, is warmup;
   a bounded phase's steady samples go to its histogram. The common cases stay inline: a called
   exact phase with room (one comparison decides: fast_cap is 0 until the first call), and a steady
   sample of a bounded phase. */
static inline int ttft_tpot__push(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                  int new_shape)
{
    if ((unsigned)phase < c->phase.n) {
        ttft_tpot__phase_slot *p = &c->phase.slots[phase];
        uint16_t warm = (uint16_t)(c->warm_all | new_shape); /* not fresh: fresh phases go slow */
        uint32_t tokens = count == TTFT_TPOT__DEFAULT_TOKENS ? p->default_tokens : (uint32_t)count;
        if (c->store.n < p->fast_cap) {
            ttft_tpot__store_put(&c->store, c->store.n++, phase, dur, tokens, warm);
            return TTFT_TPOT_OK;
        }
        if (p->hist && !warm && !p->fresh) {
            ttft_tpot__hist_add(p->hist, dur, tokens);
            return TTFT_TPOT_OK;
        }
    }
    return ttft_tpot__push_slow(c, phase, start, dur, count, new_shape);
}

/* The shape key of a sample without a shape: the one key a shape cannot have. */
#define TTFT_TPOT_NO_SHAPE UINT64_MAX

/* Whether (phase, key) is new, remembering it: out of line, since it looks up a table. */
TTFT_TPOT_DEF int ttft_tpot__shape_first(ttft_tpot *c, int *phase, uint64_t key);

/* A prefill sample that carries its prompt tokens: out of line. */
TTFT_TPOT_DEF int ttft_tpot__push_prompt(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                         uint32_t prompt, int new_shape);

/* A span that carries a prompt or sequences, or waits for device time: out of line. Returns its
   device ticket (0: none), or a negative error. */
TTFT_TPOT_DEF int64_t ttft_tpot__push_ext(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                          int has_prompt, uint32_t prompt, int device, uint32_t stream,
                                          uint32_t sequences, int new_shape);

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

/* Begin a span of phase: reads the clock. With c NULL or disabled the span is inert: no clock read,
   the setters and end record nothing. */
static inline ttft_tpot_span ttft_tpot_span_begin(ttft_tpot *c, int phase)
{
    return ttft_tpot__span_open(c, phase, 1);
}

/* Begin a span of phase that started at start_ns on c's clock (0: unknown), reading no clock: for a
   binding that reads the clock itself, or a start known elsewhere. Inert as ttft_tpot_span_begin. */
static inline ttft_tpot_span ttft_tpot_span_begin_at(ttft_tpot *c, int phase, uint64_t start_ns)
{
    ttft_tpot_span s = ttft_tpot__span_open(c, phase, 0);
    if (s.state == 1)
        s.start = start_ns;
    return s;
}

/* c's clock now: its config.clock, else the platform clock (ttft_tpot_now for c NULL). The time a
   request event's _at form or ttft_tpot_span_begin_at takes. */
static inline uint64_t ttft_tpot_clock_now(const ttft_tpot *c)
{
    return c ? ttft_tpot__clock(c) : ttft_tpot_now();
}

/* The setters (see "Recording has one begin" above). Each may be called any number of times before
   the end (the last value counts); on a NULL span they do nothing. A prompt is checked at the end. */
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

/* Where the span starts on c's clock, when it is known only after the begin (a running span: an inert
   or ended one keeps nothing). Without a duration set, the end records the time since it. */
static inline void ttft_tpot_span_set_start(ttft_tpot_span *s, uint64_t start_ns)
{
    if (s && s->state == 1)
        s->start = start_ns;
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
   kept, its TPOT its step time, and counted (ttft_tpot_counts.sequences_lost). */
static inline void ttft_tpot_span_set_sequences(ttft_tpot_span *s, uint32_t sequences)
{
    if (s)
        s->sequences = sequences;
}

/* The device part of this span comes later, on stream (the driver's number for a device queue: a
   track of its own in the Chrome trace): its end opens a ticket (ttft_tpot_span_ticket) that the
   driver resolves with the device's timestamps (Device time, above). */
static inline void ttft_tpot_span_set_device(ttft_tpot_span *s, uint32_t stream)
{
    if (s) {
        s->device = 1;
        s->stream = stream;
    }
}

/* After the end: the span's device ticket; 0 when it has none (not set_device, inert, not kept, or
   no room: counted as device_unresolved). */
static inline uint64_t ttft_tpot_span_ticket(const ttft_tpot_span *s)
{
    return s ? s->ticket : 0;
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

/* End a span, recording its duration (the time since begin, or the duration set) with what was set.
   Returns OK (also for an inert span, and past the storage, in the phase's histogram), EINVAL (s
   NULL), ESTATE (never begun, or ended twice: counted as rejected when the collector is known),
   EPHASE (unknown phase), EROLE (a prompt on a phase that is not prefill-role), EINVAL (a prompt of
   0 tokens), all three counted as rejected, or EFULL (kept nowhere: no histogram slot left, or a
   warmup sample past the reserve; counted as dropped). A clock that steps back records 0 ns. */
static inline int ttft_tpot_span_end(ttft_tpot_span *s)
{
    uint64_t dur;
    int first = 0, phase, rc;
    if (!ttft_tpot__span_close(s, &rc))
        return rc;
    dur = s->dur;
    if (!s->has_dur) {
        uint64_t now = ttft_tpot__clock(s->c);
        dur = now < s->start ? 0 : now - s->start;
    }
    phase = s->phase; /* a local: the span's address never escapes, so it stays in registers */
    if (s->shape != TTFT_TPOT_NO_SHAPE)
        first = ttft_tpot__shape_first(s->c, &phase, s->shape); /* may pick its row */
    if (s->has_prompt | s->device | (s->sequences != 0)) {
        int64_t r = ttft_tpot__push_ext(s->c, phase, s->start, dur, s->tokens, s->has_prompt, s->prompt, s->device,
                                        s->stream, s->sequences, first); /* by value: its address never escapes */
        s->ticket = r > 0 ? (uint64_t)r : 0;
        return r < 0 ? (int)r : TTFT_TPOT_OK;
    }
    return ttft_tpot__push(s->c, phase, s->start, dur, s->tokens, first);
}

/* End a span without recording it: a step abandoned on an error path. Nothing is kept, and the span
   no longer counts as open. Returns OK (also for an inert span), EINVAL (s NULL) or ESTATE (never
   begun, or ended: counted as rejected when the collector is known). */
static inline int ttft_tpot_span_cancel(ttft_tpot_span *s)
{
    int rc;
    return ttft_tpot__span_close(s, &rc) ? TTFT_TPOT_OK : rc;
}

/* ---- Recording: the wrappers ---- */

/* begin + set_shape. */
static inline ttft_tpot_span ttft_tpot_span_begin_shape(ttft_tpot *c, int phase, uint64_t key)
{
    ttft_tpot_span s = ttft_tpot_span_begin(c, phase);
    ttft_tpot_span_set_shape(&s, key);
    return s;
}

/* set_tokens + end. */
static inline int ttft_tpot_span_end_tokens(ttft_tpot_span *s, uint32_t tokens)
{
    ttft_tpot_span_set_tokens(s, tokens);
    return ttft_tpot_span_end(s);
}

/* set_tokens + set_prompt + end. */
static inline int ttft_tpot_span_end_prompt(ttft_tpot_span *s, uint32_t tokens, uint32_t prompt_tokens)
{
    ttft_tpot_span_set_tokens(s, tokens);
    ttft_tpot_span_set_prompt(s, prompt_tokens);
    return ttft_tpot_span_end(s);
}

/* A duration measured elsewhere, in ns, with tokens, a shape key (TTFT_TPOT_NO_SHAPE: none) and a
   prompt (has_prompt): an untimed span with those set, ended. EINVAL when c is NULL; otherwise what
   ttft_tpot_span_end returns (OK when disabled: nothing recorded). */
static inline int ttft_tpot__record_with(ttft_tpot *c, int phase, uint64_t key, uint64_t dur_ns, uint32_t tokens,
                                         int has_prompt, uint32_t prompt)
{
    ttft_tpot_span s;
    if (!c)
        return TTFT_TPOT_EINVAL;
    s = ttft_tpot__span_open(c, phase, 0);
    ttft_tpot_span_set_shape(&s, key);
    ttft_tpot_span_set_tokens(&s, tokens);
    ttft_tpot_span_set_duration(&s, dur_ns);
    if (has_prompt)
        ttft_tpot_span_set_prompt(&s, prompt);
    return ttft_tpot_span_end(&s);
}

/* A duration measured elsewhere (a device event timer), in ns, with its shape key and tokens.
   EINVAL (c NULL), or what ttft_tpot_span_end returns. */
static inline int ttft_tpot_record_shape(ttft_tpot *c, int phase, uint64_t key, uint64_t dur_ns, uint32_t tokens)
{
    return ttft_tpot__record_with(c, phase, key, dur_ns, tokens, 0, 0);
}

/* ttft_tpot_record_shape without a shape. */
static inline int ttft_tpot_record(ttft_tpot *c, int phase, uint64_t dur_ns, uint32_t tokens)
{
    return ttft_tpot__record_with(c, phase, TTFT_TPOT_NO_SHAPE, dur_ns, tokens, 0, 0);
}

/* ttft_tpot_record with prompt tokens (see ttft_tpot_span_set_prompt). */
static inline int ttft_tpot_record_prompt(ttft_tpot *c, int phase, uint64_t dur_ns, uint32_t tokens,
                                          uint32_t prompt_tokens)
{
    return ttft_tpot__record_with(c, phase, TTFT_TPOT_NO_SHAPE, dur_ns, tokens, 1, prompt_tokens);
}

/* A duration in ms, as device timers give it, to ns: the exact value of the double, rounded to the
   nearest ns (half up), up to 18446744073709.55 ms, the last double below 2^64 ns. OK, or ERANGE when
   ms is negative (-0.0 is 0), NaN, infinite or 2^64 ns or more (*ns untouched); EINVAL (ns NULL). */
TTFT_TPOT_DEF int ttft_tpot_ms_to_ns(double ms, uint64_t *ns);

/* ttft_tpot_record for a duration in ms (ttft_tpot_ms_to_ns). ERANGE when it has no ns (counted as
   rejected); EINVAL (c NULL); otherwise what ttft_tpot_record returns. */
TTFT_TPOT_DEF int ttft_tpot_record_ms(ttft_tpot *c, int phase, double ms, uint32_t tokens);

/* Span macros. BEGIN declares `var` in the enclosing scope; end it exactly once, on the same thread.
   TTFT_TPOT_TIME wraps a statement or block. With TTFT_TPOT_DISABLE they expand to nothing (the
   collector and phase expressions are not evaluated). */
#ifndef TTFT_TPOT_DISABLE
#define TTFT_TPOT_SPAN_BEGIN(var, c, phase) ttft_tpot_span var = ttft_tpot_span_begin((c), (phase))
#define TTFT_TPOT_SPAN_BEGIN_SHAPE(var, c, phase, key) ttft_tpot_span var = ttft_tpot_span_begin_shape((c), (phase), (key))
#define TTFT_TPOT_SPAN_END(var) ((void)ttft_tpot_span_end(&(var)))
#define TTFT_TPOT_SPAN_SET_TOKENS(var, tokens) ttft_tpot_span_set_tokens(&(var), (tokens))
#define TTFT_TPOT_SPAN_SET_PROMPT(var, prompt_tokens) ttft_tpot_span_set_prompt(&(var), (prompt_tokens))
#define TTFT_TPOT_SPAN_SET_SHAPE(var, key) ttft_tpot_span_set_shape(&(var), (key))
#define TTFT_TPOT_SPAN_SET_DURATION(var, dur_ns) ttft_tpot_span_set_duration(&(var), (dur_ns))
#define TTFT_TPOT_SPAN_SET_DEVICE(var, stream) ttft_tpot_span_set_device(&(var), (stream))
#define TTFT_TPOT_SPAN_END_TOKENS(var, tokens) ((void)ttft_tpot_span_end_tokens(&(var), (tokens)))
#define TTFT_TPOT_SPAN_END_PROMPT(var, tokens, prompt_tokens)                                         \
    ((void)ttft_tpot_span_end_prompt(&(var), (tokens), (prompt_tokens)))
#define TTFT_TPOT_TIME(c, phase, tokens, stmt)                                                        \
    do {                                                                                              \
        ttft_tpot_span ttft_tpot__span = ttft_tpot_span_begin((c), (phase));                          \
        stmt;                                                                                         \
        (void)ttft_tpot_span_end_tokens(&ttft_tpot__span, (tokens));                                  \
    } while (0)
#else
#define TTFT_TPOT_SPAN_BEGIN(var, c, phase) ((void)sizeof(c), (void)sizeof(phase))
#define TTFT_TPOT_SPAN_BEGIN_SHAPE(var, c, phase, key) ((void)sizeof(c), (void)sizeof(phase), (void)sizeof(key))
#define TTFT_TPOT_SPAN_END(var) ((void)0)
#define TTFT_TPOT_SPAN_SET_TOKENS(var, tokens) ((void)sizeof(tokens))
#define TTFT_TPOT_SPAN_SET_PROMPT(var, prompt_tokens) ((void)sizeof(prompt_tokens))
#define TTFT_TPOT_SPAN_SET_SHAPE(var, key) ((void)sizeof(key))
#define TTFT_TPOT_SPAN_SET_DURATION(var, dur_ns) ((void)sizeof(dur_ns))
#define TTFT_TPOT_SPAN_SET_DEVICE(var, stream) ((void)sizeof(stream))
#define TTFT_TPOT_SPAN_END_TOKENS(var, tokens) ((void)sizeof(tokens))
#define TTFT_TPOT_SPAN_END_PROMPT(var, tokens, prompt_tokens) ((void)sizeof(tokens), (void)sizeof(prompt_tokens))
#define TTFT_TPOT_TIME(c, phase, tokens, stmt)                                                        \
    do {                                                                                              \
        (void)sizeof(c);                                                                              \
        stmt;                                                                                         \
    } while (0)
#endif

/* ---- Report model ---------------------------------------------------------------------------- */

/* Every figure a report shows is computed once, into a ttft_tpot_model (ttft_tpot_model_compute);
   the writers below and the tools read it and compute nothing. The sets a figure is taken over are
   defined at the top of this file (METRICS) and under Requests. */

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
   phase's samples, or the requests' TTFT in submit order), and its p50 after the cut; whether it has
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
                                              its low end clamped at 0 */
} ttft_tpot_run_figure;
typedef struct ttft_tpot_runs {
    unsigned n;       /* runs marked */
    uint64_t dropped; /* run_begin calls past TTFT_TPOT_MAX_RUNS */
    int bounded;      /* a prefill or decode phase keeps steady samples in a histogram: no run has a figure */
    ttft_tpot_run_figure fig[TTFT_TPOT_RUN_FIGURES];
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
                                           resolutions refused */
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

/* A request metric as a Prometheus histogram: the bucket bounds of its BUCKETS column
   (TTFT_TPOT_METRICS) and how many of its values fall at or below each (TTFT_TPOT_BUCKETS_MAX: the
   bounds of the largest bucket table, above). */
typedef struct ttft_tpot_buckets {
    size_t n;                                  /* bounds */
    const char *const *le;                     /* each bound in seconds, as the exposition prints it */
    uint64_t le_ns[TTFT_TPOT_BUCKETS_MAX];     /* the same in ns */
    uint64_t cumulative[TTFT_TPOT_BUCKETS_MAX]; /* values at or below le_ns[b] (TPOT to a 1/1024 ns) */
    uint64_t count;                            /* every value: the +Inf bucket */
    uint64_t sum_hi, sum_lo;                   /* their 128-bit sum in ns, rounded once */
    int set;                                   /* TTFT_TPOT_BUCKETS_*: whose bounds */
} ttft_tpot_buckets;

/* One slice of a serving run's time (ttft_tpot_model.slices): over the measured requests. */
typedef struct ttft_tpot_slice {
    uint64_t start_ns;    /* from the first measured request's submit */
    uint64_t tokens;      /* delivered in the slice */
    double output_tok_s;  /* tokens / the slice's width */
    uint64_t in_flight;   /* requests in flight (between submit and last token) during some of it */
    uint64_t peak_in_flight; /* the most of them in flight at once in it: the largest is the run's
                                max_concurrent_requests */
    uint64_t submitted;   /* requests submitted in it */
    int has_ttft;         /* submitted > 0 */
    double ttft_p50_ns;   /* the p50 of their TTFT */
} ttft_tpot_slice;

/* What a live exposition has published (ttft_tpot_publish). */
typedef struct ttft_tpot_publisher {
    ttft_tpot_buckets now[TTFT_TPOT_METRIC_COUNT]; /* every request finished, as last published */
    uint64_t requests, tokens; /* request_success_total, generation_tokens_total */
    uint64_t prompt_tokens;    /* prompt_tokens_total */
    int started;               /* published once */
} ttft_tpot_publisher;

/* Everything a collector lost or refused, with the limits it met: the limit that made a loss is the
   recording collector's when the losses came from a trace, so a trace's report names the same sizes as
   the live one. */
typedef struct ttft_tpot_losses {
    uint64_t dropped, rejected, outgrown, shapes_dropped, runs_dropped, spans_open; /* as ttft_tpot_counts */
    uint64_t sequences_lost, sequences_in_histogram; /* steps of several tokens a sequence whose TPOT is
                                                         their step time: no config.sequences; a histogram */
    uint64_t requests_dropped, requests_refused, requests_truncated, events_lost;
    uint64_t events_kept;   /* request events stored */
    uint64_t capacity, max_requests, max_request_events, max_shapes; /* the limits met */
} ttft_tpot_losses;

/* The report model. */
typedef struct ttft_tpot_model {
    const ttft_tpot *collector; /* computed from: its requests (ttft_tpot_request_at), names, sets */
    const ttft_tpot_sample *samples; /* its stored samples in call order, head.samples of them, read in
                                        place: how writers and tools that draw samples read them */
    const uint64_t *starts;     /* their start times; NULL without config.timeline */
    const char *clock_name;     /* "unknown" when none */
    uint64_t clock_read_ns;     /* 0: not measured */
    ttft_tpot_summary head;     /* the headline */
    unsigned phases;
    ttft_tpot_phase_figures *phase; /* [phases], by phase index */
    unsigned *order;                /* the phase indexes in report order: by first stored sample, then
                                       those without one */
    ttft_tpot_runs runs;
    int has_requests;           /* a request was seen, or request events dropped */
    ttft_tpot_requests requests;
    ttft_tpot_steady_state requests_steady_state; /* the requests' TTFT in submit order */
    ttft_tpot_buckets buckets[TTFT_TPOT_METRIC_COUNT]; /* each request metric, for the exposition */
    ttft_tpot_slice *slices;    /* the measured requests over time: [n_slices] of slice_ns each, from the */
    size_t n_slices;            /* first one's submit (a width that would pass 2^20 slices is doubled) */
    uint64_t slice_ns;
    int slices_asked;           /* config.slice_ns was set: the text shows them */
    ttft_tpot_slo slo;
    ttft_tpot_losses losses;
    ttft_tpot_device_figures device;
    unsigned skipped; /* the parts left out (ttft_tpot_model_options.skip) */
    void *alloc_user; /* private: how phase and order were allocated */
} ttft_tpot_model;

/* What ttft_tpot_model_compute leaves out (its fields stay 0): TTFT_TPOT_SKIP_* ORed. */
enum { TTFT_TPOT_SKIP_REQUESTS = 1, /* requests, requests_steady_state and buckets */
       TTFT_TPOT_SKIP_SHARES = 2,   /* each kernel's decode_share */
       TTFT_TPOT_SKIP_SAMPLES = 4 }; /* head, the phases' figures (not their names) and runs */
typedef struct ttft_tpot_model_options {
    unsigned skip;
} ttft_tpot_model_options;

/* Compute every figure of c into *m (options NULL: all of them): O(n) time in the stored samples and
   the request events, and temporary memory of 8 bytes each. m reads c's names and samples: free it
   with ttft_tpot_model_free before c. OK; EINVAL (c or m NULL); ENOMEM (m is then zeroed). */
TTFT_TPOT_DEF int ttft_tpot_model_compute(const ttft_tpot *c, const ttft_tpot_model_options *options,
                                          ttft_tpot_model *m);
/* Release what ttft_tpot_model_compute allocated; m is zeroed. NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_model_free(ttft_tpot_model *m);

/* The values behind a distribution, for tools that draw or compare one: a set is a request metric
   (TTFT_TPOT_METRIC_*, its values as ttft_tpot_metric_values gives them), the steady stored samples
   of a role (TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_*: prefill's are steady TTFT, decode's TPOT), or
   those of a phase (TTFT_TPOT_SET_PHASE + its index). A bounded phase's histogram holds no sample:
   its figures count more than a set of stored samples has. */
enum { TTFT_TPOT_SET_ROLE = 64, TTFT_TPOT_SET_PHASE = 128 };

/* ---- Writers (text, JSON, Prometheus) -------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* -- Writers: the text and JSON reports -------------------------------------------------------- */

/* The text report and the JSON report (schema ttft_tpot/v1). Every figure is computed before the first
   byte is written: ENOMEM writes nothing. EINVAL (NULL: nothing written), EIO (the stream reports a
   write error: what reached it is unspecified). The text leads with what the run is for: a serving
   run (measured requests) with the per-request figures, then the driver's own steps; a single-stream
   run with TTFT, TPOT and throughput. A row whose source is absent (no prefill-, decode- or e2e-role
   sample, a request metric without a value) is left out, and an empty collector says "Nothing to
   report"; JSON keeps every key, null. A figure whose source exists but cannot be computed is n/a
   with the reason, never 0. */
TTFT_TPOT_DEF int ttft_tpot_report(const ttft_tpot *c, FILE *out);
TTFT_TPOT_DEF int ttft_tpot_report_json(const ttft_tpot *c, FILE *out);

/* The same from a model: what a tool that writes several outputs calls, computing the model once.
   EINVAL also for a model computed without requests or samples (TTFT_TPOT_SKIP_*). */
TTFT_TPOT_DEF int ttft_tpot_model_report(const ttft_tpot_model *m, FILE *out);
TTFT_TPOT_DEF int ttft_tpot_model_report_json(const ttft_tpot_model *m, FILE *out);

/* -- Writers: Prometheus ----------------------------------------------------------------------- */

/* Prometheus text exposition (format 0.0.4, OpenMetrics-compatible) of the measured requests:
   histograms of TTFT, TPOT, ITL and E2E latency, counters of requests, of prompt tokens (those given
   ttft_tpot_request_prompt) and generation tokens, of
   requests refused at submit (request_refused_total: the request table was full) and dropped
   (request_dropped_total: refused, or truncated), and vLLM's gauges of the requests in flight
   (num_requests_waiting: submitted, neither scheduled nor given a token; num_requests_running:
   scheduled or given a token, not finished). With config.model_name, every series carries the label
   model_name="NAME", as vLLM's own do and its dashboards' queries filter on.
   prefix NULL gives vLLM's names ("vllm:time_to_first_token_seconds", ...), which Prometheus
   accepts though promtool's lint prefers names without ':'; another prefix replaces "vllm:", joined
   with '_' unless it ends in '_' or ':' ("llm" and "llm_" both give "llm_time_to_..."). The buckets:
   vLLM's bounds and the E12 series from 100 us to 680 s, at most 25% apart up to 10 min (so a
   histogram_quantile is within 25% of the value at its rank; README: Fleets). labels (NULL or e.g. "model_name=\"qwen3\"") go on every series: name="value" pairs
   joined by ',', names [a-zA-Z_][a-zA-Z0-9_]* each once, not "le" and not starting "__"; values
   UTF-8 with \\, \" and \n their only escapes, no raw newline, no braces; at most 500 bytes with the
   model_name label, which they cannot name again.
   EINVAL (c or out NULL, prefix not [a-zA-Z_:][a-zA-Z0-9_:]*, labels otherwise: nothing written),
   ENOMEM (nothing written), EIO. The bucket bounds: examples/README.md, Serving metrics. */
TTFT_TPOT_DEF int ttft_tpot_prometheus(const ttft_tpot *c, FILE *out, const char *prefix, const char *labels);

/* The same from a model (EINVAL also for one computed without requests). */
TTFT_TPOT_DEF int ttft_tpot_model_prometheus(const ttft_tpot_model *m, FILE *out, const char *prefix,
                                             const char *labels);

/* A live exposition, published while the collector runs (a scrape, a textfile collector): the
   requests finished so far (ttft_tpot_request_finish), measured as the reports measure them, their
   histograms and counters as ttft_tpot_prometheus writes them, cumulative over every publication of
   this publisher: they never go backwards, also across ttft_tpot_clear (a request that finished
   before a clear is counted whenever it is published), so rate() and increase() work.
   Zero-initialise it (about 15 KiB) before the first publication; one publisher a collector. Each
   publication costs O(buckets + requests in the table), whatever the number served: a finished
   request was folded into the collector's cumulative histograms once, when it finished. The
   device figures are not published live. publish: into out; EINVAL as ttft_tpot_prometheus (nothing
   written, nothing counted), ENOMEM, EIO. publish_file: the same into path, atomically: written to
   "PATH.tmp-PID-ADDRESS" (this process and publisher's own, so publishers on one path never touch
   each other's), then renamed over path, so a reader sees the last whole exposition (node_exporter's
   textfile collector reads only files ending in .prom); the temporary file is created exclusively (a
   link planted there is removed, not followed). EPATH, nothing written: path exists and is not a
   regular file (a FIFO, a device, a link: never replaced), or is too long for the temporary name. */
TTFT_TPOT_DEF int ttft_tpot_publish(const ttft_tpot *c, ttft_tpot_publisher *p, FILE *out, const char *prefix,
                                    const char *labels);
TTFT_TPOT_DEF int ttft_tpot_publish_file(const ttft_tpot *c, ttft_tpot_publisher *p, const char *path,
                                         const char *prefix, const char *labels);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Trace I/O ------------------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* Trace format v1 (CSV): "phase,role,start_ns,dur_ns,tokens,warmup", one line a sample in call order,
   then the request events. What samples cannot say travels in directive lines, which a reader that
   does not know them takes for comments: "# clock:", "# run:" and "# run: end" (where a run begins,
   and where one ends before the next begins), "# phase:" (the phase table, in order),
   "# hist:" (a bounded phase's histogram), "# prompt:" (a prefill phase's prompt-token sums),
   "# truncated:" (a request whose events did not all fit), "# folded:" and "# folded_metric:" (the
   requests folded out of the table: counts, then each metric's buckets), "# finish_reason:" (why a
   finished request finished: REASON,ID), "# finished:" (a request finished:
   ttft_tpot_request_finish), "# prompt_tokens:" (a request's, ttft_tpot_request_prompt), "# sequences:"
   (the sequences of the
   decode step on the line above: ttft_tpot_span_set_sequences), "# device:" (a device interval, its
   sample counted among the trace's sample lines), "# device_queued:" (the runtime's queued stamp of
   the interval above it), "# device_lost:" and "# counts:" (dropped, rejected,
   shapes_dropped, requests_dropped, requests_refused, events_lost, runs_dropped, outgrown, and the
   limits they met). So the report of a trace equals the live report, except for the SLOs and the
   prefill-kernel link, which a trace does not carry (man ttft_tpot_report: TRACE FORMAT).
   write: every stored sample (start_ns 0 without config.timeline) and the directives; EINVAL (nothing
   written), EIO (what reached the stream is unspecified). It writes through a 256 KiB block from the
   allocator, or through 16 KiB on its stack when that allocation fails: it never fails for memory.
   ttft_tpot_trace_read (ttft_tpot_tools.h) reads one back. */
TTFT_TPOT_DEF int ttft_tpot_trace_write(const ttft_tpot *c, FILE *out);

#endif /* TTFT_TPOT_NO_STDIO */

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
#include <unistd.h> /* getpid, for the hash key and the publisher's temporary file */
#define TTFT_TPOT__PID() ((uint64_t)getpid())
#ifndef TTFT_TPOT_NO_STDIO
#include <sys/stat.h> /* what publish_file would replace */
#endif
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

#ifdef __cplusplus
extern "C" {
#endif

#define TTFT_TPOT__DEFAULT_CAPACITY 65536u
#define TTFT_TPOT__DEFAULT_DEVICE 65536u /* intervals: a few hundred steps of a real model's kernels */
#define TTFT_TPOT__DEFAULT_PHASES 64u
#define TTFT_TPOT__TWO64 18446744073709551616.0

/* Statistics the report computes with, defined here; programs find them in ttft_tpot_tools.h. */
TTFT_TPOT_DEF int ttft_tpot_ci95_ranks(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi);
TTFT_TPOT_DEF uint64_t ttft_tpot_ci95_min_n(unsigned p);
TTFT_TPOT_DEF double ttft_tpot_t975(uint64_t df);
TTFT_TPOT_DEF int ttft_tpot_sort(uint64_t *v, size_t n, uint64_t *tmp);
TTFT_TPOT_DEF const char *ttft_tpot_percentile_name(char *buf, size_t len, uint32_t pm);

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

TTFT_TPOT_DEF uint64_t ttft_tpot_now(void)
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

static int ttft_tpot__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The median cost of one read of the platform clock: 255 back-to-back reads. */
static uint64_t ttft_tpot__clock_cost(void)
{
    uint64_t t[256], prev = ttft_tpot_now();
    int i;
    for (i = 0; i < 255; i++) {
        uint64_t now = ttft_tpot_now();
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

/* A plain decimal at s, digits with at most `places` of them after a '.', read as an integer scaled
   by 10^places ("1.5" with 6 places: 1500000): no sign, exponent, hex, inf or nan, and no locale.
   Returns the characters read, 0 when s does not start with one or it passes UINT64_MAX. */
static size_t ttft_tpot__decimal(const char *s, unsigned places, uint64_t *out)
{
    size_t i = 0;
    unsigned frac = 0;
    int dot = 0;
    uint64_t v = 0;
    for (;; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (s[i] == '.' && !dot && i > 0) {
            dot = 1;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            break;
        if ((dot && ++frac > places) || v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (i == 0 || s[i - 1] == '.')
        return 0;
    for (; frac < places; frac++) {
        if (v > UINT64_MAX / 10)
            return 0;
        v *= 10;
    }
    *out = v;
    return i;
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

#define TTFT_TPOT__ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
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

/* Where name sits in an index of mask + 1 slots (entry + 1 each, 0 empty) over a table of names
   (stride bytes apart): its slot, or the empty slot that ends its probe. The index is at most half
   full, so a probe ends; under a secret key it takes 1.5 slots on average (HASHING, above). */
static uint32_t ttft_tpot__probe_h(const uint32_t *index, uint32_t mask, const char *names, size_t stride,
                                   const char *name, size_t len, uint64_t h)
{
    uint32_t i = (uint32_t)h & mask, tag = TTFT_TPOT__IDX_TAG(h);
    for (; index[i]; i = (i + 1) & mask) {
        const char *have = names + (size_t)((index[i] & TTFT_TPOT__IDX_NUM) - 1) * stride;
        if ((index[i] & ~TTFT_TPOT__IDX_NUM) == tag && memcmp(have, name, len) == 0 && have[len] == '\0')
            break;
    }
    return i;
}

static uint32_t ttft_tpot__probe(const ttft_tpot *c, const uint32_t *index, uint32_t mask, const char *names,
                                 size_t stride, const char *name, size_t len)
{
    return ttft_tpot__probe_h(index, mask, names, stride, name, len, ttft_tpot__hash(c, name, len));
}

/* Entry k of the table of names into its index (one hash for its slot and its tag). */
static void ttft_tpot__index_put(const ttft_tpot *c, uint32_t *index, uint32_t mask, const char *names, size_t stride,
                                 unsigned k)
{
    const char *name = names + (size_t)k * stride;
    size_t len = strlen(name);
    uint64_t h = ttft_tpot__hash(c, name, len);
    index[ttft_tpot__probe_h(index, mask, names, stride, name, len, h)] = (k + 1) | TTFT_TPOT__IDX_TAG(h);
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

TTFT_TPOT_DEF uint64_t ttft_tpot_ci95_min_n(unsigned p)
{
    uint64_t n, lo, hi;
    for (n = 1; p > 0 && p < 100 && n < 100000; n++)
        if (ttft_tpot_ci95_ranks(n, p, &lo, &hi))
            return n;
    return 0;
}

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

/* The values at ranks rank[0, nr) (ascending) of a large set x[0, n) (or in the store: in), narrowed:
   slot[] (its values' bucket counts) tells the bucket of every rank; the values of those buckets are
   swapped (or copied) to the front of x, and selection runs over them alone, each rank shifted down by
   the values of the buckets left out below it. mark: TTFT_TPOT__FINE_BUCKETS bytes, all 0. */
static void ttft_tpot__narrowed_ranks(uint64_t *x, size_t n, const ttft_tpot__in_store *in, const uint32_t *slot,
                                      unsigned char *mark, const uint64_t *rank, size_t nr, uint64_t *val)
{
    uint64_t shifted[TTFT_TPOT__MAX_RANKS];
    unsigned kept[TTFT_TPOT__MAX_RANKS], nk = 0;
    size_t m;
    ttft_tpot__kept_add(slot, rank, nr, kept, &nk);
    ttft_tpot__shift_ranks(slot, kept, nk, rank, nr, shifted);
    ttft_tpot__mark_kept(mark, kept, nk, 1);
    m = ttft_tpot__front_of(in, x, n, mark);
    ttft_tpot__mark_kept(mark, kept, nk, 0);
    ttft_tpot__select_ranks(x, m, shifted, nr, val);
}

static const unsigned ttft_tpot__ci_pcts[3] = {50, 90, 99};

/* Scratch of the exact statistics: fine bucket counters and marks; and the percentiles chosen
   (config.percentiles), which every set computes. */
typedef struct ttft_tpot__narrow {
    uint32_t *slot;
    unsigned char *mark; /* all 0 between uses */
    const uint32_t *pick_pm;
    unsigned pick_n;
} ttft_tpot__narrow;

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
    if (slot)
        ttft_tpot__narrowed_ranks(x, n, NULL, slot, nw->mark, rk.rank, rk.nr, rk.val);
    else
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

/* The statistics of a large phase's steady values (m - warm of them; s: their scan, slot: their bucket
   counts) into steady, and with its warm ones x[m - warm, m) into st, narrowed in one pass for both: the
   buckets of both sets' ranks are moved to the front of x, the steady values first, then the warm
   ones, and each set selects its ranks there. The steady values are x[0, m - warm), or (in) still in
   the store. s and slot take in the warm values; x is reordered. */
static void ttft_tpot__finish_both(const ttft_tpot__in_store *in, uint64_t *x, size_t m, size_t warm,
                                   ttft_tpot__scan *s, uint32_t *slot, const ttft_tpot__narrow *nw,
                                   ttft_tpot_stats *steady, ttft_tpot_stats *st)
{
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
   consecutive batches of 5 values (Z_j = sum_j / 5; the argmin does not depend on the scale). For
   d = 0 .. m/2, MSER(d) = sum over j > d of (Z_j - mean of Z_{d+1..m})^2 / (m - d)^2; returns the
   smallest minimiser d*, in batches. The tail's sums are kept from the last batch back, as deviations
   from the last batch (so little cancels), and compared without dividing: with k batches in the
   tail, MSER = (k S2 - S1^2) / k^3. *white: White's rule, the minimiser over every cut that leaves 5
   batches or more, where it lies in the second half (the series may keep rising or falling); else 0. */
static uint64_t ttft_tpot__mser5_cuts(const uint64_t *sum, uint64_t m, uint64_t *white)
{
    double s1 = 0, s2 = 0, best = 0, best_k3 = 1, all = 0, all_k3 = 1, shift = m ? (double)sum[m - 1] : 0;
    uint64_t d, k = 0, at = 0, at_all = 0;
    for (d = m; d-- > 0;) { /* the tail Z_{d+1..m} in 1-based terms is sum[d .. m) */
        double z = (double)sum[d] - shift, kk, num;
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
        if (k >= 5 && (k == 5 || num * all_k3 <= all * kk * kk * kk)) {
            all = num;
            all_k3 = kk * kk * kk;
            at_all = d;
        }
    }
    *white = k >= 5 && at_all > m / 2 ? at_all : 0;
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
    if (narrow)
        ttft_tpot__narrowed_ranks(x, n, NULL, nw->slot, nw->mark, rank, 2, val);
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
    uint64_t *sum, m;
} ttft_tpot__spotter;

static void ttft_tpot__spot_start(ttft_tpot__spotter *sp, uint64_t p50, uint64_t *sum, uint64_t m)
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
    if (at / 5 < sp->m && sp->sum[at / 5] != UINT64_MAX) /* not saturated: the sum holds v */
        sp->sum[at / 5] = sp->sum[at / 5] - sp->v + sp->p50;
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
static void ttft_tpot__finish_set(const ttft_tpot *c, ttft_tpot__work *w, uint64_t *x, size_t m, int phase,
                                  int role, ttft_tpot_stats *st)
{
    size_t i;
    if (!ttft_tpot__set_hists(c, w, phase, role)) {
        ttft_tpot__fill(x, m, &w->nw, st);
        return;
    }
    st->tokens += w->h->tokens;
    for (i = 0; i < m; i++)
        ttft_tpot__hist_add(w->h, x[i], 0);
    ttft_tpot__hist_fill(w->h, &w->nw, st);
}

/* ---- Phases and warmup ----------------------------------------------------------------------- */

/* The roles' names (a trace's request rows take theirs from TTFT_TPOT_POINTS). */
static const char *const ttft_tpot__roles[4] = {"prefill", "decode", "kernel", "e2e"};

TTFT_TPOT_DEF const char *ttft_tpot_role_name(int role)
{
    return role >= 0 && role < 4 ? ttft_tpot__roles[role] : "?";
}

static int ttft_tpot__lookup(const ttft_tpot *c, const char *name, size_t len)
{
    uint32_t i = ttft_tpot__probe(c, c->phase.index, c->phase.mask, c->phase.slots[0].name,
                                  sizeof(ttft_tpot__phase_slot), name, len);
    return c->phase.index[i] ? (int)(c->phase.index[i] & TTFT_TPOT__IDX_NUM) - 1 : TTFT_TPOT_EPHASE;
}

/* Index phases [from, n): after an add, or to rebuild the index after a rollback. */
static void ttft_tpot__phase_index(ttft_tpot *c, unsigned from)
{
    unsigned p;
    if (from == 0)
        memset(c->phase.index, 0, ((size_t)c->phase.mask + 1) * sizeof *c->phase.index);
    for (p = from; p < c->phase.n; p++)
        ttft_tpot__index_put(c, c->phase.index, c->phase.mask, c->phase.slots[0].name,
                             sizeof(ttft_tpot__phase_slot), p);
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
    ttft_tpot__phase_index(c, c->phase.n++);
    return (int)c->phase.n - 1;
}

/* The phase has been called: its next sample is not a first call, and an exact phase of a collector
   without start times stores inline from now on. */
static void ttft_tpot__phase_called(const ttft_tpot *c, ttft_tpot__phase_slot *p)
{
    p->fresh = 0;
    p->fast_cap = p->hist || c->store.starts || c->store.seqs ? 0 : c->store.capacity;
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

TTFT_TPOT_DEF int ttft_tpot_link_prefill_kernel(ttft_tpot *c, int kernel_phase)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (kernel_phase != -1 && (kernel_phase < 0 || (unsigned)kernel_phase >= c->phase.n))
        return TTFT_TPOT_EPHASE;
    c->prefill_kernel = kernel_phase;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_warmup_begin(ttft_tpot *c)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    c->warmup_depth++;
    c->warm_all = 1;
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

/* ---- Requests -------------------------------------------------------------------------------- */

/* The request's time points' table (TTFT_TPOT_POINTS), expanded once; the code that reads or sets a
   point, or checks their order, expands the table in place (each point's field by name, no loop
   over an offset: a token event is on the request path). */
enum { TTFT_TPOT__SET_SUBMIT, TTFT_TPOT__SET_TOKEN, TTFT_TPOT__SET_MARK }; /* how a point is set (SET) */
typedef struct ttft_tpot__point_info {
    int set, now;
    uint32_t tokens, follows;
    const char *role, *csv, *words;
    size_t role_len;
} ttft_tpot__point_info;
#define TTFT_TPOT__POINT_INFO(name, field, set, tokens, follows, now, role, csv, words)                \
    {TTFT_TPOT__SET_##set, TTFT_TPOT_POINT_##now, tokens, follows, role, csv, words, sizeof(role) - 1},
static const ttft_tpot__point_info ttft_tpot__points[TTFT_TPOT_POINT_COUNT] = {
    TTFT_TPOT_POINTS(TTFT_TPOT__POINT_INFO)};
#undef TTFT_TPOT__POINT_INFO

static int ttft_tpot__has(const ttft_tpot_request *q, int p)
{
    return (int)(q->points >> p & 1u);
}

/* The time of point p of q (0 where q has none). */
static uint64_t ttft_tpot__point_ns(const ttft_tpot_request *q, int p)
{
    switch (p) {
#define TTFT_TPOT__POINT_GET(name, field, set, tokens, follows, now, role, csv, words)                 \
    case TTFT_TPOT_POINT_##name:                                                                      \
        return q->field;
        TTFT_TPOT_POINTS(TTFT_TPOT__POINT_GET)
#undef TTFT_TPOT__POINT_GET
    }
    return 0;
}

/* The points in bits set to t (unset: to 0, as a request without them holds). */
static void ttft_tpot__set_points(ttft_tpot_request *q, uint32_t bits, uint64_t t, int unset)
{
#define TTFT_TPOT__POINT_SET(name, field, set, tokens, follows, now, role, csv, words)                 \
    if (bits & TTFT_TPOT_POINT_BIT(name))                                                             \
        q->field = unset ? 0 : t;
    TTFT_TPOT_POINTS(TTFT_TPOT__POINT_SET)
#undef TTFT_TPOT__POINT_SET
    q->points = unset ? q->points & ~bits : q->points | bits;
}

/* Whether a request of `have` tokens reaches n with k more (n 0: each token event does). */
static int ttft_tpot__reaches(uint64_t have, uint32_t k, uint64_t n)
{
    return !n || (have < n && have + k >= n);
}

/* The points a token event of k tokens sets on q (SET TOKEN: the first to reach its TOKENS, or each
   event with TOKENS 0), as bits. */
static uint32_t ttft_tpot__token_points(const ttft_tpot_request *q, uint32_t k)
{
#define TTFT_TPOT__POINT_BY_TOKENS(name, field, set, count, follows, now, role, csv, words)            \
    | (TTFT_TPOT__SET_##set == TTFT_TPOT__SET_TOKEN && ttft_tpot__reaches(q->tokens, k, count) ? TTFT_TPOT_POINT_BIT(name) : 0u)
    return 0u TTFT_TPOT_POINTS(TTFT_TPOT__POINT_BY_TOKENS);
#undef TTFT_TPOT__POINT_BY_TOKENS
}

/* Whether the points in bits, set at t, keep q's points in their order (FOLLOWS): at or after each
   point of q they follow, at or before each other point of q that follows one of them. */
static int ttft_tpot__in_order(const ttft_tpot_request *q, uint32_t bits, uint64_t t)
{
#define TTFT_TPOT__POINT_AFTER(name, field, set, tokens, follows, now, role, csv, words)               \
    | (bits & TTFT_TPOT_POINT_BIT(name) ? (uint32_t)(follows) : 0u)
#define TTFT_TPOT__POINT_ORDER(name, field, set, tokens, follows, now, role, csv, words)               \
    if ((q->points & TTFT_TPOT_POINT_BIT(name)) &&                                                    \
        (t < q->field ? (after & TTFT_TPOT_POINT_BIT(name)) != 0                                      \
                      : t > q->field && !(bits & TTFT_TPOT_POINT_BIT(name)) && ((uint32_t)(follows) & bits))) \
        return 0;
    uint32_t after = 0u TTFT_TPOT_POINTS(TTFT_TPOT__POINT_AFTER);
    TTFT_TPOT_POINTS(TTFT_TPOT__POINT_ORDER)
    return 1;
#undef TTFT_TPOT__POINT_AFTER
#undef TTFT_TPOT__POINT_ORDER
}

/* The slot of the request named id in the index, or of the empty slot where it would go. */
static uint32_t ttft_tpot__request_slot(const ttft_tpot *c, const char *id, size_t len)
{
    return ttft_tpot__probe(c, c->req.index, c->req.mask, c->req.list[0].id, sizeof(ttft_tpot_request), id, len);
}

/* The number of the request named id, or -1. */
static int ttft_tpot__request_find(const ttft_tpot *c, const char *id, size_t len)
{
    return c->req.max ? (int)(c->req.index[ttft_tpot__request_slot(c, id, len)] & TTFT_TPOT__IDX_NUM) - 1 : -1;
}

static void ttft_tpot__request_index_add(ttft_tpot *c, unsigned r)
{
    ttft_tpot__index_put(c, c->req.index, c->req.mask, c->req.list[0].id, sizeof(ttft_tpot_request), r);
}

/* A new request in the table, which has room, at slot of the index (the empty one that ended its
   probe: ttft_tpot__request_slot): its number. */
static int ttft_tpot__request_new(ttft_tpot *c, const char *id, size_t len, uint64_t t, int warmup, uint32_t slot)
{
    ttft_tpot_request *q = &c->req.list[c->req.n];
    memset(q, 0, sizeof *q);
    memcpy(q->id, id, len);
    q->ev_first = q->ev_last = SIZE_MAX;
    ttft_tpot__set_points(q, TTFT_TPOT_POINT_BIT(SUBMIT), t, 0);
    q->warmup = warmup != 0;
    c->req.index[slot] = (c->req.n + 1) | TTFT_TPOT__IDX_TAG(ttft_tpot__hash(c, id, len)); /* its tag */
    return (int)c->req.n++;
}

#define TTFT_TPOT__ELOG (-100) /* internal: the request is tracked, the event log is full */

/* Record mark p (a point set by a call of its own) of request r at t: OK, or EREQUEST when r is
   finished, has the mark, lacks a point the mark follows, or the mark would break their order. */
static int ttft_tpot__request_mark(ttft_tpot *c, int r, int p, uint64_t t)
{
    ttft_tpot_request *q = &c->req.list[r];
    uint32_t need = ttft_tpot__points[p].follows;
    if (q->finished || ttft_tpot__has(q, p) || (q->points & need) != need || !ttft_tpot__in_order(q, 1u << p, t))
        return TTFT_TPOT_EREQUEST;
    ttft_tpot__set_points(q, 1u << p, t, 0);
    q->scheduled = ttft_tpot__has(q, TTFT_TPOT_POINT_SCHEDULE); /* the flag code written before points reads */
    return TTFT_TPOT_OK;
}

/* A token event of k tokens at t on q: the points it sets (bits from ttft_tpot__token_points), its
   tokens counted. */
static void ttft_tpot__tokens_add(ttft_tpot_request *q, uint32_t bits, uint64_t t, uint32_t k)
{
    ttft_tpot__set_points(q, bits, t, 0);
    q->tokens += k;
    q->token_events++;
}

/* Apply one request event: a submit (point SUBMIT, tokens 0), tokens (point LAST), or a mark (a point
   set by a call of its own: TTFT_TPOT_POINTS), which is kept with the request, not in the log.
   Checked, then stored; nothing counted. *req: the request's number, or -1. EFULL: the request table
   is full (a token for an unknown id once a submit was refused for that is taken as one of the
   requests that could not be tracked); TTFT_TPOT__ELOG: the event log is full, or the request already
   lost an event (a submit still makes its request). slot: the id's slot in the index
   (ttft_tpot__request_slot, UINT32_MAX: found here): one lookup an event. */
static int ttft_tpot__request_event(ttft_tpot *c, const char *id, size_t len, uint64_t t, uint32_t tokens,
                                    int warmup, int point, uint32_t slot, int *req)
{
    ttft_tpot_request *q;
    ttft_tpot__event *ev;
    uint32_t bits = 0;
    int r;
    *req = -1;
    if (len == 0 || len >= TTFT_TPOT_NAME_MAX)
        return TTFT_TPOT_ENAME;
    if (c->req.max) /* an id found is valid: it was checked when added */
        slot = slot == UINT32_MAX ? ttft_tpot__request_slot(c, id, len) : slot;
    *req = r = c->req.max ? (int)(c->req.index[slot] & TTFT_TPOT__IDX_NUM) - 1 : -1;
    if (r < 0 && !ttft_tpot__name_ok(id, len))
        return TTFT_TPOT_ENAME;
    if (ttft_tpot__points[point].set == TTFT_TPOT__SET_MARK && r >= 0)
        return ttft_tpot__request_mark(c, r, point, t);
    if (point == TTFT_TPOT_POINT_SUBMIT) {
        if (r >= 0)
            return TTFT_TPOT_EREQUEST;
        if (c->req.n == c->req.max)
            return TTFT_TPOT_EFULL;
        *req = r = ttft_tpot__request_new(c, id, len, t, warmup, slot);
        q = &c->req.list[r];
    } else {
        if (r < 0)
            return c->req.refused ? TTFT_TPOT_EFULL : TTFT_TPOT_EREQUEST;
        q = &c->req.list[r];
        bits = ttft_tpot__token_points(q, tokens);
        if (q->finished || !ttft_tpot__in_order(q, bits, t))
            return TTFT_TPOT_EREQUEST;
    }
    if (q->truncated || c->req.n_events == c->req.max_events)
        return TTFT_TPOT__ELOG;
    if (tokens)
        ttft_tpot__tokens_add(q, bits, t, tokens);
    q->ev_first = q->ev_first == SIZE_MAX ? c->req.n_events : q->ev_first;
    q->ev_last = c->req.n_events;
    ev = &c->req.events[c->req.n_events++];
    ev->t_ns = t;
    ev->request = (uint32_t)r;
    ev->tokens = tokens;
    return TTFT_TPOT_OK;
}

/* Back to n requests and m events, as after an event that is refused: the aggregates and the index
   are rebuilt from the event log (the points of token events from their events; marks stay). */
static void ttft_tpot__requests_rollback(ttft_tpot *c, unsigned n, size_t m)
{
    uint32_t by_tokens = 0;
    unsigned r;
    size_t i;
    int p;
    c->req.n = n;
    c->req.n_events = m;
    c->req.done = 0;
    if (c->req.max)
        memset(c->req.index, 0, ((size_t)c->req.mask + 1) * sizeof *c->req.index);
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        by_tokens |= ttft_tpot__points[p].set == TTFT_TPOT__SET_TOKEN ? 1u << p : 0u;
    for (r = 0; r < n; r++) {
        ttft_tpot_request *req = &c->req.list[r];
        ttft_tpot__set_points(req, by_tokens, 0, 1);
        req->tokens = 0;
        req->token_events = 0;
        req->ev_first = req->ev_last = SIZE_MAX;
        c->req.done += req->finished != 0;
        ttft_tpot__request_index_add(c, r);
    }
    for (i = 0; i < m; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        ttft_tpot_request *req = &c->req.list[ev->request];
        req->ev_first = req->ev_first == SIZE_MAX ? i : req->ev_first;
        req->ev_last = i;
        if (ev->tokens)
            ttft_tpot__tokens_add(req, ttft_tpot__token_points(req, ev->tokens), ev->t_ns, ev->tokens);
    }
}

/* The time of an event of point p, t_ns as its call gave it: TTFT_TPOT_NOW is the clock's time, or
   that of the point the table's NOW names, where the request has it (else the clock's: the event is
   refused then, as the point it follows is missing). */
static uint64_t ttft_tpot__event_time(ttft_tpot *c, const char *id, int p, uint64_t t)
{
    int now = ttft_tpot__points[p].now, r;
    if (t != TTFT_TPOT_NOW)
        return t;
    r = now != TTFT_TPOT_POINT_NONE && c->req.max ? ttft_tpot__request_find(c, id, strlen(id)) : -1;
    return r >= 0 && ttft_tpot__has(&c->req.list[r], now) ? ttft_tpot__point_ns(&c->req.list[r], now)
                                                           : ttft_tpot__clock(c);
}

/* Whether a request is in the figures: not warmup, not truncated, a token at least, not aborted or
   errored. */
static int ttft_tpot__measured(const ttft_tpot_request *r)
{
    return !r->warmup && !r->truncated && r->token_events > 0 && r->reason < TTFT_TPOT_FINISH_ABORT;
}

/* Folding finished requests (Requests: folding, below, beside the metrics it computes). */
static void ttft_tpot__fold(const ttft_tpot *c, ttft_tpot__tally *t, unsigned r);
static unsigned ttft_tpot__fold_away(ttft_tpot *c);

static int ttft_tpot__request_call(ttft_tpot *c, const char *id, uint64_t t, uint32_t tokens, int point)
{
    int rc, r;
    if (!c || !id)
        return TTFT_TPOT_EINVAL;
    if (!c->enabled)
        return TTFT_TPOT_OK;
    if (c->req.max && ttft_tpot__points[point].set != TTFT_TPOT__SET_MARK &&
        ((point == TTFT_TPOT_POINT_SUBMIT && c->req.n == c->req.max) || c->req.n_events == c->req.max_events))
        (void)ttft_tpot__fold_away(c); /* room from the finished requests, if any */
    rc = ttft_tpot__request_event(c, id, strlen(id), ttft_tpot__event_time(c, id, point, t), tokens,
                                  c->warmup_depth != 0, point, UINT32_MAX, &r);
    if (rc == TTFT_TPOT_EREQUEST)
        c->rejected += c->refusal;
    if (rc == TTFT_TPOT_EFULL || rc == TTFT_TPOT__ELOG)
        c->req.dropped++;
    if (rc == TTFT_TPOT_EFULL && point == TTFT_TPOT_POINT_SUBMIT)
        c->req.refused++;
    if (rc == TTFT_TPOT__ELOG) { /* tracked, but not every event kept: out of every figure */
        c->req.events_lost++;
        c->req.list[r].truncated = 1;
        rc = TTFT_TPOT_EFULL;
    }
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_request_submit_at(ttft_tpot *c, const char *id, uint64_t t_ns)
{
    return ttft_tpot__request_call(c, id, t_ns, 0, TTFT_TPOT_POINT_SUBMIT);
}

TTFT_TPOT_DEF int ttft_tpot_request_tokens_at(ttft_tpot *c, const char *id, uint64_t t_ns, uint32_t tokens)
{
    return tokens ? ttft_tpot__request_call(c, id, t_ns, tokens, TTFT_TPOT_POINT_LAST) : TTFT_TPOT_EINVAL;
}

TTFT_TPOT_DEF int ttft_tpot_request_mark_at(ttft_tpot *c, const char *id, int point, uint64_t t_ns)
{
    if (point < 0 || point >= TTFT_TPOT_POINT_COUNT || ttft_tpot__points[point].set != TTFT_TPOT__SET_MARK)
        return TTFT_TPOT_EINVAL;
    return ttft_tpot__request_call(c, id, t_ns, 0, point);
}

TTFT_TPOT_DEF int ttft_tpot_request_schedule_at(ttft_tpot *c, const char *id, uint64_t t_ns)
{
    return ttft_tpot_request_mark_at(c, id, TTFT_TPOT_POINT_SCHEDULE, t_ns);
}

TTFT_TPOT_DEF int ttft_tpot_request_output_at(ttft_tpot *c, const char *id, uint64_t t_ns)
{
    return ttft_tpot_request_mark_at(c, id, TTFT_TPOT_POINT_OUTPUT, t_ns);
}

/* The request id names, for a call that takes no event storage: OK and *r (-1 when c is disabled:
   nothing to do); EINVAL (c or id NULL); EFULL (unknown after a submit was refused for a full table:
   counted as dropped); EREQUEST (unknown: counted as rejected). */
static int ttft_tpot__request_by_id(ttft_tpot *c, const char *id, int *r)
{
    *r = -1;
    if (!c || !id)
        return TTFT_TPOT_EINVAL;
    if (!c->enabled)
        return TTFT_TPOT_OK;
    *r = c->req.max ? ttft_tpot__request_find(c, id, strlen(id)) : -1;
    if (*r < 0 && c->req.refused) {
        c->req.dropped++;
        return TTFT_TPOT_EFULL;
    }
    if (*r < 0) {
        c->rejected += c->refusal;
        return TTFT_TPOT_EREQUEST;
    }
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF const char *ttft_tpot_finish_reason_name(int reason)
{
    static const char *const names[TTFT_TPOT_FINISH_COUNT] = {"", "stop", "length", "abort", "error"};
    return reason >= 0 && reason < TTFT_TPOT_FINISH_COUNT ? names[reason] : NULL;
}

TTFT_TPOT_DEF int ttft_tpot_request_finish(ttft_tpot *c, const char *id)
{
    return ttft_tpot_request_finish_reason(c, id, TTFT_TPOT_FINISH_NONE);
}

TTFT_TPOT_DEF int ttft_tpot_request_finish_reason(ttft_tpot *c, const char *id, int reason)
{
    int r, rc = reason >= 0 && reason < TTFT_TPOT_FINISH_COUNT ? ttft_tpot__request_by_id(c, id, &r)
                                                                : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK || r < 0)
        return rc;
    if (c->req.list[r].finished) {
        c->rejected += c->refusal;
        return TTFT_TPOT_EREQUEST;
    }
    c->req.list[r].finished = 1;
    c->req.list[r].reason = reason;
    c->req.done++;
    ttft_tpot__fold(c, &c->finished, (unsigned)r); /* counted once, live, whatever becomes of its slot */
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_prompt(ttft_tpot *c, const char *id, uint64_t prompt_tokens)
{
    int r = -1, rc = prompt_tokens ? ttft_tpot__request_by_id(c, id, &r) : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK || r < 0)
        return rc;
    if (c->req.list[r].prompt_tokens) {
        c->rejected += c->refusal;
        return TTFT_TPOT_EREQUEST;
    }
    c->req.list[r].prompt_tokens = prompt_tokens;
    if (c->req.list[r].finished && ttft_tpot__measured(&c->req.list[r])) /* folded without them */
        c->finished.prompt_tokens += prompt_tokens;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_get(const ttft_tpot *c, const char *id, ttft_tpot_request *out)
{
    size_t len;
    int r;
    if (!c || !id || !out)
        return TTFT_TPOT_EINVAL;
    len = strlen(id);
    r = c->req.max && len && len < TTFT_TPOT_NAME_MAX ? ttft_tpot__request_find(c, id, len) : -1;
    if (r < 0)
        return TTFT_TPOT_EREQUEST;
    *out = c->req.list[r];
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_set_slo(ttft_tpot *c, ttft_tpot_slo slo)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (!ttft_tpot__finite(slo.ttft_ms) || !ttft_tpot__finite(slo.tpot_ms) || !ttft_tpot__finite(slo.e2e_ms) ||
        slo.ttft_ms < 0 || slo.tpot_ms < 0 || slo.e2e_ms < 0)
        return TTFT_TPOT_ERANGE;
    c->slo = slo;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF const char *ttft_tpot_percentile_name(char *buf, size_t len, uint32_t pm)
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

/* The request metrics' table (TTFT_TPOT_METRICS), expanded once for the writers. */
enum { TTFT_TPOT__LE_TTFT, TTFT_TPOT__LE_TPOT, TTFT_TPOT__LE_E2E }; /* the bucket bounds of a metric */
enum { TTFT_TPOT__RULE_SPAN, TTFT_TPOT__RULE_PER_TOKEN, TTFT_TPOT__RULE_GAPS }; /* how its values come */
typedef struct ttft_tpot__metric_info {
    const char *label, *json, *prom, *help;
    int le, under; /* TTFT_TPOT__LE_*; TTFT_TPOT_METRIC_* or NONE */
    const char *note;
    int from, to, rule; /* TTFT_TPOT_POINT_*; TTFT_TPOT__RULE_* */
    const char *slice, *csv;
} ttft_tpot__metric_info;
#define TTFT_TPOT__METRIC_INFO(name, label, words, json, prom, help, le, under, note, cmp, from, to, rule, slice, \
                               csv)                                                                   \
    {label, json, prom, help, TTFT_TPOT__LE_##le, TTFT_TPOT_METRIC_##under, note, TTFT_TPOT_POINT_##from,       \
     TTFT_TPOT_POINT_##to, TTFT_TPOT__RULE_##rule, slice, csv},
static const ttft_tpot__metric_info ttft_tpot__metrics[TTFT_TPOT_METRIC_COUNT] = {
    TTFT_TPOT_METRICS(TTFT_TPOT__METRIC_INFO)};
#undef TTFT_TPOT__METRIC_INFO

/* Bucket upper bounds in seconds. TTFT and E2E: vLLM's. TPOT and ITL: vLLM's from 10 ms up, with
   finer buckets below it, where a fast decode step lands. */
/* The bucket bounds, in seconds: vLLM's bounds of each set (TTFT, TPOT, E2E), so that dashboards made for
   vLLM read them, and among them the E12 series (1, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8,
   8.2 a decade) from 100 us to 680 s: between 100 us and 10 min no two neighbours are more than 25%
   apart (1.5 / 1.2), which bounds histogram_quantile's error (README: Fleets). */
static const char *const ttft_tpot__le_ttft[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.0022", "0.0027", "0.0033",
    "0.0039", "0.0047", "0.005", "0.0056", "0.0068", "0.0082", "0.01", "0.012", "0.015", "0.018", "0.02",
    "0.022", "0.027", "0.033", "0.039", "0.04", "0.047", "0.056", "0.06", "0.068", "0.08", "0.082", "0.1",
    "0.12", "0.15", "0.18", "0.22", "0.25", "0.27", "0.33", "0.39", "0.47", "0.5", "0.56", "0.68", "0.75",
    "0.82", "1", "1.2", "1.5", "1.8", "2.2", "2.5", "2.7", "3.3", "3.9", "4.7", "5", "5.6", "6.8", "7.5",
    "8.2", "10", "12", "15", "18", "20", "22", "27", "33", "39", "40", "47", "56", "68", "80", "82", "100",
    "120", "150", "160", "180", "220", "270", "330", "390", "470", "560", "640", "680", "2560"};
static const char *const ttft_tpot__le_tpot[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.0005", "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.002", "0.0022",
    "0.0027", "0.003", "0.0033", "0.0039", "0.004", "0.0047", "0.005", "0.0056", "0.0068", "0.0075", "0.0082",
    "0.01", "0.012", "0.015", "0.018", "0.022", "0.025", "0.027", "0.033", "0.039", "0.047", "0.05", "0.056",
    "0.068", "0.075", "0.082", "0.1", "0.12", "0.15", "0.18", "0.2", "0.22", "0.27", "0.3", "0.33", "0.39",
    "0.4", "0.47", "0.5", "0.56", "0.68", "0.75", "0.82", "1", "1.2", "1.5", "1.8", "2.2", "2.5", "2.7",
    "3.3", "3.9", "4.7", "5", "5.6", "6.8", "7.5", "8.2", "10", "12", "15", "18", "20", "22", "27", "33",
    "39", "40", "47", "56", "68", "80", "82", "100", "120", "150", "180", "220", "270", "330", "390", "470",
    "560", "680"};
static const char *const ttft_tpot__le_e2e[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.0022", "0.0027", "0.0033",
    "0.0039", "0.0047", "0.0056", "0.0068", "0.0082", "0.01", "0.012", "0.015", "0.018", "0.022", "0.027",
    "0.033", "0.039", "0.047", "0.056", "0.068", "0.082", "0.1", "0.12", "0.15", "0.18", "0.22", "0.27",
    "0.3", "0.33", "0.39", "0.47", "0.5", "0.56", "0.68", "0.8", "0.82", "1", "1.2", "1.5", "1.8", "2", "2.2",
    "2.5", "2.7", "3.3", "3.9", "4.7", "5", "5.6", "6.8", "8.2", "10", "12", "15", "18", "20", "22", "27",
    "30", "33", "39", "40", "47", "50", "56", "60", "68", "82", "100", "120", "150", "180", "220", "240",
    "270", "330", "390", "470", "480", "560", "680", "960", "1920", "7680"};

/* vLLM's own bounds, each among the fine ones above (config.buckets TTFT_TPOT_BUCKETS_VLLM). */
static const char *const ttft_tpot__le_vllm_ttft[] = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08",
                                                      "0.1",   "0.25",  "0.5",  "0.75", "1",    "2.5",  "5",
                                                      "7.5",   "10",    "20",   "40",   "80",   "160",  "640",
                                                      "2560"};
static const char *const ttft_tpot__le_vllm_tpot[] = {"0.0005", "0.001", "0.002", "0.003", "0.004", "0.005", "0.0075",
                                                      "0.01",   "0.025", "0.05",  "0.075", "0.1",   "0.15",  "0.2",
                                                      "0.3",    "0.4",   "0.5",   "0.75",  "1",     "2.5",   "5",
                                                      "7.5",    "10",    "20",    "40",    "80"};
static const char *const ttft_tpot__le_vllm_e2e[] = {"0.3", "0.5", "0.8", "1",   "1.5", "2",   "2.5",
                                                     "5",   "10",  "15",  "20",  "30",  "40",  "50",
                                                     "60",  "120", "240", "480", "960", "1920", "7680"};

/* The bounds of each bucket set (TTFT_TPOT_BUCKETS_*, then TTFT_TPOT__LE_*). */
#define TTFT_TPOT__LES(t) {(t), sizeof(t) / sizeof *(t)}
static const struct {
    const char *const *le;
    size_t n;
} ttft_tpot__les[2][3] = {
    {TTFT_TPOT__LES(ttft_tpot__le_ttft), TTFT_TPOT__LES(ttft_tpot__le_tpot), TTFT_TPOT__LES(ttft_tpot__le_e2e)},
    {TTFT_TPOT__LES(ttft_tpot__le_vllm_ttft), TTFT_TPOT__LES(ttft_tpot__le_vllm_tpot),
     TTFT_TPOT__LES(ttft_tpot__le_vllm_e2e)}};
#undef TTFT_TPOT__LES

/* Statistics of durations kept in 1/scale ns (request TPOT), back in ns: rounded, without overflow. */
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

/* Whether request q has metric m: both points it spans, and the tokens its rule needs (PER_TOKEN: two
   tokens or more; GAPS: two token events or more). */
static int ttft_tpot__has_metric(const ttft_tpot_request *q, int m)
{
    const ttft_tpot__metric_info *i = &ttft_tpot__metrics[m];
    return ttft_tpot__has(q, i->from) && ttft_tpot__has(q, i->to) &&
           (i->rule != TTFT_TPOT__RULE_PER_TOKEN || q->tokens > 1) &&
           (i->rule != TTFT_TPOT__RULE_GAPS || q->token_events > 1);
}

/* From metric m's FROM point to its TO point on q, in ns. */
static uint64_t ttft_tpot__span_ns(const ttft_tpot_request *q, int m)
{
    return ttft_tpot__point_ns(q, ttft_tpot__metrics[m].to) - ttft_tpot__point_ns(q, ttft_tpot__metrics[m].from);
}

/* A per-token metric's value of a request (TPOT: (E2E - TTFT) / (tokens - 1)), its span gap over
   its tokens, in 1/scale ns, rounded (scale 1 or 1024). */
static uint64_t ttft_tpot__per_token_scaled(uint64_t gap, uint64_t tokens, uint64_t scale)
{
    uint64_t d = tokens - 1, q = gap / d, rem = gap % d;
    if (scale == 1)
        return q + (rem >= d - rem); /* half up */
    return q * scale + (uint64_t)((double)rem / (double)d * (double)scale + 0.5);
}

/* The scale per-token metrics (TPOT) are kept in: 1/1024 ns while every measured request's value
   fits in 64 bits that way (below 2^54 ns a token), else whole ns. Nothing saturates. */
static uint64_t ttft_tpot__tpot_scale(const ttft_tpot *c)
{
    unsigned r;
    int m;
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        for (m = 0; m < TTFT_TPOT_METRIC_COUNT && ttft_tpot__measured(q); m++)
            if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && ttft_tpot__has_metric(q, m) &&
                ttft_tpot__span_ns(q, m) / (q->tokens - 1) >= UINT64_MAX / 1024)
                return 1;
    }
    return 1024;
}

/* The scale metric m's values are kept in: per-token metrics in 1/scale ns, the others in ns. */
static uint64_t ttft_tpot__scale_of(int m, uint64_t scale)
{
    return ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN ? scale : 1;
}

/* The values of a GAPS metric (ITL) over the measured requests, into x (room for every event): every
   gap between a request's token events. last: room for a value and a byte a request, the
   per-request state the walk over the events keeps (9 bytes a request, not its record). Returns how
   many. */
static size_t ttft_tpot__event_set(const ttft_tpot *c, int live, uint64_t *x, uint64_t *last)
{
    unsigned char *keep = (unsigned char *)(last + c->req.n); /* the request is counted */
    size_t n = 0, i;
    unsigned r;
    for (r = 0; r < c->req.n; r++) { /* the last token event's time */
        const ttft_tpot_request *q = &c->req.list[r];
        last[r] = UINT64_MAX;
        keep[r] = ttft_tpot__measured(q) && !(live && !q->finished);
    }
    for (i = 0; i < c->req.n_events; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        uint64_t *l = &last[ev->request];
        if (!ev->tokens || !keep[ev->request])
            continue;
        if (*l != UINT64_MAX)
            x[n++] = ev->t_ns - *l;
        *l = ev->t_ns;
    }
    return n;
}

/* Request q's value of metric m (not a GAPS one) into *v, a per-token one in 1/scale ns: 1, or 0
   when it has none (live: an unfinished request has none). */
static int ttft_tpot__request_value(const ttft_tpot_request *q, int m, int live, uint64_t scale, uint64_t *v)
{
    if (!ttft_tpot__measured(q) || (live && !q->finished) || !ttft_tpot__has_metric(q, m))
        return 0;
    *v = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN
             ? ttft_tpot__per_token_scaled(ttft_tpot__span_ns(q, m), q->tokens, scale)
             : ttft_tpot__span_ns(q, m);
    return 1;
}

/* The values of request metric m (TTFT_TPOT_METRIC_*) over the measured requests, into x (room for
   every event), per-token ones in 1/scale ns; last as ttft_tpot__event_set takes it. Returns how
   many. */
static size_t ttft_tpot__request_set(const ttft_tpot *c, int m, int live, uint64_t scale, uint64_t *x,
                                     uint64_t *last)
{
    size_t n = 0;
    unsigned r;
    if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_GAPS)
        return ttft_tpot__event_set(c, live, x, last);
    for (r = 0; r < c->req.n; r++)
        n += ttft_tpot__request_value(&c->req.list[r], m, live, scale, &x[n]) ? 1u : 0u;
    return n;
}

/* The working memory of ttft_tpot__request_set, one block: *x then *last (a value and a byte a
   request). */
static int ttft_tpot__request_work(const ttft_tpot *c, uint64_t **x, uint64_t **last)
{
    size_t nx = c->req.n_events > c->req.n ? c->req.n_events : c->req.n;
    *x = (uint64_t *)TTFT_TPOT_MALLOC((nx + c->req.n + 1) * sizeof **x + c->req.n, c->alloc_user);
    *last = *x ? *x + nx : NULL;
    return *x ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
}

/* Whether a request with a token meets SLO k (0 TTFT, 1 TPOT, 2 E2E; inclusive): 1 or 0, -1 when that SLO
   is not set or the request has no such figure (TPOT of one token). Compared in integer ns, the SLO
   rounded to the ns once: ms * 1e6 in doubles may fall below the ns --slo named (4.1 ms). */
static int ttft_tpot__slo_met(const ttft_tpot *c, const ttft_tpot_request *q, int k)
{
    const double ms[3] = {c->slo.ttft_ms, c->slo.tpot_ms, c->slo.e2e_ms};
    uint64_t slo, d = q->tokens > 1 ? q->tokens - 1 : 1, gap = q->last_ns - q->first_ns, whole = gap / d;
    if (!(ms[k] > 0) || (k == 1 && q->tokens < 2))
        return -1;
    if (ttft_tpot_ms_to_ns(ms[k], &slo) != TTFT_TPOT_OK) /* 2^64 ns or more: every figure meets it */
        return 1;
    if (k == 1) /* TPOT = whole + (gap % d) / d */
        return whole < slo || (whole == slo && gap % d == 0);
    return (k == 0 ? q->first_ns : q->last_ns) - q->submit_ns <= slo;
}

/* Whether a measured request meets every SLO set; a request without TPOT passes that one. */
static int ttft_tpot__good(const ttft_tpot *c, const ttft_tpot_request *q)
{
    return ttft_tpot__slo_met(c, q, 0) != 0 && ttft_tpot__slo_met(c, q, 1) != 0 && ttft_tpot__slo_met(c, q, 2) != 0;
}

/* A request metric's buckets (its BUCKETS column), without a value yet. */
static void ttft_tpot__buckets_init(ttft_tpot_buckets *b, int m, int set)
{
    size_t k;
    memset(b, 0, sizeof *b);
    b->set = set;
    b->n = ttft_tpot__les[set][ttft_tpot__metrics[m].le].n;
    b->le = ttft_tpot__les[set][ttft_tpot__metrics[m].le].le;
    for (k = 0; k < b->n; k++) /* seconds to the ns, read as integers: no locale */
        (void)ttft_tpot__decimal(b->le[k], 9, &b->le_ns[k]);
}

/* b's counts made cumulative, n values in all, their sum hi:lo (1/scale ns) brought back to ns,
   rounded, once. */
static void ttft_tpot__buckets_close(ttft_tpot_buckets *b, uint64_t n, uint64_t scale, uint64_t lo, uint64_t hi)
{
    uint64_t round;
    size_t k;
    for (k = 1; k < b->n; k++)
        b->cumulative[k] += b->cumulative[k - 1];
    b->count = n;
    if (scale == 1024) { /* back to ns, rounded */
        round = (lo & 1023u) >= 512u;
        lo = (lo >> 10) | (hi << 54);
        hi >>= 10;
        lo += round;
        hi += lo < round;
    }
    b->sum_hi = hi;
    b->sum_lo = lo;
}

/* ---- Requests: folding ------------------------------------------------------------------------ */

/* The bucket of x (1/scale ns) among the bounds of metric m: the first bound at or above it; past
   the last, their number (+Inf alone). */
static size_t ttft_tpot__bucket_of(const ttft_tpot *c, int m, uint64_t x, uint64_t scale)
{
    const uint64_t *le = c->le_ns[ttft_tpot__metrics[m].le];
    size_t a = 0, z = c->le_n[ttft_tpot__metrics[m].le];
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (le[mid] * scale < x)
            a = mid + 1;
        else
            z = mid;
    }
    return a;
}

/* One value of metric m, x in 1/scale ns (scale 1 or 1024), into t: its bucket, its count, its sum
   (a per-token metric's in 1/1024 ns). */
static void ttft_tpot__tally_put(const ttft_tpot *c, ttft_tpot__tally *t, int m, uint64_t x, uint64_t scale)
{
    uint64_t lo = x, hi = 0;
    size_t b = ttft_tpot__bucket_of(c, m, x, scale);
    if (b < c->le_n[ttft_tpot__metrics[m].le])
        t->bucket[m][b]++;
    t->count[m]++;
    if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && scale == 1)
        hi = x >> 54, lo = x << 10; /* whole ns to 1/1024 ns, in 128 bits */
    t->sum_lo[m] += lo;
    t->sum_hi[m] += hi + (t->sum_lo[m] < lo);
}

/* Every gap between request r's token events (a GAPS metric m: ITL) into t: its events lie between
   its first and its last in the log. */
static void ttft_tpot__fold_gaps(const ttft_tpot *c, ttft_tpot__tally *t, unsigned r, int m)
{
    const ttft_tpot_request *q = &c->req.list[r];
    uint64_t last = UINT64_MAX;
    size_t i;
    for (i = q->ev_first; q->token_events > 1 && i <= q->ev_last; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        if (ev->request != r || !ev->tokens)
            continue;
        if (last != UINT64_MAX)
            ttft_tpot__tally_put(c, t, m, ev->t_ns - last, 1);
        last = ev->t_ns;
    }
}

/* Request r into t, once (when it finishes, and when it is folded out of the table): each metric's
   value (a per-token one in 1/1024 ns while that fits 64 bits, as the reports keep it) and its
   tokens; one out of every figure is only counted. */
static void ttft_tpot__fold(const ttft_tpot *c, ttft_tpot__tally *t, unsigned r)
{
    const ttft_tpot_request *q = &c->req.list[r];
    uint64_t v, sc;
    int m;
    if (!ttft_tpot__measured(q)) { /* classed as the report classes it (ttft_tpot__requests_of) */
        if (!q->warmup && q->reason >= TTFT_TPOT_FINISH_ABORT)
            t->reasons[q->reason]++;
        else
            *(!q->warmup && q->truncated ? &t->truncated : &t->unmeasured) += 1;
        return;
    }
    t->reasons[q->reason]++;
    t->requests++, t->tokens += q->tokens, t->prompt_tokens += q->prompt_tokens;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_GAPS) {
            ttft_tpot__fold_gaps(c, t, r, m);
            continue;
        }
        sc = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && ttft_tpot__has_metric(q, m) &&
                     ttft_tpot__span_ns(q, m) / (q->tokens - 1) < UINT64_MAX / 1024
                 ? 1024
                 : 1;
        if (ttft_tpot__request_value(q, m, 0, sc, &v))
            ttft_tpot__tally_put(c, t, m, v, sc);
    }
}

/* Whether t counts a request. */
static int ttft_tpot__tally_any(const ttft_tpot__tally *t)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        if (t->count[m])
            return 1;
    return t->requests || t->truncated || t->unmeasured || t->reasons[TTFT_TPOT_FINISH_ABORT] ||
           t->reasons[TTFT_TPOT_FINISH_ERROR];
}

/* dst += src. */
static void ttft_tpot__tally_add(ttft_tpot__tally *dst, const ttft_tpot__tally *src)
{
    size_t k;
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        for (k = 0; k < TTFT_TPOT_BUCKETS_MAX; k++)
            dst->bucket[m][k] += src->bucket[m][k];
        dst->count[m] += src->count[m];
        dst->sum_lo[m] += src->sum_lo[m];
        dst->sum_hi[m] += src->sum_hi[m] + (dst->sum_lo[m] < src->sum_lo[m]);
    }
    dst->requests += src->requests, dst->tokens += src->tokens, dst->prompt_tokens += src->prompt_tokens;
    dst->truncated += src->truncated, dst->unmeasured += src->unmeasured;
    for (m = 0; m < TTFT_TPOT_FINISH_COUNT; m++)
        dst->reasons[m] += src->reasons[m];
}

/* Each bucket table's bounds in ns, read once (folding compares them at every finish). */
static void ttft_tpot__les_of(ttft_tpot *c)
{
    size_t t, k;
    for (t = 0; t < 3; t++) {
        c->le_n[t] = ttft_tpot__les[c->buckets][t].n;
        for (k = 0; k < c->le_n[t]; k++) /* seconds to the ns, read as integers: no locale */
            (void)ttft_tpot__decimal(ttft_tpot__les[c->buckets][t].le[k], 9, &c->le_ns[t][k]);
    }
}

/* Metric m of t as a histogram of the exposition: cumulative, its sum back in ns, rounded once. */
static void ttft_tpot__tally_buckets(const ttft_tpot *c, const ttft_tpot__tally *t, int m, ttft_tpot_buckets *b)
{
    ttft_tpot__buckets_init(b, m, c->buckets);
    memcpy(b->cumulative, t->bucket[m], sizeof b->cumulative);
    ttft_tpot__buckets_close(b, t->count[m], ttft_tpot__scale_of(m, 1024), t->sum_lo[m], t->sum_hi[m]);
}

/* Room in a full request table or event log, for a server that runs for weeks: the finished
   requests, oldest first, but the last config.request_window of them (and at most half) are folded
   into c->folded, their slots and events reused; the rest keep their order. The index holds the new
   numbers until it is rebuilt. Returns how many were folded away. */
static unsigned ttft_tpot__fold_away(ttft_tpot *c)
{
    uint32_t *to = c->req.index; /* a request's new number + 1; 0: folded away */
    unsigned r, done = c->req.done, keep, gone = 0, kept = 0,
                window = c->request_window ? c->request_window : c->req.max / 2;
    size_t i, e = 0;
    keep = done / 2 < window ? done / 2 : window; /* O(1) when nothing can go: a full table refuses fast */
    if (done == keep)
        return 0;
    for (r = 0; r < c->req.n; r++)
        if (c->req.list[r].finished && gone < done - keep)
            ttft_tpot__fold(c, &c->folded, r), to[r] = 0, gone++;
        else
            to[r] = ++kept;
    for (r = 0; r < c->req.n; r++)
        c->req.list[r].ev_first = SIZE_MAX;
    for (i = 0; i < c->req.n_events; i++) {
        ttft_tpot__event ev = c->req.events[i];
        ttft_tpot_request *q = &c->req.list[ev.request];
        if (!to[ev.request])
            continue;
        q->ev_first = q->ev_first == SIZE_MAX ? e : q->ev_first;
        q->ev_last = e;
        ev.request = to[ev.request] - 1;
        c->req.events[e++] = ev;
    }
    for (r = 0; r < c->req.n; r++) /* to[r] - 1 <= r: each moves down, in order */
        if (to[r])
            c->req.list[to[r] - 1] = c->req.list[r];
    c->req.n = kept, c->req.n_events = e, c->req.done = keep;
    memset(c->req.index, 0, ((size_t)c->req.mask + 1) * sizeof *c->req.index);
    for (r = 0; r < kept; r++)
        ttft_tpot__request_index_add(c, r);
    return gone;
}

/* The figures of the requests held into out (those folded away: ttft_tpot__folded_figures). */
static int ttft_tpot__requests_of(const ttft_tpot *c, ttft_tpot_requests *out)
{
    uint64_t *x, *last, first_submit = UINT64_MAX, last_token = 0, scale;
    ttft_tpot__narrow nw;
    unsigned r;
    int m;
    memset(out, 0, sizeof *out);
    out->seen = c->req.n;
    out->dropped = c->req.dropped;
    if (!c->req.n)
        return TTFT_TPOT_OK;
    if (ttft_tpot__request_work(c, &x, &last) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    if (ttft_tpot__narrow_init(c, &nw, c->req.n_events > c->req.n ? c->req.n_events : c->req.n) != TTFT_TPOT_OK) {
        TTFT_TPOT_FREE(x, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    for (r = 0; r < c->req.n; r++) { /* counts, window, goodput */
        const ttft_tpot_request *q = &c->req.list[r];
        int failed = !q->warmup && q->reason >= TTFT_TPOT_FINISH_ABORT;
        if (!ttft_tpot__measured(q)) { /* warmup, then aborted or errored, truncated, no token */
            out->warmup_excluded += q->warmup != 0;
            out->finish_reasons[q->reason] += (uint64_t)failed;
            out->truncated += !q->warmup && !failed && q->truncated;
            out->incomplete += !q->warmup && !failed && !q->truncated;
            continue;
        }
        out->finish_reasons[q->reason]++;
        out->n++;
        out->unscheduled += !ttft_tpot__has(q, TTFT_TPOT_POINT_SCHEDULE);
        out->tokens += q->tokens;
        out->prompt_tokens += q->prompt_tokens;
        first_submit = q->submit_ns < first_submit ? q->submit_ns : first_submit;
        last_token = q->last_ns > last_token ? q->last_ns : last_token;
        out->good_n += (uint64_t)ttft_tpot__good(c, q);
    }
    scale = ttft_tpot__tpot_scale(c);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        uint64_t sc = ttft_tpot__scale_of(m, scale);
        size_t n = ttft_tpot__request_set(c, m, 0, sc, x, last);
        ttft_tpot__fill(x, n, &nw, &out->metric[m]);
        if (sc > 1)
            ttft_tpot__unscale(&out->metric[m], sc);
    }
    if (out->n && last_token > first_submit) {
        out->has_window = 1;
        out->window_ns = (double)(last_token - first_submit);
        out->request_rps = (double)out->n / (out->window_ns * 1e-9);
        out->output_tok_s = (double)out->tokens / (out->window_ns * 1e-9);
    }
    if (out->n && (c->slo.ttft_ms > 0 || c->slo.tpot_ms > 0 || c->slo.e2e_ms > 0)) {
        out->has_goodput = 1;
        out->good_fraction = (double)out->good_n / (double)out->n;
        if (out->has_window)
            out->good_rps = (double)out->good_n / (out->window_ns * 1e-9);
    }
    TTFT_TPOT_FREE(x, c->alloc_user);
    ttft_tpot__narrow_free(c, &nw);
    return TTFT_TPOT_OK;
}

/* Forget every request, its events and what the table lost. */
static void ttft_tpot__requests_clear(ttft_tpot *c)
{
    c->req.dropped = c->req.refused = c->req.events_lost = 0;
    ttft_tpot__requests_rollback(c, 0, 0);
}

/* Append src's requests and their events to dst, with what src's table lost. The caller has checked
   that the ids are new and that everything fits. */
static void ttft_tpot__requests_merge(ttft_tpot *dst, const ttft_tpot *src)
{
    size_t i, at = dst->req.n_events;
    unsigned p;
    for (i = 0; i < src->req.n_events; i++) {
        ttft_tpot__event ev = src->req.events[i];
        ev.request += dst->req.n;
        dst->req.events[dst->req.n_events++] = ev;
    }
    for (p = 0; p < src->req.n; p++) {
        ttft_tpot_request *q = &dst->req.list[dst->req.n];
        *q = src->req.list[p];
        q->ev_first += q->ev_first == SIZE_MAX ? 0 : at; /* its events moved with it */
        q->ev_last += q->ev_last == SIZE_MAX ? 0 : at;
        dst->req.done += q->finished != 0;
        ttft_tpot__request_index_add(dst, dst->req.n++);
    }
    ttft_tpot__tally_add(&dst->finished, &src->finished);
    ttft_tpot__tally_add(&dst->folded, &src->folded);
    dst->refused_cleared += src->refused_cleared;
    dst->dropped_cleared += src->dropped_cleared;
    dst->req.dropped += src->req.dropped;
    dst->req.refused += src->req.refused;
    dst->req.events_lost += src->req.events_lost;
}

/* ---- Storage --------------------------------------------------------------------------------- */

/* The sample store: sample i with its start time (i past n while a trace is being read). */
static void ttft_tpot__store_put_timed(ttft_tpot__store *st, size_t i, int phase, uint64_t start, uint64_t dur,
                                       uint32_t tokens, int warm)
{
    ttft_tpot__store_put(st, i, phase, dur, tokens, warm);
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
        ttft_tpot__store_put_timed(&c->store, c->store.n++, phase, start, dur, tokens, warm);
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

TTFT_TPOT_DEF ttft_tpot_clock_pair ttft_tpot_clock_pair_read(const ttft_tpot *c, uint64_t (*device_clock)(void *user),
                                                             void *user)
{
    ttft_tpot_clock_pair pair;
    uint64_t h0 = ttft_tpot_clock_now(c), h1;
    pair.device_ns = device_clock(user);
    h1 = ttft_tpot_clock_now(c);
    pair.host_ns = h0 + (h1 > h0 ? (h1 - h0) / 2 : 0);
    return pair;
}

TTFT_TPOT_DEF int ttft_tpot_device_elapsed(ttft_tpot *c, uint64_t ticket, uint64_t elapsed_ns)
{
    ttft_tpot_device_stamp st;
    memset(&st, 0, sizeof st);
    st.ticket = ticket;
    st.elapsed_ns = elapsed_ns;
    return ttft_tpot_device_resolve(c, &st, 1, NULL, NULL);
}

TTFT_TPOT_DEF int ttft_tpot_device_elapsed_ms(ttft_tpot *c, uint64_t ticket, double ms)
{
    uint64_t ns;
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot_ms_to_ns(ms, &ns) != TTFT_TPOT_OK) {
        ttft_tpot__device_count(&c->dev.refused, (ticket != 0) * c->refusal);
        return ticket ? TTFT_TPOT_ERANGE : TTFT_TPOT_OK;
    }
    return ttft_tpot_device_elapsed(c, ticket, ns);
}

TTFT_TPOT_DEF int ttft_tpot_device_absolute(ttft_tpot *c, uint64_t ticket, uint64_t begin_ns, uint64_t end_ns,
                                            const ttft_tpot_clock_pair *pair)
{
    ttft_tpot_device_stamp st;
    memset(&st, 0, sizeof st);
    st.ticket = ticket;
    st.absolute = 1;
    st.begin_ns = begin_ns;
    st.end_ns = end_ns;
    return ttft_tpot_device_resolve(c, &st, 1, pair, NULL);
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
   times, requests, events, device intervals, shape keys, then the uint32_t tables (each part a multiple of 8 bytes). */
typedef struct ttft_tpot__layout {
    size_t cap, reserve, events, bytes, device, pending;
    unsigned phases, phase_slots, hists, requests, req_slots, shapes, shape_slots;
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
    l->requests = cfg ? cfg->max_requests : 0;
    /* 4096 events a request by default: a long generation fits; 64 KiB a request of address space,
       touched only as events arrive */
    l->events = !l->requests ? 0 : cfg->max_request_events ? cfg->max_request_events
                : (uint64_t)l->requests * 4096 < UINT32_MAX ? (size_t)l->requests * 4096 : UINT32_MAX;
    l->shapes = cfg && cfg->max_shapes ? cfg->max_shapes : 64;
    /* by default, room for device time: address space only until intervals arrive (not a cost a sample) */
    l->device = cfg && cfg->max_device ? cfg->max_device : TTFT_TPOT__DEFAULT_DEVICE;
    l->pending = cfg && cfg->max_pending ? cfg->max_pending : 1024;
    l->pending = l->pending < l->device ? l->pending : l->device;
    if (l->device >= UINT32_MAX || l->device > (SIZE_MAX / 2) / sizeof(ttft_tpot_device_interval))
        return TTFT_TPOT_EINVAL;
    if (l->phases > 65535u || l->hists > l->phases || (uint64_t)l->cap > UINT32_MAX ||
        l->requests > (1u << 24) || (uint64_t)l->events > UINT32_MAX || l->shapes > (1u << 24))
        return TTFT_TPOT_EINVAL;
    l->req_slots = l->requests ? ttft_tpot__table_size(l->requests) : 0;
    l->phase_slots = ttft_tpot__table_size(l->phases);
    l->shape_slots = ttft_tpot__table_size(l->shapes);
    /* warmup samples cannot go on in a histogram: room for a first call of every phase and shape */
    l->reserve = (size_t)l->phases + l->shapes;
    l->reserve = l->reserve < l->cap ? l->reserve : l->cap;
    per = sizeof(ttft_tpot_sample) + (cfg && cfg->timeline ? sizeof(uint64_t) : 0) +
          (cfg && cfg->sequences ? sizeof(uint32_t) : 0);
    /* + 8: room to align a caller's buffer, and 8 more to align what follows the sequences */
    fixed = (cfg && cfg->sequences ? 8 : 0) + (size_t)l->phases * sizeof(ttft_tpot__phase_slot) + (size_t)l->hists * sizeof(ttft_tpot_hist) +
            (size_t)l->requests * sizeof(ttft_tpot_request) + l->events * sizeof(ttft_tpot__event) +
            l->device * sizeof(ttft_tpot_device_interval) + (size_t)l->shape_slots * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) +
            ((size_t)l->req_slots + l->phase_slots) * sizeof(uint32_t) + 8;
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
   phases, histograms, samples, start times, requests, events, device intervals, shape keys, then the
   uint32_t tables. */
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
    c->req.list = (ttft_tpot_request *)(void *)mem;
    c->req.max = l->requests;
    c->req.events = (ttft_tpot__event *)(void *)(c->req.list + l->requests);
    c->req.max_events = l->events;
    c->dev.log = (ttft_tpot_device_interval *)(void *)(c->req.events + l->events);
    c->dev.max = l->device;
    c->dev.max_open = l->pending;
    c->shape.keys = (uint64_t *)(void *)(c->dev.log + l->device);
    c->shape.phases = (uint32_t *)(void *)(c->shape.keys + l->shape_slots);
    c->shape.mask = l->shape_slots - 1;
    c->shape.max = l->shapes;
    c->shape.rows = c->shape.phases + l->shape_slots;
    c->req.index = c->shape.rows + l->shape_slots;
    c->req.mask = l->req_slots ? l->req_slots - 1 : 0;
    c->phase.index = c->req.index + l->req_slots;
    c->phase.mask = l->phase_slots - 1;
    memset(c->shape.phases, 0, (2 * (size_t)l->shape_slots + l->req_slots + l->phase_slots) * sizeof(uint32_t));
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
    part[0] = ttft_tpot_now();
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

/* The bytes of the UTF-8 character at s (avail bytes there), 0 when it is none. */
static size_t ttft_tpot__utf8_len(const unsigned char *s, size_t avail)
{
    uint32_t cp;
    return ttft_tpot__utf8_cp(s, avail, &cp);
}

/* config.model_name as the label model_name="..." into c->model_label, its '\\' and '"' escaped: OK,
   or EINVAL (longer than 127 bytes, not UTF-8, a newline or a brace). */
static int ttft_tpot__model_label(ttft_tpot *c, const char *name)
{
    size_t i, k, n = 0, len = strlen(name);
    if (len > 127)
        return TTFT_TPOT_EINVAL;
    if (len == 0) /* none */
        return TTFT_TPOT_OK;
    memcpy(c->model_label, "model_name=\"", 12);
    for (n = 12, i = 0; i < len; i += k) {
        k = name[i] == '\n' || name[i] == '{' || name[i] == '}' ? 0
            : ttft_tpot__utf8_len((const unsigned char *)name + i, len - i);
        if (k == 0) {
            c->model_label[0] = '\0';
            return TTFT_TPOT_EINVAL;
        }
        if (name[i] == '\\' || name[i] == '"')
            c->model_label[n++] = '\\';
        memcpy(c->model_label + n, name + i, k);
        n += k;
    }
    c->model_label[n++] = '"';
    c->model_label[n] = '\0';
    return TTFT_TPOT_OK;
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
    if (cfg && cfg->buckets != TTFT_TPOT_BUCKETS_FINE && cfg->buckets != TTFT_TPOT_BUCKETS_VLLM)
        return TTFT_TPOT_EINVAL;
    if (cfg && cfg->model_name && ttft_tpot__model_label(c, cfg->model_name) != TTFT_TPOT_OK) {
        memset(c, 0, sizeof *c); /* zeroed on error, as promised */
        return TTFT_TPOT_EINVAL;
    }
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
    c->slice_ns = cfg ? cfg->slice_ns : 0;
    c->request_window = cfg ? cfg->request_window : 0;
    c->buckets = cfg ? cfg->buckets : TTFT_TPOT_BUCKETS_FINE;
    ttft_tpot__les_of(c);
    ttft_tpot__picks_of(c, cfg);
    c->hist.bounded = cfg && cfg->bounded;
    c->enabled = 1;
    c->refusal = cfg && cfg->refusals_reported ? 0 : 1;
    c->prefill_kernel = -1;
    ttft_tpot__clock_of(c, cfg);
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

TTFT_TPOT_DEF void ttft_tpot_free(ttft_tpot *c)
{
    void *parts[8];
    unsigned k;
    if (!c)
        return;
    parts[0] = c->store.samples, parts[1] = c->store.starts, parts[2] = c->hist.pool;
    parts[3] = c->req.list, parts[4] = c->req.index, parts[5] = c->req.events, parts[6] = c->dev.log;
    parts[7] = c->store.seqs;
    for (k = 0; k < 8; k++)
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
    for (p = 0; p < src->req.n; p++) /* requests: new ids only, and room for all */
        if (ttft_tpot__request_find(dst, src->req.list[p].id, strlen(src->req.list[p].id)) >= 0)
            return TTFT_TPOT_EREQUEST;
    if (src->req.n > dst->req.max - dst->req.n || src->req.n_events > dst->req.max_events - dst->req.n_events)
        return TTFT_TPOT_EFULL;
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
    if (!dst || !src || dst == src || !dst->phase.slots || dst->buckets != src->buckets)
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
    ttft_tpot__requests_merge(dst, src);
    dst->shape.dropped += src->shape.dropped;
    dst->rejected += src->rejected;
    dst->spans_open += ttft_tpot__spans_open(src);
    for (k = 0; k < 4; k++)
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
    c->refused_cleared += c->req.refused; /* the live exposition's counters go on */
    c->dropped_cleared += c->req.dropped;
    memset(&c->folded, 0, sizeof c->folded);
    ttft_tpot__requests_clear(c);
    c->shape.dropped = 0; /* the shapes stay known (warmup is once per process); the count goes */
    ttft_tpot__device_clear(c);
    c->rejected = 0;
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
    if (c)
        c->enabled = on != 0;
}

/* ---- Recording ------------------------------------------------------------------------------- */

TTFT_TPOT_DEF int ttft_tpot__push_slow(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                       int new_shape)
{
    ttft_tpot__phase_slot *p;
    uint32_t tokens;
    size_t before = c->store.n;
    int warm, first, rc;
    if ((unsigned)phase >= c->phase.n) {
        c->rejected += c->refusal;
        return TTFT_TPOT_EPHASE;
    }
    p = &c->phase.slots[phase];
    first = p->fresh;
    warm = first | c->warm_all | new_shape;
    if (first)
        ttft_tpot__phase_called(c, p);
    tokens = count == TTFT_TPOT__DEFAULT_TOKENS ? p->default_tokens : (uint32_t)count;
    /* a bounded phase's steady samples never come here: the inline path takes them */
    rc = ttft_tpot__keep(c, phase, start, dur, tokens, warm);
    if (first)
        p->first_at = !(c->warm_all | new_shape) && c->store.n > before ? before : SIZE_MAX;
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot__push_prompt(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                         uint32_t prompt, int new_shape)
{
    ttft_tpot__phase_slot *p = (unsigned)phase < c->phase.n ? &c->phase.slots[phase] : NULL;
    int warm, rc;
    if (!p || p->role != TTFT_TPOT_ROLE_PREFILL || prompt == 0) {
        c->rejected += c->refusal;
        return !p ? TTFT_TPOT_EPHASE : p->role != TTFT_TPOT_ROLE_PREFILL ? TTFT_TPOT_EROLE : TTFT_TPOT_EINVAL;
    }
    warm = p->fresh | c->warm_all | new_shape;
    rc = ttft_tpot__push(c, phase, start, dur, count, new_shape); /* a bounded phase's steady: its histogram */
    if (rc == TTFT_TPOT_OK && !warm) { /* kept and steady: its prompt counts toward the rate */
        p->prompt[0]++;
        p->prompt[1] += prompt;
        p->prompt[2] += dur;
    }
    return rc;
}

/* A step's sequences, checked before it is recorded: OK, or EROLE / ERANGE (counted as rejected).
   *multi: it emitted more than one token a sequence. */
static int ttft_tpot__sequences_check(ttft_tpot *c, int phase, uint64_t count, uint32_t sequences, int *multi)
{
    const ttft_tpot__phase_slot *p = (unsigned)phase < c->phase.n ? &c->phase.slots[phase] : NULL;
    uint64_t tokens;
    *multi = 0;
    if (!sequences || !p)
        return TTFT_TPOT_OK; /* an unknown phase is refused by the push */
    tokens = count == TTFT_TPOT__DEFAULT_TOKENS ? p->default_tokens : count;
    if (p->role == TTFT_TPOT_ROLE_DECODE && sequences <= tokens) {
        *multi = sequences < tokens;
        return TTFT_TPOT_OK;
    }
    c->rejected += c->refusal;
    return p->role != TTFT_TPOT_ROLE_DECODE ? TTFT_TPOT_EROLE : TTFT_TPOT_ERANGE;
}

TTFT_TPOT_DEF int64_t ttft_tpot__push_ext(ttft_tpot *c, int phase, uint64_t start, uint64_t dur, uint64_t count,
                                          int has_prompt, uint32_t prompt, int device, uint32_t stream,
                                          uint32_t sequences, int new_shape)
{
    size_t before = c->store.n;
    const ttft_tpot_hist *h = (unsigned)phase < c->phase.n ? c->phase.slots[phase].hist : NULL;
    uint64_t hist_before = h ? ttft_tpot__hist_count(h) : 0;
    int multi, kept, rc = ttft_tpot__sequences_check(c, phase, count, sequences, &multi);
    if (rc != TTFT_TPOT_OK)
        return rc;
    rc = has_prompt ? ttft_tpot__push_prompt(c, phase, start, dur, count, prompt, new_shape)
                    : ttft_tpot__push(c, phase, start, dur, count, new_shape);
    kept = c->store.n > before; /* stored, not in a histogram */
    if (sequences && rc == TTFT_TPOT_OK)
        ttft_tpot__sequences_keep(c, before, hist_before, phase, sequences, multi);
    if (!device || (rc != TTFT_TPOT_OK && rc != TTFT_TPOT_EFULL))
        return rc; /* refused: no sample, so no device part either */
    if (rc == TTFT_TPOT_EFULL) { /* dropped: its device time has nowhere to go */
        ttft_tpot__device_count(&c->dev.unresolved, 1);
        return rc;
    }
    return (int64_t)ttft_tpot__device_open(c, phase, kept ? c->store.n : 0, start, stream,
                                           kept ? c->store.samples[c->store.n - 1].warmup : 0);
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

TTFT_TPOT_DEF int ttft_tpot_record_ms(ttft_tpot *c, int phase, double ms, uint32_t tokens)
{
    uint64_t ns;
    if (!c)
        return TTFT_TPOT_EINVAL;
    if (!c->enabled)
        return TTFT_TPOT_OK;
    if (ttft_tpot_ms_to_ns(ms, &ns) != TTFT_TPOT_OK) {
        c->rejected += c->refusal;
        return TTFT_TPOT_ERANGE;
    }
    return ttft_tpot_record(c, phase, ns, tokens);
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
   count of its batch in progress. One allocation (run first, for its alignment). */
typedef struct ttft_tpot__batches {
    uint64_t *run, *sum;
    size_t *at;
    unsigned char *measured;
} ttft_tpot__batches;

/* a + b, or UINT64_MAX past it: a batch sum of 5 durations of 2^62 ns and more. */
static uint64_t ttft_tpot__sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* Add a measured phase's sample to its batch in progress, and a full batch's sum to sum[]. */
static void ttft_tpot__batch_add(ttft_tpot__batches *b, unsigned phase, uint64_t v)
{
    uint64_t *r = &b->run[2 * (size_t)phase];
    r[0] = ttft_tpot__sat_add(r[0], v);
    if (++r[1] == 5) {
        b->sum[b->at[phase]++] = r[0];
        r[0] = r[1] = 0;
    }
}

/* A phase's statistics and its steady view, from x[0, m): its steady samples, then its warm ones.
   An exact phase's steady samples are scanned once for both; pre: that scan, already made while the
   samples were gathered (its bucket counts in w->nw.slot), or NULL. With pre, an exact phase's steady
   values were left in the store: only x[m - warm, m) is filled. */
static void ttft_tpot__phase_figures(const ttft_tpot *c, ttft_tpot__work *w, uint64_t *x, size_t m, size_t warm,
                                     int phase, const ttft_tpot__scan *pre, ttft_tpot_stats *st,
                                     ttft_tpot_stats *steady)
{
    ttft_tpot__scan s;
    uint32_t *slot = m - warm >= TTFT_TPOT__NARROW_MIN ? w->nw.slot : NULL; /* none for small sets */
    ttft_tpot_stats keep = *st;
    ttft_tpot__in_store in; /* with pre: its steady values */
    in.c = c, in.phase = phase, in.steady = 1, in.skip = 0;
    if (ttft_tpot__set_hists(c, w, phase, 0)) { /* bounded: both from its histogram */
        ttft_tpot__finish_set(c, w, x, m - warm, phase, 0, steady);
        ttft_tpot__finish_set(c, w, x, m, phase, 0, st);
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
        ttft_tpot__finish_both(pre ? &in : NULL, x, m, warm, &s, slot, &w->nw, steady, st);
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
static void ttft_tpot__finish_phase(const ttft_tpot *c, ttft_tpot__work *w, uint64_t *x, size_t m, size_t warm,
                                    int phase, const ttft_tpot__scan *pre, ttft_tpot_stats *st,
                                    ttft_tpot_stats *steady)
{
    uint64_t most = 0;
    size_t i;
    for (i = m - warm; i < m; i++)
        most = x[i] > most ? x[i] : most;
    ttft_tpot__phase_figures(c, w, x, m, warm, phase, pre, st, steady);
    st->warmup_max_ns = most;
}

/* Statistics of sets [0, n) of the stored samples into st (count[k]: set k's size, at most the work
   area's), gathered a group of consecutive sets at a time, as many as the work area holds: one pass
   over the samples a group. Tokens add up as the samples are gathered. by_phase: the sets are the
   phases, st[k].warmup_n is known, and steady[k] gets each phase's steady view; at: 2n offsets. */
static void ttft_tpot__sets(const ttft_tpot *c, ttft_tpot__work *w, int by_phase, const size_t *count, size_t *at,
                            ttft_tpot_stats *st, ttft_tpot_stats *steady, unsigned n, ttft_tpot__batches *bt)
{
    unsigned lo = 0, hi, j;
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
            uint64_t *x;
            if (j == 0 ? big < 0 : (int)k == big)
                continue;
            x = w->x + at[n + k] - count[k]; /* at[n + k] is now the end of k's slice */
            if (by_phase)
                ttft_tpot__finish_phase(c, w, x, count[k], st[k].warmup_n, (int)k, (int)k == big ? &scan : NULL,
                                        &st[k], &steady[k]);
            else
                ttft_tpot__finish_set(c, w, x, count[k], -1, k == 2 ? TTFT_TPOT_ROLE_E2E : (int)k, &st[k]);
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
    ttft_tpot__sets(c, w, 0, n, at, set, NULL, 3, NULL);
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
    if (c->prefill_kernel >= 0) {
        out->has_prefill_kernel = ph[c->prefill_kernel].n > 0;
        out->prefill_kernel_min_ns = ph[c->prefill_kernel].min_ns;
    }
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
    ttft_tpot__narrowed_ranks(w->x, 0, &in, slot, w->nw.mark, rank, 2, val);
    ttft_tpot__interp(val[0], val[1], f, 100, &ss->p50_ns, &ss->p50_exact_ns);
}

/* Which phases are measured (a decode-role phase with a sample, all of them stored: not a bounded
   phase with samples in its histogram), and room for their batch sums. OK or ENOMEM. */
static int ttft_tpot__batches_of(const ttft_tpot *c, const size_t *count, ttft_tpot__batches *b)
{
    size_t np = c->phase.n, total = 0, p;
    for (p = 0; p < np; p++)
        total += c->phase.slots[p].role == TTFT_TPOT_ROLE_DECODE ? count[p] / 5 : 0;
    b->run = (uint64_t *)TTFT_TPOT_MALLOC((2 * np + total + 1) * sizeof *b->run + (np + 1) * (sizeof *b->at + 1),
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
   asked again without them where there are some, and checked where it fires. count: each phase's
   stored samples; steady: each phase's steady view; sp: a spotter a phase and a byte. */
static void ttft_tpot__steady_states(const ttft_tpot *c, ttft_tpot__work *w, const size_t *count,
                                     const ttft_tpot_stats *ph, const ttft_tpot_stats *steady,
                                     const ttft_tpot__batches *b, ttft_tpot__spotter *sp, ttft_tpot_steady_state *ss)
{
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

/* A run figure's spread across the runs that have it: mean, sd (n - 1) and coefficient of variation. */
static void ttft_tpot__across_runs(ttft_tpot_run_figure *f, unsigned runs)
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
    f->ci95[0] = f->mean > half ? f->mean - half : 0; /* none of the figures can be negative */
    f->ci95[1] = f->mean + half;
}

/* Each run's steady TTFT p50, TPOT p50 and output throughput, and their spread: the runs' ranges are
   disjoint, so all of them together read every stored sample twice. */
static void ttft_tpot__runs_of(const ttft_tpot *c, ttft_tpot__work *w, ttft_tpot_runs *out)
{
    ttft_tpot_run_figure *fig = out->fig;
    unsigned r, p, k;
    out->n = c->runs;
    out->dropped = c->runs_dropped;
    out->bounded = 0;
    for (p = 0; p < c->phase.n; p++)
        out->bounded |= c->phase.slots[p].hist && c->phase.slots[p].role <= TTFT_TPOT_ROLE_DECODE &&
                        c->phase.slots[p].hist->max_ns >= c->phase.slots[p].hist->min_ns;
    for (r = 0; r < out->n; r++) {
        size_t end = ttft_tpot__run_end(c, r), i, m;
        uint64_t tokens = 0, hi = 0, lo = 0, ns;
        int role;
        for (role = TTFT_TPOT_ROLE_PREFILL; role <= TTFT_TPOT_ROLE_DECODE; role++) {
            for (i = c->run_at[r], m = 0; i < end; i++) {
                const ttft_tpot_sample *s = &c->store.samples[i];
                if (s->warmup || c->phase.slots[s->phase].role != role)
                    continue;
                w->x[m++] = role == TTFT_TPOT_ROLE_DECODE ? ttft_tpot__per_token(c, i, s->dur_ns) : s->dur_ns;
                if (role == TTFT_TPOT_ROLE_DECODE) {
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
        fig[TTFT_TPOT_RUN_TOK_S].has[r] = fig[TTFT_TPOT_RUN_TPOT].has[r] && (lo || hi);
        fig[TTFT_TPOT_RUN_TOK_S].v[r] = (double)tokens / (((double)hi * TTFT_TPOT__TWO64 + (double)lo) * 1e-9);
    }
    for (k = 0; k < TTFT_TPOT_RUN_FIGURES; k++)
        ttft_tpot__across_runs(&fig[k], out->n);
}

/* Whether a request is in the requests' TTFT series: it has a token, and kept all its events. */
static int ttft_tpot__in_ttft_series(const ttft_tpot_request *q)
{
    return !q->truncated && q->token_events && q->reason < TTFT_TPOT_FINISH_ABORT;
}

/* The steady values of the requests' TTFT series into x; returns how many, and into *k how many come
   before the first cut of them (counting every value). */
static size_t ttft_tpot__ttft_steady(const ttft_tpot *c, uint64_t cut, uint64_t *x, size_t *k)
{
    uint64_t seen = 0;
    size_t n = 0;
    unsigned r;
    for (r = 0, *k = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        if (!ttft_tpot__in_ttft_series(q))
            continue;
        if (!q->warmup)
            x[n++] = q->first_ns - q->submit_ns;
        if (++seen == cut)
            *k = n;
    }
    return n;
}

/* The requests' series checked like a phase's: its spikes, then White's rule (*ss's, in batches) asked
   again of the batch sums sum[0, m) without them where there are some, and checked where it fires.
   x: room for the series. */
static void ttft_tpot__requests_checks(const ttft_tpot *c, uint64_t *x, uint64_t *sum, uint64_t m,
                                       ttft_tpot_steady_state *ss)
{
    ttft_tpot__spotter sp;
    size_t n, k;
    unsigned r;
    double p50;
    if ((n = ttft_tpot__ttft_steady(c, 0, x, &k)) > 0) {
        ttft_tpot__p50(x, n, &p50, &ss->steady_p50_ns);
        ttft_tpot__spot_start(&sp, ss->steady_p50_ns, sum, m);
        for (r = 0; r < c->req.n; r++)
            if (ttft_tpot__in_ttft_series(&c->req.list[r]))
                ttft_tpot__spot(&sp, ss, c->req.list[r].first_ns - c->req.list[r].submit_ns, !c->req.list[r].warmup);
        ttft_tpot__spot_end(&sp, ss);
    }
    if (ss->spikes)
        ttft_tpot__mser5_cuts(sum, m, &ss->white_cut);
    ss->white_cut *= 5;
    if (ss->white_cut) {
        n = ttft_tpot__ttft_steady(c, ss->white_cut, x, &k);
        ss->drift = ttft_tpot__moves(x, n, k, NULL);
    }
}

/* The requests' TTFT series, in submit order (every request with a token that kept all its events,
   warmup ones included), measured like a decode phase: MSER-5's cut and the p50 after it, White's cut
   checked, its spikes. OK, ENOMEM. */
static int ttft_tpot__requests_steady_state(const ttft_tpot *c, ttft_tpot_steady_state *ss)
{
    uint64_t *x = (uint64_t *)TTFT_TPOT_MALLOC((2 * (size_t)c->req.n + 1) * sizeof *x, c->alloc_user), *sum;
    size_t m = 0, b, i;
    unsigned r;
    if (!x)
        return TTFT_TPOT_ENOMEM;
    memset(ss, 0, sizeof *ss);
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        if (!ttft_tpot__in_ttft_series(q))
            continue;
        x[m++] = q->first_ns - q->submit_ns;
        ss->flagged += q->warmup != 0;
    }
    sum = x + m; /* the batch sums go after the series */
    for (b = 0; b < m / 5; b++)
        for (sum[b] = 0, i = 5 * b; i < 5 * b + 5; i++)
            sum[b] = ttft_tpot__sat_add(sum[b], x[i]);
    ss->measured = m > 0;
    ss->truncation = 5 * ttft_tpot__mser5_cuts(sum, m / 5, &ss->white_cut);
    if ((ss->has_p50 = m > ss->truncation) != 0)
        ttft_tpot__p50(x + ss->truncation, m - (size_t)ss->truncation, &ss->p50_ns, &ss->p50_exact_ns);
    ttft_tpot__requests_checks(c, x, sum, m / 5, ss); /* the series in x is done with */
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
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
    unsigned p;
    ttft_tpot__sets(c, w, 1, count, count + np, ph, steady, c->phase.n, bt);
    ttft_tpot__summarize(c, w, count, ph, steady, &m->head);
    ttft_tpot__steady_states(c, w, count, ph, steady, bt, sp, ss);
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
    f->open = c->dev.open;
    f->unresolved = c->dev.unresolved;
    f->refused = c->dev.refused;
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
    const uint64_t own[4] = {c->store.capacity, c->req.max, c->req.max_events, c->shape.max};
    return c->full_known >> k & 1u ? c->full_at[k] : own[k];
}

static void ttft_tpot__losses_of(const ttft_tpot *c, ttft_tpot_losses *l)
{
    l->dropped = c->store.dropped;
    l->rejected = c->rejected;
    l->spans_open = ttft_tpot__spans_open(c);
    l->outgrown = c->store.outgrown;
    l->shapes_dropped = c->shape.dropped;
    l->sequences_lost = c->store.seq_lost;
    l->sequences_in_histogram = c->store.seq_hist;
    l->runs_dropped = c->runs_dropped;
    l->requests_dropped = c->req.dropped;
    l->requests_refused = c->req.refused;
    l->events_lost = c->req.events_lost;
    l->events_kept = c->req.n_events;
    l->capacity = ttft_tpot__limit(c, 0);
    l->max_requests = ttft_tpot__limit(c, 1);
    l->max_request_events = ttft_tpot__limit(c, 2);
    l->max_shapes = ttft_tpot__limit(c, 3);
}

/* The requests' figures, their TTFT series' steady state, and each metric's buckets. */
/* The slices' tokens, requests in flight (a difference array: +1 at the first slice, -1 past the
   last) and submissions; w: their width, x: scratch of a value a measured request. */
static void ttft_tpot__slices_fill(const ttft_tpot *c, ttft_tpot_model *m, uint64_t t0, int64_t *diff)
{
    uint64_t w = m->slice_ns;
    size_t i, k;
    unsigned r;
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        if (!ttft_tpot__measured(q))
            continue;
        diff[(q->submit_ns - t0) / w]++;
        diff[(q->last_ns - t0) / w + 1]--;
        m->slices[(q->submit_ns - t0) / w].submitted++;
    }
    for (i = 0; i < c->req.n_events; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        if (ev->tokens && ttft_tpot__measured(&c->req.list[ev->request]))
            m->slices[(ev->t_ns - t0) / w].tokens += ev->tokens;
    }
    for (k = 0; k < m->n_slices; k++) {
        ttft_tpot_slice *s = &m->slices[k];
        s->start_ns = k * w;
        s->in_flight = (uint64_t)(diff[k] + (k ? (int64_t)m->slices[k - 1].in_flight : 0));
        s->output_tok_s = (double)s->tokens / ((double)w * 1e-9);
        if (!m->requests.has_max_tok_s || s->output_tok_s > m->requests.max_output_tok_s)
            m->requests.max_output_tok_s = s->output_tok_s;
        m->requests.has_max_tok_s = 1;
    }
}

/* Each slice's TTFT p50: the measured requests' TTFTs grouped by their submit's slice (x: room for
   one a request, tmp: as much again), each group sorted. */
static void ttft_tpot__slices_ttft(const ttft_tpot *c, ttft_tpot_model *m, uint64_t t0, uint64_t *x, uint64_t *tmp)
{
    size_t k, at = 0, *start = (size_t *)(void *)tmp; /* tmp holds the offsets first, then sorts */
    unsigned r;
    for (k = 0; k < m->n_slices; k++)
        at += m->slices[k].submitted, start[k] = at;
    for (r = c->req.n; r-- > 0;) {
        const ttft_tpot_request *q = &c->req.list[r];
        if (ttft_tpot__measured(q))
            x[--start[(q->submit_ns - t0) / m->slice_ns]] = q->first_ns - q->submit_ns;
    }
    for (k = 0, at = 0; k < m->n_slices; at += m->slices[k].submitted, k++) {
        size_t n = (size_t)m->slices[k].submitted;
        if (!n)
            continue;
        size_t lo = (n - 1) / 2, hi = n / 2; /* the p50 at h = (n - 1) / 2: one value, or two halved */
        ttft_tpot_sort(x + at, n, tmp);
        m->slices[k].has_ttft = 1;
        m->slices[k].ttft_p50_ns = ((double)x[at + lo] + (double)x[at + hi]) / 2;
    }
}

/* The most measured requests in flight at once, over the run and in each slice (peak_in_flight): a
   sweep over submits (+1) and last tokens (-1) in time from t0, a submit before a last token at the
   same ns (both are in flight then); a slice begins with those in flight at its start. Submits and
   last tokens are sorted apart and merged, so no time needs a bit of its own. ev: room for two a
   request, tmp: as much. */
static uint64_t ttft_tpot__max_concurrent(const ttft_tpot *c, ttft_tpot_model *m, uint64_t t0, uint64_t *ev,
                                          uint64_t *tmp)
{
    uint64_t now = 0, most = 0, *end;
    size_t n = 0, i = 0, j = 0, at = 0;
    unsigned r;
    for (r = 0; r < c->req.n; r++)
        n += ttft_tpot__measured(&c->req.list[r]) ? 1u : 0u;
    end = ev + n;
    for (r = 0, n = 0; r < c->req.n; r++)
        if (ttft_tpot__measured(&c->req.list[r])) {
            ev[n] = c->req.list[r].submit_ns - t0;
            end[n++] = c->req.list[r].last_ns - t0;
        }
    ttft_tpot_sort(ev, n, tmp);
    ttft_tpot_sort(end, n, tmp);
    while (i < n || j < n) {
        int submit = i < n && ev[i] <= end[j]; /* every end follows its own submit: j < n while i < n */
        uint64_t t = submit ? ev[i++] : end[j++];
        size_t k = (size_t)(t / m->slice_ns);
        for (; at < k; at++) /* the slices begun since the last event */
            m->slices[at + 1].peak_in_flight = now;
        now = submit ? now + 1 : now - 1;
        m->slices[k].peak_in_flight = now > m->slices[k].peak_in_flight ? now : m->slices[k].peak_in_flight;
        most = now > most ? now : most;
    }
    return most;
}

/* Results over time (ttft_tpot_model.slices) and the peaks. OK, ENOMEM. */
static int ttft_tpot__slices_of(const ttft_tpot *c, ttft_tpot_model *m)
{
    uint64_t t0 = UINT64_MAX, t1 = 0, *x;
    int64_t *diff;
    size_t n = 0, cells;
    unsigned r;
    for (r = 0; r < c->req.n; r++)
        if (ttft_tpot__measured(&c->req.list[r])) {
            n++;
            t0 = c->req.list[r].submit_ns < t0 ? c->req.list[r].submit_ns : t0;
            t1 = c->req.list[r].last_ns > t1 ? c->req.list[r].last_ns : t1;
        }
    m->slice_ns = c->slice_ns ? c->slice_ns : 1000000000u;
    m->slices_asked = c->slice_ns != 0;
    if (!n)
        return TTFT_TPOT_OK;
    while ((t1 - t0) / m->slice_ns >= (1u << 20)) /* a width that would pass 2^20 slices is doubled */
        m->slice_ns *= 2;
    m->n_slices = (size_t)((t1 - t0) / m->slice_ns) + 1;
    cells = 4 * n > m->n_slices + 1 ? 4 * n : m->n_slices + 1;
    m->slices = (ttft_tpot_slice *)TTFT_TPOT_MALLOC(m->n_slices * sizeof *m->slices, c->alloc_user);
    x = (uint64_t *)TTFT_TPOT_MALLOC(2 * cells * sizeof *x, c->alloc_user);
    if (!m->slices || !x) {
        if (x)
            TTFT_TPOT_FREE(x, c->alloc_user);
        return TTFT_TPOT_ENOMEM; /* the model is freed: its slices with it */
    }
    memset(m->slices, 0, m->n_slices * sizeof *m->slices);
    diff = (int64_t *)(void *)x;
    memset(diff, 0, (m->n_slices + 1) * sizeof *diff);
    ttft_tpot__slices_fill(c, m, t0, diff);
    ttft_tpot__slices_ttft(c, m, t0, x, x + cells);
    m->requests.max_concurrent_requests = ttft_tpot__max_concurrent(c, m, t0, x, x + cells);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* The requests folded out of the table into q: counted (the figures are exact over the rest). */
static void ttft_tpot__folded_figures(const ttft_tpot *c, ttft_tpot_requests *q)
{
    const ttft_tpot__tally *t = &c->folded;
    int k;
    q->folded = t->requests, q->folded_tokens = t->tokens, q->folded_prompt_tokens = t->prompt_tokens;
    q->folded_other = t->unmeasured + t->reasons[TTFT_TPOT_FINISH_ABORT] + t->reasons[TTFT_TPOT_FINISH_ERROR];
    q->truncated += t->truncated;
    q->seen += t->requests + t->truncated + q->folded_other;
    for (k = 0; k < TTFT_TPOT_FINISH_COUNT; k++)
        q->finish_reasons[k] += t->reasons[k];
}

/* The exposition's histograms: every measured request held and every one folded away, each folded
   as a live exposition folds it, so that a trace's exposition equals the live one's. */
static int ttft_tpot__report_buckets(const ttft_tpot *c, ttft_tpot_model *m)
{
    ttft_tpot__tally *t = (ttft_tpot__tally *)TTFT_TPOT_MALLOC(sizeof *t, c->alloc_user);
    unsigned r;
    int k;
    if (!t)
        return TTFT_TPOT_ENOMEM;
    *t = c->folded;
    for (r = 0; r < c->req.n; r++)
        if (ttft_tpot__measured(&c->req.list[r]))
            ttft_tpot__fold(c, t, r);
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        ttft_tpot__tally_buckets(c, t, k, &m->buckets[k]);
    TTFT_TPOT_FREE(t, c->alloc_user);
    return TTFT_TPOT_OK;
}

static int ttft_tpot__request_figures(const ttft_tpot *c, ttft_tpot_model *m)
{
    int rc;
    if ((rc = ttft_tpot__report_buckets(c, m)) != TTFT_TPOT_OK)
        return rc;
    if ((m->has_requests = c->req.n || c->req.dropped || ttft_tpot__tally_any(&c->folded)) != 0 &&
        (rc = ttft_tpot__requests_of(c, &m->requests)) == TTFT_TPOT_OK)
        rc = ttft_tpot__requests_steady_state(c, &m->requests_steady_state);
    if (rc == TTFT_TPOT_OK && m->has_requests)
        rc = ttft_tpot__slices_of(c, m);
    ttft_tpot__folded_figures(c, &m->requests);
    m->losses.requests_truncated = m->requests.truncated;
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_model_compute(const ttft_tpot *c, const ttft_tpot_model_options *options,
                                          ttft_tpot_model *m)
{
    size_t np;
    unsigned p;
    int rc = TTFT_TPOT_OK;
    if (!c || !m)
        return TTFT_TPOT_EINVAL;
    memset(m, 0, sizeof *m);
    np = c->phase.n ? c->phase.n : 1;
    m->collector = c;
    m->samples = c->store.samples;
    m->starts = c->store.starts;
    m->alloc_user = c->alloc_user;
    m->skipped = options ? options->skip : 0;
    m->clock_name = c->clock_name[0] ? c->clock_name : "unknown";
    m->clock_read_ns = c->clock_read_ns;
    m->phases = c->phase.n;
    m->slo = c->slo;
    ttft_tpot__losses_of(c, &m->losses);
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
    if (!(m->skipped & TTFT_TPOT_SKIP_SAMPLES))
        rc = ttft_tpot__sample_figures(c, m);
    if (rc == TTFT_TPOT_OK && !(m->skipped & TTFT_TPOT_SKIP_SHARES))
        rc = ttft_tpot__shares_of(c, m);
    if (rc == TTFT_TPOT_OK && !(m->skipped & TTFT_TPOT_SKIP_REQUESTS))
        rc = ttft_tpot__request_figures(c, m);
    if (rc == TTFT_TPOT_OK) /* nothing to do without device intervals */
        rc = ttft_tpot__device_of(c, m);
    if (rc != TTFT_TPOT_OK)
        ttft_tpot_model_free(m);
    return rc;
}

TTFT_TPOT_DEF void ttft_tpot_model_free(ttft_tpot_model *m)
{
    if (!m)
        return;
    if (m->phase)
        TTFT_TPOT_FREE(m->phase, m->alloc_user);
    if (m->device.step_ns)
        TTFT_TPOT_FREE(m->device.step_ns, m->alloc_user);
    if (m->slices)
        TTFT_TPOT_FREE(m->slices, m->alloc_user);
    memset(m, 0, sizeof *m);
}

/* ---- Writers (text, JSON, Prometheus) -------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* -- Writers: numbers, units and names as text ------------------------------------------------- */

/* One double through printf, with '.' as the decimal point whatever LC_NUMERIC says: every output is
   locale-independent, the text report included (it is pasted and grepped). The locale's decimal
   point is the one run of bytes in the output that is not a digit, sign or exponent. */
static const char *ttft_tpot__num(char *buf, size_t len, const char *fmt, double v)
{
    char *p, *q;
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

/* Integer ns in units of 10^digits ns (3: us, 6: ms, 9: s) with every decimal: exact, no locale. */
static const char *ttft_tpot__fixed(char *buf, size_t len, uint64_t ns, unsigned digits)
{
    uint64_t unit = 1;
    unsigned k;
    for (k = 0; k < digits; k++)
        unit *= 10;
    snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(ns / unit), (int)digits, (unsigned long long)(ns % unit));
    return buf;
}

/* v with `places` decimals ("%.2f"), or, when that would print a positive v as 0, with 3 significant
   digits ("5.42e-11"): no figure reads 0 that is not. */
static const char *ttft_tpot__fix(char *buf, size_t len, int places, double v)
{
    static const char *const fmt[3] = {"%.0f", "%.1f", "%.2f"};
    double half = places == 0 ? 0.5 : places == 1 ? 0.05 : 0.005;
    return ttft_tpot__num(buf, len, v > 0 && v < half ? "%.3g" : fmt[places], v);
}

/* The plural ending of a count's noun: "1 call", "2 calls". */
static const char *ttft_tpot__s(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

/* The unit a duration reads well in: its size in ns, and its name ("s", "ms", "us", "ns"). */
static double ttft_tpot__unit(double ns, const char **name)
{
    *name = ns >= 1e9 ? "s" : ns >= 1e6 ? "ms" : ns >= 1e3 ? "us" : "ns";
    return ns >= 1e9 ? 1e9 : ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1;
}

/* ns in unit (ttft_tpot__unit): 2 decimals, whole ns. */
static const char *ttft_tpot__in(char *buf, size_t len, double ns, double unit)
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

/* Output gathered in a block and written with one fwrite a block: every writer formats numbers and
   copies names, escaped once, into it instead of calling stdio for each field. The writers of a line
   an event take a large block (it saves system calls: 256 KiB); the reports, whose output is small,
   take TTFT_TPOT__OUT_MIN on the stack. */
#define TTFT_TPOT__OUT_BIG 262144
#define TTFT_TPOT__OUT_MIN 16384
typedef struct ttft_tpot__out {
    FILE *f;
    char *b;
    size_t n, cap;
} ttft_tpot__out;

static void ttft_tpot__out_flush(ttft_tpot__out *o)
{
    if (o->n)
        fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

static void ttft_tpot__out_put(ttft_tpot__out *o, const char *s, size_t len)
{
    if (o->n + len > o->cap)
        ttft_tpot__out_flush(o);
    if (len > o->cap) {
        fwrite(s, 1, len, o->f);
        return;
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
}

static void ttft_tpot__out_str(ttft_tpot__out *o, const char *s)
{
    ttft_tpot__out_put(o, s, strlen(s));
}

/* Room for need bytes (at most TTFT_TPOT__OUT_MIN) at the block's end: where to write them; the
   caller sets o->n past what it wrote. */
static char *ttft_tpot__out_room(ttft_tpot__out *o, size_t need)
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

static void ttft_tpot__out_chr(ttft_tpot__out *o, char ch)
{
    *ttft_tpot__out_room(o, 1) = ch;
    o->n++;
}

/* printf into the block: the figures that need a format (integers and strings only: no locale). A
   text longer than the block goes to the file whole. */
static void ttft_tpot__out_fmt(ttft_tpot__out *o, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(o->b + o->n, o->cap - o->n, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n < o->cap - o->n) {
        o->n += n < 0 ? 0 : (size_t)n;
        return;
    }
    ttft_tpot__out_flush(o);
    va_start(ap, fmt);
    if ((size_t)n < o->cap)
        o->n = (size_t)vsnprintf(o->b, o->cap, fmt, ap);
    else
        vfprintf(o->f, fmt, ap);
    va_end(ap);
}

/* A block of cap bytes at b for f. */
static void ttft_tpot__out_open(ttft_tpot__out *o, FILE *f, char *b, size_t cap)
{
    o->f = f;
    o->b = b;
    o->n = 0;
    o->cap = cap;
}

/* The block written out, and whether all of it reached the file. */
static int ttft_tpot__out_close(ttft_tpot__out *o)
{
    ttft_tpot__out_flush(o);
    return ttft_tpot__finish(o->f);
}

/* Whether a model holds the parts a writer prints (TTFT_TPOT_SKIP_* bits). */
static int ttft_tpot__holds(const ttft_tpot_model *m, unsigned parts)
{
    return m && !(m->skipped & parts);
}

/* -- Writers: the text report ------------------------------------------------------------------ */

/* "p50 / p90 / p99 ms" of a set (one value at least), or its chosen percentiles, for the serving lines. */
static void ttft_tpot__serving_line(FILE *out, const char *what, const ttft_tpot_stats *st, const char *span)
{
    char a[32], b[32], d[32], e[32], names[9 * TTFT_TPOT_MAX_PERCENTILES] = "", *at = names;
    unsigned k;
    if (!st->pick_n) {
        fprintf(out, "  %-4s p50/p90/p99: %s / %s / %s", what, ttft_tpot__dur(a, sizeof a, st->p50_ns),
                ttft_tpot__dur(b, sizeof b, st->p90_ns), ttft_tpot__dur(d, sizeof d, st->p99_ns));
    } else { /* the chosen percentiles (config.percentiles) */
        for (k = 0; k < st->pick_n; k++) { /* "p50/p99.9" */
            if (k)
                *at++ = '/';
            at += strlen(ttft_tpot_percentile_name(at, 8, st->pick_pm[k]));
        }
        fprintf(out, "  %-4s %s:", what, names);
        for (k = 0; k < st->pick_n; k++)
            fprintf(out, "%s%s", k ? " / " : " ", ttft_tpot__dur(a, sizeof a, (double)st->pick_ns[k]));
    }
    fprintf(out, "  (mean %s, n=%llu%s%s)\n", ttft_tpot__dur(e, sizeof e, st->mean_ns), (unsigned long long)st->n,
            span ? ": " : "", span ? span : "");
}
/* What the request tables could not keep, and what that leaves out. */
static void ttft_tpot__text_request_losses(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_requests *q = &m->requests;
    const ttft_tpot_losses *l = &m->losses;
    if (q->dropped)
        fprintf(out, "WARNING: %llu request event%s dropped: the request tables are full (config.max_requests %llu, "
                     "max_request_events %llu; %llu submits refused)\n",
                (unsigned long long)q->dropped, ttft_tpot__s(q->dropped), (unsigned long long)l->max_requests,
                (unsigned long long)l->max_request_events, (unsigned long long)l->requests_refused);
    if (q->truncated)
        fprintf(out, "WARNING: %llu request%s truncated: %llu events did not fit config.max_request_events %llu "
                     "(%llu would hold every event); left out of every request figure\n",
                (unsigned long long)q->truncated, q->truncated == 1 ? "" : "s", (unsigned long long)l->events_lost,
                (unsigned long long)l->max_request_events, (unsigned long long)l->events_kept + l->events_lost);
    if (q->finish_reasons[TTFT_TPOT_FINISH_ABORT] || q->finish_reasons[TTFT_TPOT_FINISH_ERROR])
        fprintf(out, "NOTE: %llu aborted and %llu errored requests: in no latency figure (as vLLM's histograms "
                     "leave them out); counted in request_failure_total\n",
                (unsigned long long)q->finish_reasons[TTFT_TPOT_FINISH_ABORT],
                (unsigned long long)q->finish_reasons[TTFT_TPOT_FINISH_ERROR]);
    if (q->folded || q->folded_other)
        fprintf(out, "NOTE: %llu finished requests were folded out of the request table to make room "
                     "(config.request_window), %llu of them measured (%llu tokens): the figures below are exact "
                     "over the %llu measured requests it still holds; the Prometheus histograms and counters count "
                     "all %llu measured (each quantile within the buckets' bound)\n",
                (unsigned long long)q->folded + (unsigned long long)q->folded_other, (unsigned long long)q->folded,
                (unsigned long long)q->folded_tokens, (unsigned long long)q->n,
                (unsigned long long)q->n + (unsigned long long)q->folded);
}

/* The goodput line: the SLOs set, and how many requests met them. */
static void ttft_tpot__text_goodput(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_requests *q = &m->requests;
    const double slo[3] = {m->slo.ttft_ms, m->slo.tpot_ms, m->slo.e2e_ms};
    static const char *const what[3] = {"TTFT", "TPOT", "E2E"};
    char a[64];
    int k, any = 0;
    fputs("  Goodput (", out);
    for (k = 0; k < 3; k++)
        if (slo[k] > 0)
            fprintf(out, "%s%s <= %s ms", any++ ? ", " : "", what[k], ttft_tpot__num(a, sizeof a, "%g", slo[k]));
    fprintf(out, "): %llu of %llu good (%s%%)", (unsigned long long)q->good_n, (unsigned long long)q->n,
            ttft_tpot__fix(a, sizeof a, 1, 100.0 * q->good_fraction));
    if (q->has_window)
        fprintf(out, ", %s good req/s", ttft_tpot__fix(a, sizeof a, 2, q->good_rps));
    fputs("\n", out);
}

/* The request metrics' lines (TTFT_TPOT_METRICS): a part of a metric goes under it, indented, where
   requests have one (queue and prefill split TTFT where requests were scheduled), followed by how many
   measured requests have none. */
static void ttft_tpot__text_metrics(const ttft_tpot_requests *q, FILE *out)
{
    char what[16];
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        const ttft_tpot__metric_info *i = &ttft_tpot__metrics[m];
        int part = i->under != TTFT_TPOT_METRIC_NONE, last = m + 1 == TTFT_TPOT_METRIC_COUNT;
        if (!q->metric[m].n) /* a row without data is left out */
            continue;
        snprintf(what, sizeof what, part ? "  %-7s" : "%s", i->label);
        ttft_tpot__serving_line(out, what, &q->metric[m], *i->note ? i->note : NULL);
        if (part && q->unscheduled && (last || ttft_tpot__metrics[m + 1].under == TTFT_TPOT_METRIC_NONE))
            fprintf(out, "    (%llu measured requests have no schedule event: not in queue and prefill)\n",
                    (unsigned long long)q->unscheduled);
    }
}

/* The serving section of the text report. */
/* The slices, a line each (asked for with config.slice_ns). */
static void ttft_tpot__text_slices(const ttft_tpot_model *m, FILE *out)
{
    char a[32], b[32], d[32];
    size_t k;
    fprintf(out, "  Over time (%s slices from the first submit):\n       start       tok/s  in flight  submitted  "
                 "TTFT p50\n", ttft_tpot__dur(a, sizeof a, (double)m->slice_ns));
    for (k = 0; k < m->n_slices; k++) {
        const ttft_tpot_slice *s = &m->slices[k];
        fprintf(out, "  %10s %11s %10llu %10llu  %s\n", ttft_tpot__dur(a, sizeof a, (double)s->start_ns),
                ttft_tpot__fix(b, sizeof b, 1, s->output_tok_s), (unsigned long long)s->in_flight,
                (unsigned long long)s->submitted, s->has_ttft ? ttft_tpot__dur(d, sizeof d, s->ttft_p50_ns) : "-");
    }
}

static void ttft_tpot__text_serving(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_requests *q = &m->requests;
    char a[32], b[32];
    if (q->truncated)
        fprintf(out, "\nServing: %llu request%s measured (%llu warmup, %llu incomplete and %llu truncated excluded)",
                (unsigned long long)q->n, ttft_tpot__s(q->n), (unsigned long long)q->warmup_excluded,
                (unsigned long long)q->incomplete, (unsigned long long)q->truncated);
    else
        fprintf(out, "\nServing: %llu request%s measured (%llu warmup and %llu incomplete excluded)",
                (unsigned long long)q->n, ttft_tpot__s(q->n), (unsigned long long)q->warmup_excluded,
                (unsigned long long)q->incomplete);
    if (q->has_window)
        fprintf(out, ", window %s\n", ttft_tpot__dur(a, sizeof a, q->window_ns));
    else
        fputs("\n", out);
    ttft_tpot__text_request_losses(m, out);
    ttft_tpot__text_metrics(q, out);
    if (q->has_window)
        fprintf(out, "  Throughput: %s req/s, %s output tok/s  (%llu tokens of measured requests / window)\n",
                ttft_tpot__fix(a, sizeof a, 2, q->request_rps), ttft_tpot__fix(b, sizeof b, 1, q->output_tok_s),
                (unsigned long long)q->tokens);
    if (q->has_max_tok_s)
        fprintf(out, "  Peak: %s output tok/s (the busiest %s slice), %llu concurrent request%s\n",
                ttft_tpot__fix(a, sizeof a, 1, q->max_output_tok_s), ttft_tpot__dur(b, sizeof b, (double)m->slice_ns),
                (unsigned long long)q->max_concurrent_requests, ttft_tpot__s(q->max_concurrent_requests));
    if (q->has_goodput)
        ttft_tpot__text_goodput(m, out);
    if (m->slices_asked)
        ttft_tpot__text_slices(m, out);
}

/* The requests' TTFT series when its measured warmup (MSER-5) runs past the warmup requests. */
static void ttft_tpot__text_request_cut(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_steady_state *ss = &m->requests_steady_state;
    uint64_t past = ss->truncation - ss->flagged;
    char a[32], b[32];
    if (m->has_requests && ss->measured && ss->drift && m->requests.metric[TTFT_TPOT_METRIC_TTFT].n) {
        fputs("requests: no steady state: MSER-5's best cut falls in the second half of their TTFTs (White's rule): "
              "they keep rising or falling, as a queue that builds up does\n", out);
        return;
    }
    if (!m->has_requests || !ss->measured || ss->truncation <= ss->flagged || !ss->has_p50 || !m->requests.metric[TTFT_TPOT_METRIC_TTFT].n)
        return;
    fprintf(out, "requests: MSER-5 puts the end of warmup at request %llu, %llu request%s after the %llu flagged; "
                 "TTFT p50 %s with them, %s without\n",
            (unsigned long long)ss->truncation, (unsigned long long)past, past == 1 ? "" : "s",
            (unsigned long long)ss->flagged, ttft_tpot__dur(a, sizeof a, m->requests.metric[TTFT_TPOT_METRIC_TTFT].p50_ns),
            ttft_tpot__dur(b, sizeof b, ss->p50_ns));
}

/* A series' isolated spikes, the first TTFT_TPOT__SPIKES_SHOWN of them: "decode_step: 2 isolated spikes:
   step 120 at 9.00 ms (3.0x the steady p50), step 170 at 9.00 ms (3.0x)". what: "step" or "request". */
#define TTFT_TPOT__SPIKES_SHOWN 3
static void ttft_tpot__text_spikes(FILE *out, const char *name, const char *what, const ttft_tpot_steady_state *ss)
{
    uint64_t k, shown = ss->spikes < TTFT_TPOT__SPIKES_SHOWN ? ss->spikes : TTFT_TPOT__SPIKES_SHOWN;
    char a[32], b[32];
    if (!ss->measured || !ss->spikes)
        return;
    fprintf(out, "%s: %llu isolated spike%s:", name, (unsigned long long)ss->spikes, ss->spikes == 1 ? "" : "s");
    for (k = 0; k < shown; k++) {
        double times = ss->steady_p50_ns ? (double)ss->spike_ns[k] / (double)ss->steady_p50_ns : 0;
        fprintf(out, "%s %s %llu at %s", k ? "," : "", what, (unsigned long long)ss->spike_step[k],
                ttft_tpot__dur(a, sizeof a, (double)ss->spike_ns[k]));
        if (ss->steady_p50_ns)
            fprintf(out, " (%sx%s)", ttft_tpot__fix(b, sizeof b, 1, times), k ? "" : " the steady p50");
        else if (k == 0)
            fputs(" (the steady p50 is 0)", out);
    }
    if (ss->spikes > shown)
        fprintf(out, ", and %llu more", (unsigned long long)(ss->spikes - shown));
    fputc('\n', out);
}

/* The requests' TTFT series: no steady state, or its measured warmup (MSER-5) when it runs past the
   warmup requests; and its spikes. */
static void ttft_tpot__text_request_warmup(const ttft_tpot_model *m, FILE *out)
{
    ttft_tpot__text_request_cut(m, out);
    if (m->has_requests && m->requests.metric[TTFT_TPOT_METRIC_TTFT].n)
        ttft_tpot__text_spikes(out, "requests", "request", &m->requests_steady_state);
}

/* The report's first line, and a warning when reading the clock is a system call. */
static void ttft_tpot__text_head(const ttft_tpot_model *m, FILE *out)
{
    fprintf(out, "ttft_tpot report: %llu sample%s in %u phase%s (clock: %s", (unsigned long long)m->head.samples,
            ttft_tpot__s(m->head.samples), m->phases, ttft_tpot__s(m->phases), m->clock_name);
    if (m->clock_read_ns)
        fprintf(out, ", %llu ns/read", (unsigned long long)m->clock_read_ns);
    fputs(")\n", out);
    if (m->clock_read_ns > 200) /* a clock without vDSO: every read is a system call */
        fprintf(out, "WARNING: one clock read costs %llu ns: spans shorter than ~%llu us are distorted\n",
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
        snprintf(buf, len, "%s [CI needs n>=%llu]", a, (unsigned long long)ttft_tpot_ci95_min_n(ttft_tpot__ci_pcts[k]));
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
        snprintf(buf, len, "needs n>=%llu", (unsigned long long)ttft_tpot_ci95_min_n(ttft_tpot__ci_pcts[k]));
    return buf;
}

/* Steady prefills that carry no prompt count: none when more carried one (a merge may have dropped
   samples that did, after their prompt tokens were summed). */
static uint64_t ttft_tpot__without_prompt(const ttft_tpot_summary *s)
{
    return s->ttft_steady.n > s->prefill_counted ? s->ttft_steady.n - s->prefill_counted : 0;
}

/* The prefill rate, under TTFT: the speed of prefill apart from the prompt's length. */
static void ttft_tpot__text_prefill(const ttft_tpot_summary *s, FILE *out)
{
    char a[32];
    uint64_t without = ttft_tpot__without_prompt(s);
    if (!s->ttft_steady.n && !s->has_prefill_tok_s)
        return;
    if (!s->has_prefill_tok_s) {
        fprintf(out, "Prefill rate          : n/a         (no steady prefill carries prompt tokens: give each "
                     "prefill span its prompt token count)\n");
        return;
    }
    fprintf(out, "Prefill rate          : %s tok/s  (prompt tokens / steady prefill time) over %llu prefills, %llu "
                 "prompt tokens",
            ttft_tpot__fix(a, sizeof a, 1, s->prefill_tok_s), (unsigned long long)s->prefill_counted,
            (unsigned long long)s->prefill_tokens);
    if (without)
        fprintf(out, "; %llu steady prefills carry no prompt count and are left out", (unsigned long long)without);
    fputc('\n', out);
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
static void ttft_tpot__text_ttft(const ttft_tpot_summary *s, FILE *out)
{
    const ttft_tpot_stats *t = &s->ttft_steady;
    char a[32], b[32], d[32], e[32], ci[80];
    if (!s->has_ttft_first)
        return;
    fprintf(out, "TTFT (first request)  : %-11s (%s)\n", ttft_tpot__dur(a, sizeof a, (double)s->ttft_first_ns),
            ttft_tpot__first_label(s));
    if (t->n)
        fprintf(out, "TTFT (steady, p50)    : %-11s (n=%llu, p90 %s, p99 %s, mean %s; p50 95%% CI %s%s)\n",
                ttft_tpot__dur(a, sizeof a, t->p50_ns), (unsigned long long)t->n, ttft_tpot__dur(b, sizeof b, t->p90_ns),
                ttft_tpot__dur(d, sizeof d, t->p99_ns), ttft_tpot__dur(e, sizeof e, t->mean_ns),
                ttft_tpot__ci_text(ci, sizeof ci, t, 0), t->approx ? "; ~ within 0.8%: bounded histogram" : "");
    else if (s->has_prefill_kernel)
        fprintf(out, "TTFT (steady, p50)    : n/a         (no warmed-up prefill measured: time a warmup "
                     "request first; prefill kernel alone: %s)\n",
                ttft_tpot__dur(a, sizeof a, (double)s->prefill_kernel_min_ns));
    else
        fprintf(out, "TTFT (steady, p50)    : n/a         (no warmed-up prefill measured: time a warmup "
                     "request first)\n");
}

/* TPOT, output throughput and e2e: each a figure, or n/a with the reason; none of a role without a
   sample (a report of requests alone opens with them). */
static void ttft_tpot__text_decode(const ttft_tpot_summary *s, FILE *out)
{
    const ttft_tpot_stats *t = &s->tpot;
    double unit = t->p99_ns >= 1e6 ? 1e6 : 1e3; /* ms/token as vLLM prints it; us under a millisecond */
    char a[128], b[128], c[32];
    if (t->n)
        fprintf(out, "TPOT (steady, p50/p99): %s / %s %s/token  (n=%llu, excl. %llu warmup step%s; 95%% CI of these steps, not of another run%s%s)\n",
                ttft_tpot__with_ci(a, sizeof a, t, 0, unit), ttft_tpot__with_ci(b, sizeof b, t, 2, unit),
                unit == 1e6 ? "ms" : "us", (unsigned long long)t->n, (unsigned long long)s->tpot_excluded,
                s->tpot_excluded == 1 ? "" : "s", t->n < 100 ? "; p99 of fewer than 100 samples" : "",
                t->approx ? "; ~ within 0.8%: bounded histogram" : "");
    else if (s->tpot_excluded) /* decode steps, all warmup */
        fprintf(out, "TPOT (steady, p50/p99): n/a         (no steady decode step; %llu warmup step%s excluded)\n",
                (unsigned long long)s->tpot_excluded, s->tpot_excluded == 1 ? "" : "s");
    if (s->has_acceptance)
        fprintf(out, "Acceptance length     : %s tokens a sequence a step (mean; p50 %s, p90 %s): %llu of the steady "
                     "steps emitted more than one, TPOT takes their time per output token\n",
                ttft_tpot__fix(a, sizeof a, 2, s->acceptance_mean), ttft_tpot__fix(b, sizeof b, 2, s->acceptance_p50),
                ttft_tpot__fix(c, sizeof c, 2, s->acceptance_p90), (unsigned long long)s->tpot_multi);
    if (s->has_output_tok_s)
        fprintf(out, "Output throughput     : %s tok/s  (decode-only, steady)\n",
                ttft_tpot__fix(a, sizeof a, 1, s->output_tok_s));
    else if (t->n)
        fprintf(out, "Output throughput     : n/a         (the %llu steady decode steps took 0 ns)\n",
                (unsigned long long)t->n);
    else if (s->tpot_excluded)
        fprintf(out, "Output throughput     : n/a         (no steady decode step)\n");
    if (s->has_e2e_tok_s)
        fprintf(out, "e2e                   : %s tok/s  (%llu tokens / %s; incl. prefill and warmup, "
                     "not a serving throughput)\n",
                ttft_tpot__fix(a, sizeof a, 2, s->e2e_tok_s), (unsigned long long)s->e2e.tokens,
                ttft_tpot__dur(b, sizeof b, s->e2e.total_ns));
    else if (s->e2e.n && !s->e2e.tokens)
        fprintf(out, "e2e                   : n/a         (the e2e samples carry no tokens: end an e2e span "
                     "with TTFT_TPOT_SPAN_END_TOKENS)\n");
    else if (s->e2e.n)
        fprintf(out, "e2e                   : n/a         (the e2e samples took 0 ns)\n");
}

/* What the collector could not keep or refused. */
static void ttft_tpot__text_warnings(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_losses *l = &m->losses;
    if (l->dropped)
        fprintf(out, "WARNING: %llu sample%s dropped (storage full at %llu): figures cover the stored ones\n",
                (unsigned long long)l->dropped, ttft_tpot__s(l->dropped), (unsigned long long)l->capacity);
    if (l->outgrown)
        fprintf(out, "NOTE: storage full at %llu samples: %llu phase%s went on in histograms (marked ~): their "
                     "counts, sums and throughputs are exact, their percentiles within 0.78%%\n",
                (unsigned long long)l->capacity, (unsigned long long)l->outgrown, ttft_tpot__s(l->outgrown));
    if (l->rejected)
        fprintf(out, "WARNING: %llu call%s rejected (unknown phase or request, invalid duration, span misuse)\n",
                (unsigned long long)l->rejected, ttft_tpot__s(l->rejected));
    if (l->spans_open)
        fprintf(out, "WARNING: %llu span%s begun and not ended: what %s timed is in no figure (a begin without "
                     "its end, or a Python span made without `with`)\n",
                (unsigned long long)l->spans_open, ttft_tpot__s(l->spans_open), l->spans_open == 1 ? "it" : "they");
    if (l->shapes_dropped)
        fprintf(out, "WARNING: %llu sample%s with a new shape not flagged warmup: the shape table (config.max_shapes "
                     "%llu) is full\n",
                (unsigned long long)l->shapes_dropped, ttft_tpot__s(l->shapes_dropped),
                (unsigned long long)l->max_shapes);
    if (l->sequences_lost)
        fprintf(out, "WARNING: %llu decode step%s of several tokens a sequence kept without %s sequences "
                     "(config.sequences is off): TPOT takes %s step time, not %s time per output token\n",
                (unsigned long long)l->sequences_lost, ttft_tpot__s(l->sequences_lost),
                l->sequences_lost == 1 ? "its" : "their", l->sequences_lost == 1 ? "its" : "their",
                l->sequences_lost == 1 ? "its" : "their");
    if (l->sequences_in_histogram)
        fprintf(out, "WARNING: %llu decode step%s of several tokens a sequence went on in a histogram, which keeps "
                     "step times: TPOT takes %s step time, and the acceptance length leaves %s out\n",
                (unsigned long long)l->sequences_in_histogram, ttft_tpot__s(l->sequences_in_histogram),
                l->sequences_in_histogram == 1 ? "its" : "their", l->sequences_in_histogram == 1 ? "it" : "them");
}

/* A row of figures: n, then avg, min, max, p50 and p99 (approx: from a histogram). */
static void ttft_tpot__text_row(FILE *out, const char *name, const char *role, const char *warm,
                                const ttft_tpot_stats *t)
{
    char a[32], b[32], d[32], e[32], f[32];
    fprintf(out, "%-24s %-7s %8llu %6s %11s %11s %11s %11s %10s%s%s", name, role, (unsigned long long)t->n, warm,
            ttft_tpot__dur(a, sizeof a, t->mean_ns), ttft_tpot__dur(b, sizeof b, (double)t->min_ns),
            ttft_tpot__dur(d, sizeof d, (double)t->max_ns), ttft_tpot__dur(e, sizeof e, t->p50_ns),
            ttft_tpot__dur(f, sizeof f, t->p99_ns), t->n < 100 ? "*" : " ", t->approx ? " ~" : "");
}

/* One row a phase, in order of first use, every sample; under a phase with warmup samples, its
   steady row (warmup excluded) and the slowest warmup sample. */
static void ttft_tpot__text_rows(const ttft_tpot_model *m, FILE *out)
{
    char w[32], mx[32];
    unsigned q, empty = 0;
    int few = 0, approx = 0;
    if (m->phases)
        fprintf(out, "\n%-24s %-7s %8s %6s %11s %11s %11s %11s %11s\n", "phase", "role", "n", "warmup", "avg",
                "min", "max", "p50", "p99");
    for (q = 0; q < m->phases; q++) { /* names are printable UTF-8 (the name rule): printed as is */
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->all, *st = &f->steady;
        if (t->n == 0) { /* last in the order: listed on one line below */
            fprintf(out, empty++ ? ", %s" : "no samples: %s", f->name);
            continue;
        }
        few |= t->n < 100;
        approx |= t->approx;
        snprintf(w, sizeof w, "%llu", (unsigned long long)t->warmup_n);
        ttft_tpot__text_row(out, f->name, ttft_tpot_role_name(f->role), w, t);
        fputc('\n', out);
        if (t->warmup_n == 0 || st->n == 0)
            continue; /* the steady row would repeat the row above, or be empty */
        ttft_tpot__text_row(out, "  steady", "", "-", st);
        fprintf(out, "  warmup max %s\n", ttft_tpot__dur(mx, sizeof mx, (double)t->warmup_max_ns));
    }
    if (empty)
        fputc('\n', out);
    if (few)
        fprintf(out, "* p99 of fewer than 100 samples: close to the max, not a tail estimate\n");
    if (approx)
        fprintf(out, "~ bounded phase: avg and percentiles from a histogram, within 0.78%% of exact (config.bounded, "
                     "or a phase that went on in one when the storage was full)\n");
}

/* A decode phase with no steady state, or whose measured warmup (MSER-5) runs past the samples flagged
   warmup: the line says where, and the p50 with and without those samples (and whether that lies in
   the interval). */
static void ttft_tpot__text_phase_cut(const ttft_tpot_model *m, unsigned p, FILE *out)
{
    const ttft_tpot_steady_state *ss = &m->phase[p].steady_state;
    const ttft_tpot_stats *st = &m->phase[p].steady;
    uint64_t flagged = ss->flagged, past = ss->truncation - flagged;
    char a[32], b[32], which[48];
    if (ss->measured && ss->drift && st->n) {
        fprintf(out, "%s: no steady state: MSER-5's best cut falls in the second half of its steps (White's rule): "
                     "they keep rising or falling\n", m->phase[p].name);
        return;
    }
    if (!ss->measured || ss->truncation <= flagged || !st->n || !ss->has_p50)
        return;
    if (flagged > 1)
        snprintf(which, sizeof which, "%llu flagged", (unsigned long long)flagged);
    else
        snprintf(which, sizeof which, "%s", flagged ? "flagged one" : "first (none flagged)");
    fprintf(out, "%s: MSER-5 puts the end of warmup at step %llu, %llu step%s after the %s; TPOT p50 %s with "
                 "them, %s without%s\n",
            m->phase[p].name, (unsigned long long)ss->truncation, (unsigned long long)past, past == 1 ? "" : "s",
            which, ttft_tpot__dur(a, sizeof a, st->p50_ns), ttft_tpot__dur(b, sizeof b, ss->p50_ns),
            st->has_ci[0] && ss->p50_exact_ns >= st->ci_ns[0][0] && ss->p50_exact_ns <= st->ci_ns[0][1]
                ? " (within the p50's 95% interval)" : "");
}

/* Each decode phase's measured warmup or lack of a steady state, then its spikes. */
static void ttft_tpot__text_steady_states(const ttft_tpot_model *m, FILE *out)
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
static void ttft_tpot__text_run_figure(FILE *out, const char *what, unsigned k, const ttft_tpot_run_figure *f)
{
    const char *name = "tok/s";
    double unit = k == TTFT_TPOT_RUN_TOK_S ? 1 : ttft_tpot__unit(f->mean, &name);
    char a[32], b[32], d[40];
    if (f->has_cv)
        snprintf(d, sizeof d, "%s%%", ttft_tpot__fix(a, sizeof a, 1, f->cv * 100));
    else
        snprintf(d, sizeof d, "n/a");
    if (k == TTFT_TPOT_RUN_TOK_S)
        fprintf(out, "%s %s +- %s %s (CV %s)", what, ttft_tpot__fix(a, sizeof a, 1, f->mean),
                ttft_tpot__fix(b, sizeof b, 1, f->sd), name, d);
    else
        fprintf(out, "%s %s +- %s %s (CV %s)", what, ttft_tpot__in(a, sizeof a, f->mean, unit),
                ttft_tpot__in(b, sizeof b, f->sd, unit), name, d);
}

/* The across-run 95% interval of each figure's mean, in the order of the runs line: what a user
   compares ("  mean's 95% CI       : TPOT p50 [3.17, 3.27] ms, ..."); nothing with fewer than 2 runs. */
static void ttft_tpot__text_run_cis(FILE *out, const ttft_tpot_runs *rs, const char *const *what,
                                    const unsigned *shown)
{
    unsigned k, any = 0;
    char a[32], b[32];
    for (k = 0; k < 3; k++) {
        const ttft_tpot_run_figure *f = &rs->fig[shown[k]];
        const char *name = "tok/s";
        double unit = shown[k] == TTFT_TPOT_RUN_TOK_S ? 1 : ttft_tpot__unit(f->mean, &name);
        if (!f->has_ci || rs->bounded)
            continue;
        fputs(any++ ? ", " : "  mean's 95% CI       : ", out);
        if (shown[k] == TTFT_TPOT_RUN_TOK_S)
            fprintf(out, "%s [%s, %s] %s", what[shown[k]], ttft_tpot__fix(a, sizeof a, 1, f->ci95[0]),
                    ttft_tpot__fix(b, sizeof b, 1, f->ci95[1]), name);
        else
            fprintf(out, "%s [%s, %s] %s", what[shown[k]], ttft_tpot__in(a, sizeof a, f->ci95[0], unit),
                    ttft_tpot__in(b, sizeof b, f->ci95[1], unit), name);
    }
    if (any)
        fputs(" (t over the runs: the figure to compare)\n", out);
}

/* Runs: each figure as mean +- sd (CV) across runs, then TPOT run by run, llama-bench style; a
   warning where the runs vary (TTFT_TPOT_RUN_CV_FLAG). */
static void ttft_tpot__text_runs(const ttft_tpot_model *m, FILE *out)
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
    fprintf(out, "Runs (%u)%*s: ", rs->n, rs->n < 10 ? 14 : rs->n < 100 ? 13 : 12, "");
    for (k = 0; k < 3; k++) {
        unsigned j = shown[k];
        if (!rs->fig[j].n)
            continue;
        fputs(any++ ? ", " : "", out);
        ttft_tpot__text_run_figure(out, what[j], j, &rs->fig[j]);
    }
    fputs(rs->bounded ? "n/a (samples in a histogram, of a bounded phase or past the storage, have no run)\n"
          : any       ? "\n"
                      : "n/a\n",
          out);
    ttft_tpot__text_run_cis(out, rs, what, shown);
    if (tpot->n) { /* in the unit of the runs' mean */
        double unit = ttft_tpot__unit(tpot->mean, &name);
        fputs("  TPOT p50 by run     :", out);
        for (r = 0; r < rs->n; r++)
            fprintf(out, " %s", tpot->has[r] ? ttft_tpot__in(a, sizeof a, tpot->v[r], unit) : "n/a");
        fprintf(out, " %s\n", name);
    }
    for (k = 0; k < 3; k++)
        if (rs->fig[k].varies)
            fprintf(out, "WARNING: the runs vary: %s CV %s%% (over %s%%): compare runs, not one figure\n", what[k],
                    ttft_tpot__fix(a, sizeof a, 1, rs->fig[k].cv * 100),
                    ttft_tpot__num(b, sizeof b, "%g", TTFT_TPOT_RUN_CV_FLAG * 100));
    if (rs->dropped)
        fprintf(out, "WARNING: %llu run%s not marked (TTFT_TPOT_MAX_RUNS %u): their samples are in the last run\n",
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
static void ttft_tpot__text_device_line(FILE *out, const char *what, const ttft_tpot_stats *t, const char *none,
                                        uint64_t steps, uint64_t hist)
{
    char a[32], b[32], d[32], e[32], of[48], gap[160];
    if (!t->n) {
        fprintf(out, "%-22s: n/a         (%s%s)\n", what, none,
                hist ? ttft_tpot__device_gap(gap, sizeof gap, ": ", 0, hist, hist) : "");
        return;
    }
    of[0] = '\0';
    if (t->n < steps)
        snprintf(of, sizeof of, " of %llu steady steps", (unsigned long long)steps);
    fprintf(out, "%-22s: %-11s (n=%llu%s, p90 %s, p99 %s, mean %s%s)\n", what, ttft_tpot__dur(a, sizeof a, t->p50_ns),
            (unsigned long long)t->n, of, ttft_tpot__dur(b, sizeof b, t->p90_ns), ttft_tpot__dur(d, sizeof d, t->p99_ns),
            ttft_tpot__dur(e, sizeof e, t->mean_ns), ttft_tpot__device_gap(gap, sizeof gap, "; ", t->n, steps, hist));
}

/* "Device busy: ..." over the steady decode steps with device time (f->busy_steps of f->tpot_steps). */
static void ttft_tpot__text_device_busy(const ttft_tpot_device_figures *f, FILE *out)
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
    fprintf(out, "Device busy           : %s%% of steady decode wall time (%llu%s steps)",
            ttft_tpot__fix(a, sizeof a, 1, 100 * f->busy_fraction), (unsigned long long)f->busy_steps, of);
    if (f->busy_fraction < TTFT_TPOT_HOST_BOUND)
        fprintf(out, ": decode is host-bound, the device idles %s%% of each step",
                ttft_tpot__fix(b, sizeof b, 1, 100 * (1 - f->busy_fraction)));
    fputc('\n', out);
}

/* Each phase with device time: host p50 against device p50/p90/p99/mean, the queue delay, and where
   the runtime stamped when it queued the command, its launch overhead and queue wait. */
static void ttft_tpot__text_device_rows(const ttft_tpot_model *m, FILE *out)
{
    char a[32], b[32], d[32], e[32], g[32], h[32], k[32], l[32], w[32];
    int split = m->device.queued != 0;
    unsigned q;
    fprintf(out, "%-24s %11s %8s %11s %11s %11s %11s %11s %11s", "phase (steady)", "host p50", "device n", "p50", "p90",
            "p99", "mean", "queue p50", "queue p99");
    fprintf(out, split ? " %11s %11s\n" : "\n", "launch p50", "wait p50");
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->device, *u = &f->queue;
        if (!t->n)
            continue;
        fprintf(out, "%-24s %11s %8llu %11s %11s %11s %11s %11s %11s", f->name,
                f->steady.n ? ttft_tpot__dur(a, sizeof a, f->steady.p50_ns) : "-", (unsigned long long)t->n,
                ttft_tpot__dur(b, sizeof b, t->p50_ns), ttft_tpot__dur(d, sizeof d, t->p90_ns),
                ttft_tpot__dur(e, sizeof e, t->p99_ns), ttft_tpot__dur(g, sizeof g, t->mean_ns),
                u->n ? ttft_tpot__dur(h, sizeof h, u->p50_ns) : "-", u->n ? ttft_tpot__dur(k, sizeof k, u->p99_ns) : "-");
        fprintf(out, split ? " %11s %11s\n" : "\n", f->launch.n ? ttft_tpot__dur(l, sizeof l, f->launch.p50_ns) : "-",
                f->wait.n ? ttft_tpot__dur(w, sizeof w, f->wait.p50_ns) : "-");
    }
}

/* Each phase timed both by event pairs and by begin and end stamps: the two p50s and what the pairs
   add, the launch gaps they hold. */
static void ttft_tpot__text_device_forms(const ttft_tpot_model *m, FILE *out)
{
    char a[32], b[32], d[32];
    unsigned q;
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        double more = f->pairs.p50_ns - f->records.p50_ns;
        if (!f->pairs.n)
            continue;
        fprintf(out, "NOTE: %s: event pairs p50 %s (n=%llu), begin and end stamps p50 %s (n=%llu): the pairs read "
                     "%s %s, the launch gaps they hold\n",
                f->name, ttft_tpot__dur(a, sizeof a, f->pairs.p50_ns), (unsigned long long)f->pairs.n,
                ttft_tpot__dur(b, sizeof b, f->records.p50_ns), (unsigned long long)f->records.n,
                ttft_tpot__dur(d, sizeof d, more < 0 ? -more : more), more < 0 ? "less" : "more");
    }
}

/* What device time was lost or refused, and queue delays taken as 0. */
static void ttft_tpot__text_device_losses(const ttft_tpot_device_figures *f, FILE *out)
{
    char a[32];
    if (f->unresolved || f->open)
        fprintf(out, "WARNING: %llu device intervals unresolved (%llu spans got no ticket: config.max_device or "
                     "config.max_pending was full; %llu tickets still open): those samples have host time only, the "
                     "device figures cover the resolved ones\n",
                (unsigned long long)ttft_tpot__sat_add(f->unresolved, f->open), (unsigned long long)f->unresolved,
                (unsigned long long)f->open);
    if (f->refused)
        fprintf(out, "WARNING: %llu device resolutions refused (unknown or resolved ticket, end before begin)\n",
                (unsigned long long)f->refused);
    if (f->held)
        fprintf(out, "WARNING: %llu samples' device time sums to 2^63 - 2 ns or more, held there: their device "
                     "figures are wrong (no device measures that)\n", (unsigned long long)f->held);
    if (f->queue_clamped)
        fprintf(out, "NOTE: %llu device begins mapped before their host issue, by up to %s: queue delay taken as 0 "
                     "(the clock pair is off by that much)\n",
                (unsigned long long)f->queue_clamped, ttft_tpot__dur(a, sizeof a, (double)f->clamped_max_ns));
    if (f->queued_clamped)
        fprintf(out, "NOTE: %llu queued stamps mapped before their host issue, by up to %s: launch overhead taken as "
                     "0 (the clock pair is off by that much)\n",
                (unsigned long long)f->queued_clamped, ttft_tpot__dur(a, sizeof a, (double)f->queued_clamped_max_ns));
}

/* The device section: the headline's device counterparts, busy fraction, rows, losses. Only for a
   collector that has device data. */
static void ttft_tpot__text_device(const ttft_tpot_model *m, FILE *out)
{
    const ttft_tpot_device_figures *f = &m->device;
    if (!f->intervals && !f->open && !f->unresolved && !f->refused)
        return;
    fprintf(out, "\nDevice time (%llu intervals resolved%s; TTFT and TPOT above are wall-clock, these the "
                 "device's)\n", (unsigned long long)f->intervals, f->parts ? ", parts of launches included" : "");
    if (f->elapsed)
        fprintf(out, "NOTE: %llu of them are event pairs: each includes the launch gap before its kernel, so small "
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
static void ttft_tpot__text_nesting(const ttft_tpot_model *m, FILE *out)
{
    unsigned p;
    char a[32], b[32];
    for (p = 0; p < m->phases; p++)
        if (m->phase[p].nests)
            fprintf(out, "NOTE: %s spans hold other kernel spans: its rows are inclusive time; of steady decode "
                         "time it takes %s%% exclusive (self), %s%% inclusive\n",
                    m->phase[p].name, ttft_tpot__fix(a, sizeof a, 1, 100 * m->phase[p].decode_share_self),
                    ttft_tpot__fix(b, sizeof b, 1, 100 * m->phase[p].decode_share));
}

/* The report leads with what the run is for: a serving run (measured requests) with its per-request
   figures, a single-stream run with TTFT, TPOT and throughput; the samples' figures, then the phases. */
static void ttft_tpot__text(const ttft_tpot_model *m, FILE *out)
{
    int serving = m->has_requests && m->requests.n > 0;
    ttft_tpot__text_head(m, out);
    /* a span never ended leaves no sample; its WARNING line (spans_open) counts it */
    if (!m->has_requests && !m->head.has_ttft_first && !m->head.tpot.n && !m->head.tpot_excluded && !m->head.e2e.n)
        fputs("Nothing to report: no prefill, decode or e2e sample, and no request\n"
              "(a span is recorded at its end: one begun and never ended leaves nothing)\n",
              out);
    if (serving) {
        ttft_tpot__text_serving(m, out);
        ttft_tpot__text_request_warmup(m, out);
        if (m->head.has_ttft_first || m->head.tpot.n || m->head.tpot_excluded || m->head.e2e.n)
            fputs("\nSteps (the samples of the driver's own spans)\n", out);
    }
    ttft_tpot__text_ttft(&m->head, out);
    ttft_tpot__text_prefill(&m->head, out);
    ttft_tpot__text_decode(&m->head, out);
    ttft_tpot__text_device(m, out);
    ttft_tpot__text_runs(m, out);
    ttft_tpot__text_steady_states(m, out);
    ttft_tpot__text_warnings(m, out);
    if (m->has_requests && !serving)
        ttft_tpot__text_serving(m, out);
    if (!serving)
        ttft_tpot__text_request_warmup(m, out);
    ttft_tpot__text_rows(m, out);
    ttft_tpot__text_nesting(m, out);
}

TTFT_TPOT_DEF int ttft_tpot_model_report(const ttft_tpot_model *m, FILE *out)
{
    if (!ttft_tpot__holds(m, TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_REQUESTS) || !out)
        return TTFT_TPOT_EINVAL;
    ttft_tpot__text(m, out);
    return ttft_tpot__finish(out);
}

/* Compute the model, then hand it to a writer: a report is whole, or (ENOMEM) not written. */
static int ttft_tpot__render(const ttft_tpot *c, FILE *out, int (*write)(const ttft_tpot_model *, FILE *))
{
    ttft_tpot_model m;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot_model_compute(c, NULL, &m)) == TTFT_TPOT_OK)
        rc = write(&m, out);
    ttft_tpot_model_free(&m);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_report(const ttft_tpot *c, FILE *out)
{
    return ttft_tpot__render(c, out, ttft_tpot_model_report);
}

/* -- Writers: the JSON report ------------------------------------------------------------------ */

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
static void ttft_tpot__json_str(ttft_tpot__out *out, const char *str)
{
    size_t len = strlen(str), at = 0, end, back;
    char *p;
    ttft_tpot__out_chr(out, '"');
    while (at < len) {
        end = len - at <= 64 ? len : at + 64;
        for (back = 0; end < len && back < 3 && ((unsigned char)str[end] & 0xC0) == 0x80; back++)
            end--;
        p = ttft_tpot__out_room(out, 384); /* 64 bytes escaped */
        out->n += ttft_tpot__json_esc(p, str + at, end - at);
        at = end;
    }
    ttft_tpot__out_chr(out, '"');
}

/* Integer ns as ms with 6 decimals, trailing zeros trimmed: exact. */
static void ttft_tpot__json_ms_u64(ttft_tpot__out *out, uint64_t r)
{
    char *p = ttft_tpot__put_u64(ttft_tpot__out_room(out, 32), r / 1000000);
    uint32_t frac = (uint32_t)(r % 1000000);
    int k;
    *p++ = '.';
    for (k = 5; k >= 0; k--, frac /= 10)
        p[k] = (char)('0' + frac % 10);
    for (k = 5; k > 0 && p[k] == '0'; k--) /* "2.5", "2.0": at least one decimal */
        ;
    out->n = (size_t)(p + k + 1 - out->b);
}

/* ns as ms to the nanosecond (rounded); past 2^64 ns in %.6f, never NaN or inf (null). */
static void ttft_tpot__json_ms(ttft_tpot__out *out, double ns)
{
    char buf[400];
    int ok = ttft_tpot__finite(ns) && ns >= 0.0 && ns < 1e300;
    if (ok && ns < TTFT_TPOT__TWO64)
        ttft_tpot__json_ms_u64(out, ttft_tpot__round_ns(ns));
    else
        ttft_tpot__out_str(out, ok ? ttft_tpot__num(buf, sizeof buf, "%.6f", ns / 1e6) : "null");
}

static void ttft_tpot__json_num(ttft_tpot__out *out, int has, double v)
{
    char buf[64];
    if (has && ttft_tpot__finite(v))
        ttft_tpot__out_str(out, ttft_tpot__num(buf, sizeof buf, "%.17g", v));
    else
        ttft_tpot__out_str(out, "null");
}

static void ttft_tpot__json_kv_ms(ttft_tpot__out *out, const char *key, double ns)
{
    ttft_tpot__out_fmt(out, ",\"%s\":", key);
    ttft_tpot__json_ms(out, ns);
}

/* Whether the figures came from a histogram, and how far they may be from exact (1/128). */
static void ttft_tpot__json_approx(ttft_tpot__out *out, const ttft_tpot_stats *st)
{
    if (st->approx)
        ttft_tpot__out_str(out, ",\"approximate\":true,\"max_rel_err\":0.0078125");
    else
        ttft_tpot__out_str(out, ",\"approximate\":false");
}

/* The chosen percentiles beyond p50/p90/p95/p99 (config.percentiles), ,"p99.9<sfx>":N each. */
static void ttft_tpot__json_picks(ttft_tpot__out *out, const ttft_tpot_stats *st, const char *sfx)
{
    char name[12];
    unsigned k;
    for (k = 0; k < st->pick_n; k++)
        if (st->pick_pm[k] != 50000 && st->pick_pm[k] != 90000 && st->pick_pm[k] != 95000 && st->pick_pm[k] != 99000) {
            ttft_tpot__out_fmt(out, ",\"%s%s\":", ttft_tpot_percentile_name(name, sizeof name, st->pick_pm[k]), sfx);
            ttft_tpot__json_ms_u64(out, st->pick_ns[k]);
        }
}

/* The figures of a statistics object, one shape across the report: mean, p50, p90, p95, p99, min,
   max and total, and whether they come from a histogram; keys end in sfx ("_ms"; the requests'
   STATS have none). No sample: total 0, the others null. The caller opens the object, and writes
   its own keys ("n" first) before these. */
static void ttft_tpot__json_figures(ttft_tpot__out *out, const ttft_tpot_stats *st, const char *sfx)
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
   "approximate":B} in ms, or null. */
static void ttft_tpot__json_stats(ttft_tpot__out *out, const char *key, const ttft_tpot_stats *st)
{
    ttft_tpot__out_fmt(out, ",\"%s\":", key);
    if (!st->n) {
        ttft_tpot__out_str(out, "null");
        return;
    }
    ttft_tpot__out_fmt(out, "{\"n\":%llu", (unsigned long long)st->n);
    ttft_tpot__json_figures(out, st, "");
    ttft_tpot__out_chr(out, '}');
}

/* ,"steady_state":{"flagged":N,"mser5_truncation":N,"no_steady_state":B,"p50_ms_after_truncation":N|null,
   "spikes":N,"spike":[{"step":N,"ms":N},...]}, or null where the samples are not all kept in call order
   (a bounded phase). */
static void ttft_tpot__json_steady_state(ttft_tpot__out *out, const ttft_tpot_steady_state *ss)
{
    uint64_t k;
    if (!ss->measured) {
        ttft_tpot__out_str(out, ",\"steady_state\":null");
        return;
    }
    ttft_tpot__out_fmt(out,
                       ",\"steady_state\":{\"flagged\":%llu,\"mser5_truncation\":%llu,\"no_steady_state\":%s,"
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

/* The peaks under vLLM's names, and the slices: ,"max_output_tokens_per_s":..,"max_concurrent_requests":..,
   "slice_ms":..,"slices":[{"start_ms","tokens","output_tok_s","in_flight","peak_in_flight","submitted",
   "ttft_p50_ms"},..]: in_flight counts the requests in flight during some of the slice, peak_in_flight
   the most at once. */
static void ttft_tpot__json_slices(const ttft_tpot_model *md, ttft_tpot__out *out)
{
    const ttft_tpot_requests *q = &md->requests;
    size_t k;
    ttft_tpot__out_str(out, ",\"max_output_tokens_per_s\":");
    ttft_tpot__json_num(out, q->has_max_tok_s, q->max_output_tok_s);
    ttft_tpot__out_fmt(
        out, ",\"max_concurrent_requests\":%llu,\"slice_ms\":", (unsigned long long)q->max_concurrent_requests);
    ttft_tpot__json_ms_u64(out, md->slice_ns);
    ttft_tpot__out_str(out, ",\"slices\":[");
    for (k = 0; k < md->n_slices; k++) {
        const ttft_tpot_slice *s = &md->slices[k];
        ttft_tpot__out_str(out, k ? ",{\"start_ms\":" : "{\"start_ms\":");
        ttft_tpot__json_ms_u64(out, s->start_ns);
        ttft_tpot__out_fmt(out, ",\"tokens\":%llu,\"output_tok_s\":", (unsigned long long)s->tokens);
        ttft_tpot__json_num(out, 1, s->output_tok_s);
        ttft_tpot__out_fmt(out, ",\"in_flight\":%llu,\"peak_in_flight\":%llu,\"submitted\":%llu,\"ttft_p50_ms\":",
                           (unsigned long long)s->in_flight, (unsigned long long)s->peak_in_flight,
                           (unsigned long long)s->submitted);
        if (s->has_ttft)
            ttft_tpot__json_ms(out, s->ttft_p50_ns);
        else
            ttft_tpot__out_str(out, "null");
        ttft_tpot__out_chr(out, '}');
    }
    ttft_tpot__out_chr(out, ']');
}

/* "requests": the serving metrics, or null when no request was seen. */
static void ttft_tpot__json_requests(const ttft_tpot_model *md, ttft_tpot__out *out)
{
    const ttft_tpot_requests *q = &md->requests;
    int m;
    if (!md->has_requests) {
        ttft_tpot__out_str(out, "null");
        return;
    }
    ttft_tpot__out_fmt(
        out, "{\"n\":%llu,\"incomplete\":%llu,\"warmup_excluded\":%llu,\"dropped\":%llu,\"truncated\":%llu",
        (unsigned long long)q->n, (unsigned long long)q->incomplete, (unsigned long long)q->warmup_excluded,
        (unsigned long long)q->dropped, (unsigned long long)q->truncated);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        ttft_tpot__json_stats(out, ttft_tpot__metrics[m].json, &q->metric[m]);
    ttft_tpot__out_fmt(out, ",\"unscheduled\":%llu,\"prompt_tokens\":%llu", (unsigned long long)q->unscheduled,
                       (unsigned long long)q->prompt_tokens);
    ttft_tpot__out_fmt(out, ",\"folded\":{\"requests\":%llu,\"tokens\":%llu,\"prompt_tokens\":%llu,\"other\":%llu}",
                       (unsigned long long)q->folded, (unsigned long long)q->folded_tokens,
                       (unsigned long long)q->folded_prompt_tokens, (unsigned long long)q->folded_other);
    for (m = 0; m < TTFT_TPOT_FINISH_COUNT; m++)
        ttft_tpot__out_fmt(out, ",%s\"%s\":%llu", m ? "" : "\"finish_reasons\":{", m ? ttft_tpot_finish_reason_name(m) : "none",
                           (unsigned long long)q->finish_reasons[m]);
    ttft_tpot__out_chr(out, '}');
    ttft_tpot__out_str(out, ",\"window_ms\":");
    if (q->has_window)
        ttft_tpot__json_ms(out, q->window_ns);
    else
        ttft_tpot__out_str(out, "null");
    ttft_tpot__out_str(out, ",\"request_throughput_rps\":");
    ttft_tpot__json_num(out, q->has_window, q->request_rps);
    ttft_tpot__out_str(out, ",\"output_throughput_tok_s\":");
    ttft_tpot__json_num(out, q->has_window, q->output_tok_s);
    ttft_tpot__json_slices(md, out);
    ttft_tpot__out_str(out, ",\"goodput\":");
    if (q->has_goodput) {
        ttft_tpot__out_fmt(out, "{\"n\":%llu,\"fraction\":", (unsigned long long)q->good_n);
        ttft_tpot__json_num(out, 1, q->good_fraction);
        ttft_tpot__out_str(out, ",\"rps\":");
        ttft_tpot__json_num(out, q->has_window, q->good_rps);
        ttft_tpot__out_str(out, ",\"slo\":{\"ttft_ms\":");
        ttft_tpot__json_num(out, md->slo.ttft_ms > 0, md->slo.ttft_ms);
        ttft_tpot__out_str(out, ",\"tpot_ms\":");
        ttft_tpot__json_num(out, md->slo.tpot_ms > 0, md->slo.tpot_ms);
        ttft_tpot__out_str(out, ",\"e2e_ms\":");
        ttft_tpot__json_num(out, md->slo.e2e_ms > 0, md->slo.e2e_ms);
        ttft_tpot__out_str(out, "}}");
    } else {
        ttft_tpot__out_str(out, "null");
    }
    ttft_tpot__json_steady_state(out, &md->requests_steady_state); /* of the TTFT series */
    ttft_tpot__out_chr(out, '}');
}

/* "ttft": the first request and the steady state. */
static void ttft_tpot__json_ttft(const ttft_tpot_summary *s, ttft_tpot__out *out)
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
static void ttft_tpot__json_decode(const ttft_tpot_summary *s, ttft_tpot__out *out)
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
static void ttft_tpot__json_run_value(ttft_tpot__out *out, unsigned k, int has, double v)
{
    if (k < 2 && has)
        ttft_tpot__json_ms(out, v);
    else
        ttft_tpot__json_num(out, has, v);
}

/* "runs":{"n":N,"dropped":N,"cv_flag":0.05,"ttft_steady_p50_ms":RUN,"tpot_p50_ms":RUN,
   "output_tok_s":RUN}, RUN = {"mean":N,"sd":N|null,"cv":N|null,"ci95":[lo,hi]|null,"flagged":B,
   "per_run":[N|null,...]} or
   null when no run has the figure; "runs" is null when no run was marked. */
static void ttft_tpot__json_runs(const ttft_tpot_runs *rs, ttft_tpot__out *out)
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
        ttft_tpot__out_fmt(out, ",\"flagged\":%s,\"per_run\":[", f->varies ? "true" : "false");
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
static void ttft_tpot__json_phases(const ttft_tpot_model *m, ttft_tpot__out *out)
{
    unsigned q;
    ttft_tpot__out_str(out, ",\"phases\":[");
    for (q = 0; q < m->phases; q++) {
        const ttft_tpot_phase_figures *f = &m->phase[m->order[q]];
        const ttft_tpot_stats *t = &f->all;
        ttft_tpot__out_str(out, q ? ",{\"name\":" : "{\"name\":");
        ttft_tpot__json_str(out, f->name);
        ttft_tpot__out_fmt(out, ",\"role\":\"%s\",\"n\":%llu,\"warmup_n\":%llu,\"tokens\":%llu",
                           ttft_tpot_role_name(f->role), (unsigned long long)t->n, (unsigned long long)t->warmup_n,
                           (unsigned long long)t->tokens);
        ttft_tpot__json_figures(out, t, "_ms");
        ttft_tpot__out_str(out, ",\"warmup_max_ms\":");
        if (t->warmup_n)
            ttft_tpot__json_ms_u64(out, t->warmup_max_ns);
        else
            ttft_tpot__out_str(out, "null");
        ttft_tpot__json_stats(out, "steady", &f->steady);
        if (f->role == TTFT_TPOT_ROLE_DECODE)
            ttft_tpot__json_steady_state(out, &f->steady_state);
        if (f->role == TTFT_TPOT_ROLE_KERNEL && !(m->skipped & TTFT_TPOT_SKIP_SHARES)) {
            ttft_tpot__out_str(out, ",\"decode_share\":"); /* inclusive */
            ttft_tpot__json_num(out, 1, f->decode_share);
            ttft_tpot__out_str(out, ",\"decode_share_exclusive\":");
            ttft_tpot__json_num(out, 1, f->decode_share_self);
            ttft_tpot__out_fmt(out, ",\"nests\":%s", f->nests ? "true" : "false");
        }
        ttft_tpot__json_stats(out, "device", &f->device);
        ttft_tpot__json_stats(out, "queue_delay", &f->queue);
        ttft_tpot__json_stats(out, "launch_overhead", &f->launch);
        ttft_tpot__json_stats(out, "queue_wait", &f->wait);
        ttft_tpot__json_stats(out, "device_event_pairs", &f->pairs);
        ttft_tpot__json_stats(out, "device_stamps", &f->records);
        ttft_tpot__out_chr(out, '}');
    }
    ttft_tpot__out_chr(out, ']');
}

/* ,"device":{...}: the device headline (ttft_tpot_device_figures). */
static void ttft_tpot__json_device(const ttft_tpot_model *m, ttft_tpot__out *out)
{
    const ttft_tpot_device_figures *f = &m->device;
    ttft_tpot__out_str(out, ",\"device\":{\"intervals\":");
    ttft_tpot__out_fmt(out, "%llu", (unsigned long long)f->intervals);
    ttft_tpot__json_stats(out, "ttft_steady", &f->ttft_steady);
    ttft_tpot__json_stats(out, "tpot", &f->tpot);
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
static void ttft_tpot__json(const ttft_tpot_model *m, ttft_tpot__out *out)
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
                       ",\"spans_open\":%llu,\"sequences_lost\":%llu,\"sequences_in_histogram\":%llu,\"requests\":",
                       (unsigned long long)m->losses.dropped, (unsigned long long)m->losses.rejected,
                       (unsigned long long)s->samples, (unsigned long long)m->losses.shapes_dropped,
                       (unsigned long long)m->losses.outgrown, (unsigned long long)m->losses.spans_open,
                       (unsigned long long)m->losses.sequences_lost,
                       (unsigned long long)m->losses.sequences_in_histogram);
    ttft_tpot__json_requests(m, out);
    ttft_tpot__json_runs(&m->runs, out);
    ttft_tpot__json_device(m, out);
    ttft_tpot__json_phases(m, out);
    ttft_tpot__out_str(out, "}\n");
}

TTFT_TPOT_DEF int ttft_tpot_model_report_json(const ttft_tpot_model *m, FILE *out)
{
    char block[TTFT_TPOT__OUT_MIN];
    ttft_tpot__out o;
    if (!ttft_tpot__holds(m, TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_REQUESTS) || !out)
        return TTFT_TPOT_EINVAL;
    ttft_tpot__out_open(&o, out, block, sizeof block);
    ttft_tpot__json(m, &o);
    return ttft_tpot__out_close(&o);
}

TTFT_TPOT_DEF int ttft_tpot_report_json(const ttft_tpot *c, FILE *out)
{
    return ttft_tpot__render(c, out, ttft_tpot_model_report_json);
}

/* -- Writers: Prometheus ----------------------------------------------------------------------- */

/* A 128-bit sum of ns as seconds to the ns: exact while it fits 64 bits. */
static const char *ttft_tpot__prom_sum(char *buf, size_t len, uint64_t hi, uint64_t lo)
{
    if (hi == 0)
        ttft_tpot__fixed(buf, len, lo, 9);
    else
        ttft_tpot__num(buf, len, "%.9f", ((double)hi * TTFT_TPOT__TWO64 + (double)lo) * 1e-9);
    return buf;
}

/* Histogram k. labels: "" or "{a=\"b\"}" for the sum and the count; bucket_labels: "" or "a=\"b\","
   ahead of le. */
static void ttft_tpot__prom_hist(ttft_tpot__out *out, const char *prefix, const ttft_tpot_buckets *b, int k,
                                 const char *labels, const char *bucket_labels)
{
    const char *name = ttft_tpot__metrics[k].prom;
    char sum[64], head[1024], *p;
    size_t i, len, le;
    ttft_tpot__out_fmt(out, "# HELP %s%s %s %s\n# TYPE %s%s histogram\n", prefix, name, ttft_tpot__metrics[k].help,
                       b->set == TTFT_TPOT_BUCKETS_VLLM
                           ? "Buckets: vLLM's bounds."
                           : "Buckets at most 25% apart from 100us to 10min: histogram_quantile is within 25% of "
                             "the value at its rank.",
                       prefix, name);
    len = (size_t)snprintf(head, sizeof head, "%s%s_bucket{%sle=\"", prefix, name, bucket_labels); /* made once */
    for (i = 0; i <= b->n; i++) {
        const char *bound = i < b->n ? b->le[i] : "+Inf";
        le = strlen(bound);
        p = ttft_tpot__out_room(out, len + le + 32);
        memcpy(p, head, len);
        memcpy(p + len, bound, le);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p + len + le, "\"} "), i < b->n ? b->cumulative[i] : b->count);
        out->n = (size_t)(TTFT_TPOT__LIT(p, "\n") - out->b);
    }
    ttft_tpot__out_fmt(out, "%s%s_sum%s %s\n%s%s_count%s %llu\n", prefix, name, labels,
                       ttft_tpot__prom_sum(sum, sizeof sum, b->sum_hi, b->sum_lo), prefix, name, labels,
                       (unsigned long long)b->count);
}

/* The device figures, when the collector has device data: the device counterparts of TTFT and TPOT
   as summaries (p50, p90, p99, in seconds to the ns), the busy ratio, and what was lost. */
static void ttft_tpot__prom_device(const ttft_tpot_model *m, ttft_tpot__out *out, const char *prefix,
                                   const char *labels, const char *head)
{
    static const char *const q[3] = {"0.5", "0.9", "0.99"};
    static const unsigned at[3] = {0, 1, 3}; /* pct_ns: p50, p90, p95, p99 */
    const ttft_tpot_device_figures *f = &m->device;
    char a[48];
    int k, i;
    if (!f->intervals && !f->open && !f->unresolved && !f->refused)
        return;
    for (k = 0; k < 2; k++) {
        const ttft_tpot_stats *st = k ? &f->tpot : &f->ttft_steady;
        const char *name = k ? "device_time_per_output_token_seconds" : "device_time_to_first_token_seconds";
        ttft_tpot__out_fmt(out,
                           "# HELP %s%s Device time of the steady %s steps (their own interval, or their kernels').\n"
                           "# TYPE %s%s summary\n",
                           prefix, name, k ? "decode" : "prefill", prefix, name);
        for (i = 0; st->n && i < 3; i++)
            ttft_tpot__out_fmt(out, "%s%s{%squantile=\"%s\"} %s\n", prefix, name, head, q[i],
                               ttft_tpot__fixed(a, sizeof a, st->pct_ns[at[i]], 9));
        ttft_tpot__out_fmt(out, "%s%s_sum%s %s\n%s%s_count%s %llu\n", prefix, name, labels,
                           ttft_tpot__num(a, sizeof a, "%.9f", st->total_ns / 1e9), prefix, name, labels,
                           (unsigned long long)st->n);
    }
    if (f->has_busy)
        ttft_tpot__out_fmt(out,
                           "# HELP %sdevice_busy_ratio Device time over wall time of the steady decode steps.\n"
                           "# TYPE %sdevice_busy_ratio gauge\n%sdevice_busy_ratio%s %s\n",
                           prefix, prefix, prefix, labels, ttft_tpot__num(a, sizeof a, "%.6f", f->busy_fraction));
    ttft_tpot__out_fmt(
        out,
        "# HELP %sdevice_intervals_unresolved_total Device spans that got no ticket: no device time.\n"
        "# TYPE %sdevice_intervals_unresolved_total counter\n%sdevice_intervals_unresolved_total%s %llu\n"
        "# HELP %sdevice_tickets_open Device tickets not yet resolved.\n# TYPE %sdevice_tickets_open gauge\n"
        "%sdevice_tickets_open%s %llu\n",
        prefix, prefix, prefix, labels, (unsigned long long)f->unresolved, prefix, prefix, prefix, labels,
        (unsigned long long)f->open);
    ttft_tpot__out_fmt(out,
                       "# HELP %sdevice_resolutions_refused_total Device resolutions refused.\n"
                       "# TYPE %sdevice_resolutions_refused_total counter\n%sdevice_resolutions_refused_total%s %llu\n",
                       prefix, prefix, prefix, labels, (unsigned long long)f->refused);
}

/* Length of the exposition name at s: [a-zA-Z_][a-zA-Z0-9_]* for a label, with ':' too for a metric. */
static size_t ttft_tpot__prom_ident(const char *s, int metric)
{
    size_t i = 0;
    while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || (metric && s[i] == ':') ||
           (i && s[i] >= '0' && s[i] <= '9'))
        i++;
    return i;
}

/* A metric prefix: a metric name's characters only (it may be empty). */
static int ttft_tpot__prom_name_ok(const char *p)
{
    return p[ttft_tpot__prom_ident(p, 1)] == '\0';
}

/* labels as the inside of an exposition label set: name="value" pairs joined by ','; names
   [a-zA-Z_][a-zA-Z0-9_]*, each once, not "le" (the buckets' own) and not starting "__" (reserved);
   values valid UTF-8 whose only escapes are \\, \" and \n, without a raw newline and (so that no
   naive parser is fooled) without braces; at most 500 bytes. */
static int ttft_tpot__labels_ok(const char *s)
{
    const char *names[64];
    size_t lens[64], i = 0, len = strlen(s), k;
    unsigned n = 0, j;
    while (len <= 500 && s[i] && n < 64) {
        names[n] = s + i;
        lens[n] = k = ttft_tpot__prom_ident(s + i, 0);
        if (k == 0 || (k == 2 && strncmp(s + i, "le", 2) == 0) || (k >= 2 && strncmp(s + i, "__", 2) == 0) ||
            s[i + k] != '=' || s[i + k + 1] != '"')
            return 0;
        for (j = 0; j < n; j++)
            if (lens[j] == k && strncmp(names[j], s + i, k) == 0)
                return 0;
        n++;
        for (i += k + 2; s[i] != '"'; i += k) {
            if (s[i] == '\\')
                k = s[i + 1] == '\\' || s[i + 1] == '"' || s[i + 1] == 'n' ? 2 : 0;
            else
                k = !s[i] || s[i] == '\n' || s[i] == '{' || s[i] == '}' ? 0
                    : ttft_tpot__utf8_len((const unsigned char *)s + i, len - i);
            if (k == 0)
                return 0; /* also the end of the text: an unterminated value */
        }
        i++;
        if (s[i] == ',' && s[i + 1] == '\0')
            return 0;
        if (s[i] != ',' && s[i] != '\0')
            return 0;
        i += s[i] == ',';
    }
    return len <= 500 && s[i] == '\0';
}

/* The exposition's names: the prefix joined ('_' unless it ends in '_' or ':'; NULL: "vllm:") into pre,
   the collector's model_name label and labels as {..} into lb and as the head of a bucket's label set
   into blb. OK, or EINVAL (also for labels that name model_name when the collector has one). */
static int ttft_tpot__prom_names(const ttft_tpot *c, const char *prefix, const char *labels, char *pre, char *lb,
                                 char *blb)
{
    char all[512];
    size_t len;
    int n;
    if (!prefix)
        prefix = "vllm:";
    len = strlen(prefix);
    n = snprintf(all, sizeof all, "%s%s%s", c->model_label, c->model_label[0] && labels && *labels ? "," : "",
                 labels ? labels : "");
    if (len >= 254 || !ttft_tpot__prom_name_ok(prefix) || n < 0 || (size_t)n >= sizeof all || !ttft_tpot__labels_ok(all))
        return TTFT_TPOT_EINVAL;
    snprintf(pre, 256, len && prefix[len - 1] != '_' && prefix[len - 1] != ':' ? "%s_" : "%s", prefix);
    snprintf(lb, 512, *all ? "{%s}" : "%s", all);
    snprintf(blb, 512, *all ? "%s," : "%s", all);
    return TTFT_TPOT_OK;
}

/* What the exposition counts beside its histograms. */
typedef struct ttft_tpot__prom_counts {
    uint64_t tokens;            /* generation_tokens_total */
    uint64_t prompt_tokens;     /* prompt_tokens_total */
    uint64_t refused, dropped;  /* requests_refused, requests_dropped (as in the reports) */
    uint64_t waiting, running;  /* the requests in flight now: num_requests_waiting, num_requests_running */
    const uint64_t *reasons;    /* by finish reason (TTFT_TPOT_FINISH_*): request_success_total's children
                                   (none given, stop, length), request_failure_total's (abort, error) */
} ttft_tpot__prom_counts;

/* The requests in flight in c now: waiting (submitted, neither scheduled nor given a token) and running
   (scheduled or given a token, not finished), as vLLM's gauges count its queues. */
static void ttft_tpot__in_flight(const ttft_tpot *c, ttft_tpot__prom_counts *k)
{
    unsigned r;
    k->waiting = k->running = 0;
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        if (q->finished)
            continue;
        if (q->scheduled || q->token_events)
            k->running++;
        else
            k->waiting++;
    }
}

/* One counter or gauge. */
static void ttft_tpot__prom_one(ttft_tpot__out *out, const char *pre, const char *lb, const char *name,
                                const char *type, const char *help, uint64_t v)
{
    ttft_tpot__out_fmt(out, "# HELP %s%s %s\n# TYPE %s%s %s\n%s%s%s %llu\n", pre, name, help, pre, name, type, pre,
                       name, lb, (unsigned long long)v);
}

/* The finished requests by reason: request_success_total ("": no reason given, which Prometheus
   stores as no label; stop, length) and request_failure_total (abort, error), every child written
   from the start, as vLLM does, so that increase() sees a reason's first request, and with one set
   of label names (a textfile collector refuses a family that mixes them). */
static void ttft_tpot__prom_reasons(ttft_tpot__out *out, const char *pre, const char *blb, const uint64_t *k)
{
    int r;
    ttft_tpot__out_fmt(out, "# HELP %srequest_success_total Count of finished requests (measured: not warmup), by "
                            "finished_reason (\"\": none given, the same as no label to Prometheus).\n"
                            "# TYPE %srequest_success_total counter\n", pre, pre);
    for (r = TTFT_TPOT_FINISH_NONE; r <= TTFT_TPOT_FINISH_LENGTH; r++)
        ttft_tpot__out_fmt(out, "%srequest_success_total{%sfinished_reason=\"%s\"} %llu\n", pre, blb,
                           ttft_tpot_finish_reason_name(r), (unsigned long long)k[r]);
    ttft_tpot__out_fmt(out, "# HELP %srequest_failure_total Count of requests finished aborted or with an error "
                            "(not warmup): in no histogram.\n# TYPE %srequest_failure_total counter\n", pre, pre);
    for (r = TTFT_TPOT_FINISH_ABORT; r <= TTFT_TPOT_FINISH_ERROR; r++)
        ttft_tpot__out_fmt(out, "%srequest_failure_total{%sfinished_reason=\"%s\"} %llu\n", pre, blb,
                           ttft_tpot_finish_reason_name(r), (unsigned long long)k[r]);
}

/* The request histograms, the counters and the gauges. */
static void ttft_tpot__prom_requests(ttft_tpot__out *out, const char *pre, const char *lb, const char *blb,
                                     const ttft_tpot_buckets *b, const ttft_tpot__prom_counts *n)
{
    int k;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        ttft_tpot__prom_hist(out, pre, &b[k], k, lb, blb);
    ttft_tpot__prom_one(out, pre, lb, "request_refused_total", "counter",
                        "Requests refused at submit: the request table (config.max_requests) was full.", n->refused);
    ttft_tpot__prom_one(out, pre, lb, "request_dropped_total", "counter",
                        "Requests left out of every figure: refused at submit, or truncated when the event log "
                        "was full.", n->dropped);
    ttft_tpot__prom_one(out, pre, lb, "num_requests_running", "gauge",
                        "Requests scheduled or given a token, not finished.", n->running);
    ttft_tpot__prom_one(out, pre, lb, "num_requests_waiting", "gauge",
                        "Requests submitted, neither scheduled nor given a token.", n->waiting);
    ttft_tpot__prom_reasons(out, pre, blb, n->reasons);
    ttft_tpot__prom_one(out, pre, lb, "prompt_tokens_total", "counter",
                        "Number of prompt tokens of the finished requests (as given them).", n->prompt_tokens);
    ttft_tpot__prom_one(out, pre, lb, "generation_tokens_total", "counter",
                        "Number of generation tokens of the finished requests.", n->tokens);
}

TTFT_TPOT_DEF int ttft_tpot_model_prometheus(const ttft_tpot_model *m, FILE *out, const char *prefix,
                                             const char *labels)
{
    char pre[256], lb[512], blb[512], block[TTFT_TPOT__OUT_MIN];
    ttft_tpot__prom_counts n;
    ttft_tpot__out o;
    if (!ttft_tpot__holds(m, TTFT_TPOT_SKIP_REQUESTS) || !out ||
        ttft_tpot__prom_names(m->collector, prefix, labels, pre, lb, blb))
        return TTFT_TPOT_EINVAL;
    n.tokens = m->requests.tokens + m->requests.folded_tokens;
    n.prompt_tokens = m->requests.prompt_tokens + m->requests.folded_prompt_tokens;
    n.reasons = m->requests.finish_reasons;
    n.refused = m->losses.requests_refused, n.dropped = m->losses.requests_dropped;
    ttft_tpot__in_flight(m->collector, &n);
    ttft_tpot__out_open(&o, out, block, sizeof block);
    ttft_tpot__prom_requests(&o, pre, lb, blb, m->buckets, &n);
    ttft_tpot__prom_device(m, &o, pre, lb, blb);
    return ttft_tpot__out_close(&o);
}

/* p->now from every request c finished: O(buckets), whatever their number. */
static void ttft_tpot__publish_update(const ttft_tpot *c, ttft_tpot_publisher *p)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        ttft_tpot__tally_buckets(c, &c->finished, m, &p->now[m]);
    p->requests = c->finished.requests, p->tokens = c->finished.tokens;
    p->prompt_tokens = c->finished.prompt_tokens;
    p->started = 1;
}

TTFT_TPOT_DEF int ttft_tpot_publish(const ttft_tpot *c, ttft_tpot_publisher *p, FILE *out, const char *prefix,
                                    const char *labels)
{
    char pre[256], lb[512], blb[512], block[TTFT_TPOT__OUT_MIN];
    ttft_tpot__prom_counts n;
    ttft_tpot__out o;
    if (!c || !p || !out || ttft_tpot__prom_names(c, prefix, labels, pre, lb, blb))
        return TTFT_TPOT_EINVAL;
    ttft_tpot__publish_update(c, p);
    n.tokens = p->tokens, n.prompt_tokens = p->prompt_tokens; /* across clears */
    n.refused = c->refused_cleared + c->req.refused, n.dropped = c->dropped_cleared + c->req.dropped;
    n.reasons = c->finished.reasons;
    ttft_tpot__in_flight(c, &n);
    ttft_tpot__out_open(&o, out, block, sizeof block);
    ttft_tpot__prom_requests(&o, pre, lb, blb, p->now, &n);
    return ttft_tpot__out_close(&o);
}

/* Whether path may be replaced: absent, or a regular file, as generate --prometheus asks (a FIFO, a
   device or a link is not replaced). Without lstat (POSIX.1b only, as a strict C99 build gets), stat:
   a link to a regular file is then replaced, itself, its target untouched. */
static int ttft_tpot__replaceable(const char *path)
{
#if defined(__unix__) || defined(__APPLE__)
    struct stat st;
#if defined(__APPLE__) || (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L) ||                          \
    (defined(_XOPEN_SOURCE) && _XOPEN_SOURCE >= 500) || defined(__USE_XOPEN2K) || defined(__USE_XOPEN_EXTENDED)
    return lstat(path, &st) != 0 || S_ISREG(st.st_mode);
#else
    return stat(path, &st) != 0 || S_ISREG(st.st_mode);
#endif
#else
    (void)path;
    return 1;
#endif
}

TTFT_TPOT_DEF int ttft_tpot_publish_file(const ttft_tpot *c, ttft_tpot_publisher *p, const char *path,
                                         const char *prefix, const char *labels)
{
    char tmp[4096];
    FILE *f;
    int rc, n;
    if (!path || !c || !p)
        return TTFT_TPOT_EINVAL;
    /* this publisher's own name (its process and address): another's file is never touched */
    n = snprintf(tmp, sizeof tmp, "%s.tmp-%llu-%llx", path, (unsigned long long)TTFT_TPOT__PID(),
                 (unsigned long long)(uintptr_t)p);
    if (n < 0 || (size_t)n >= sizeof tmp || !ttft_tpot__replaceable(path))
        return TTFT_TPOT_EPATH;
    remove(tmp); /* a crashed publisher's of the same pid and address, or a planted link: never followed */
    if (!(f = fopen(tmp, "wx"))) /* created here or not at all (C11's exclusive mode; glibc's in C99) */
        return TTFT_TPOT_EIO;
    rc = ttft_tpot_publish(c, p, f, prefix, labels);
    if (fclose(f) != 0 && rc == TTFT_TPOT_OK)
        rc = TTFT_TPOT_EIO;
    if (rc == TTFT_TPOT_OK && rename(tmp, path) != 0)
        rc = TTFT_TPOT_EIO;
    if (rc != TTFT_TPOT_OK)
        remove(tmp);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_prometheus(const ttft_tpot *c, FILE *out, const char *prefix, const char *labels)
{
    const ttft_tpot_model_options requests = {TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES};
    ttft_tpot_model m;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if ((prefix && !ttft_tpot__prom_name_ok(prefix)) || (labels && !ttft_tpot__labels_ok(labels)))
        return TTFT_TPOT_EINVAL; /* before the figures: bad arguments cost nothing */
    if ((rc = ttft_tpot_model_compute(c, &requests, &m)) == TTFT_TPOT_OK)
        rc = ttft_tpot_model_prometheus(&m, out, prefix, labels);
    ttft_tpot_model_free(&m);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Trace I/O ------------------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

static const char ttft_tpot__header[] = "phase,role,start_ns,dur_ns,tokens,warmup";

/* The counts a "# counts:" line carries: what the collector lost, so a trace's report says it too. */
#define TTFT_TPOT__COUNTS(X)                                                                          \
    X(dropped, store.dropped) X(rejected, rejected) X(shapes_dropped, shape.dropped)                  \
    X(requests_dropped, req.dropped) X(requests_refused, req.refused) X(events_lost, req.events_lost)  \
    X(runs_dropped, runs_dropped) X(outgrown, store.outgrown) X(spans_open, spans_open)                \
    X(sequences_lost, store.seq_lost) X(sequences_in_histogram, store.seq_hist)
#define TTFT_TPOT__COUNT_ENUM(name, field) TTFT_TPOT__COUNT_##name,
enum { TTFT_TPOT__COUNTS(TTFT_TPOT__COUNT_ENUM) TTFT_TPOT__N_COUNTS }; /* the counts; the 4 limits follow */
#undef TTFT_TPOT__COUNT_ENUM
#define TTFT_TPOT__COUNT_NAME(name, field) #name,
/* then the limits those losses met, which the warnings name (ttft_tpot.full_at) */
static const char *const ttft_tpot__count_names[] = {TTFT_TPOT__COUNTS(TTFT_TPOT__COUNT_NAME) "capacity",
                                                     "max_requests", "max_request_events", "max_shapes"};
#undef TTFT_TPOT__COUNT_NAME
#define TTFT_TPOT__N_KEYS (sizeof ttft_tpot__count_names / sizeof ttft_tpot__count_names[0])

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

/* -- Trace I/O: writing ------------------------------------------------------------------------ */

/* A bounded phase's histogram: "# hist: ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C I:C ...,NAME". */
static void ttft_tpot__write_hist(ttft_tpot__out *out, const ttft_tpot__phase_slot *p)
{
    const ttft_tpot_hist *h = p->hist;
    unsigned i, any = 0;
    ttft_tpot__out_fmt(out, "# hist: %s,%llu,%llu,%llu,%llu,%llu,", ttft_tpot_role_name(p->role),
                       (unsigned long long)h->tokens, (unsigned long long)h->min_ns, (unsigned long long)h->max_ns,
                       (unsigned long long)h->sum_hi, (unsigned long long)h->sum_lo);
    for (i = 0; i < TTFT_TPOT_HIST_BUCKETS; i++)
        if (h->counts[i])
            ttft_tpot__out_fmt(out, any++ ? " %u:%llu" : "%u:%llu", i, (unsigned long long)h->counts[i]);
    ttft_tpot__out_fmt(out, ",%s\n", p->name);
}

/* A request's row: "RID,ROLE,T,0,TOKENS,WARMUP", ROLE point p's (TTFT_TPOT_POINTS: submit, token, or
   a mark's). */
static void ttft_tpot__write_row(ttft_tpot__out *o, const ttft_tpot_request *q, int point, uint64_t t, uint64_t tokens)
{
    const ttft_tpot__point_info *i = &ttft_tpot__points[point];
    /* the id escaped, a role, 3 numbers */
    char *p = ttft_tpot__out_room(o, 2 * TTFT_TPOT_NAME_MAX + 64 + i->role_len);
    p += ttft_tpot__csv_esc(p, q->id);
    *p++ = ',';
    memcpy(p, i->role, i->role_len); /* its length known: no strlen a row */
    p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p + i->role_len, ","), t);
    p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ",0,"), tokens);
    p = TTFT_TPOT__LIT(p, ",");
    *p++ = (char)('0' + (q->warmup != 0));
    o->n = (size_t)(TTFT_TPOT__LIT(p, "\n") - o->b);
}

/* A mark that follows nothing but the submit (a schedule) goes right after its request's submit row;
   the others after every event row, where the token events they lie among have been read. */
static int ttft_tpot__mark_early(int p)
{
    return ttft_tpot__points[p].follows == TTFT_TPOT_POINT_BIT(SUBMIT);
}

/* q's marks, as rows "RID,ROLE,T,0,0,WARMUP": those that go early (early 1), late (0), or all (-1). */
static void ttft_tpot__write_marks(ttft_tpot__out *out, const ttft_tpot_request *q, int early)
{
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        if (ttft_tpot__points[p].set == TTFT_TPOT__SET_MARK && ttft_tpot__has(q, p) &&
            (early < 0 || ttft_tpot__mark_early(p) == early))
            ttft_tpot__write_row(out, q, p, ttft_tpot__point_ns(q, p), 0);
}

/* A truncated request: "# truncated: SUBMIT_NS,WARMUP,ID", then its marks' rows. */
static void ttft_tpot__write_truncated(ttft_tpot__out *out, const ttft_tpot_request *q)
{
    ttft_tpot__out_fmt(out, "# truncated: %llu,%d,%s\n", (unsigned long long)q->submit_ns, q->warmup, q->id);
    ttft_tpot__write_marks(out, q, -1);
}

/* What the samples and events cannot say, as directives a v1 reader takes for comments: the phase
   table in its order, bounded phases' histograms, truncated requests, and every count of what was
   lost. Names and ids go last on their line and unquoted: they hold no newline. */
static void ttft_tpot__write_directives(const ttft_tpot *c, ttft_tpot__out *out, int phases)
{
    uint64_t counts[] = {
#define TTFT_TPOT__COUNT_OF(name, field) c->field,
        TTFT_TPOT__COUNTS(TTFT_TPOT__COUNT_OF)
#undef TTFT_TPOT__COUNT_OF
        ttft_tpot__limit(c, 0), ttft_tpot__limit(c, 1), ttft_tpot__limit(c, 2), ttft_tpot__limit(c, 3)};
    unsigned i, any = 0, put = 0;
    counts[TTFT_TPOT__COUNT_spans_open] = ttft_tpot__spans_open(c);
    for (i = 0; phases && i < c->phase.n; i++)
        ttft_tpot__out_fmt(out, "# phase: %s,%s\n", ttft_tpot_role_name(c->phase.slots[i].role),
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
    for (i = 0; i < c->req.n_events; i++) /* a truncated request with a submit event: after its events */
        if (!c->req.events[i].tokens && c->req.list[c->req.events[i].request].truncated)
            ttft_tpot__write_truncated(out, &c->req.list[c->req.events[i].request]);
    for (i = 0; i < TTFT_TPOT__N_COUNTS; i++)
        any |= counts[i] != 0;
    for (i = 0; any && i < TTFT_TPOT__N_KEYS; i++) /* the losses, then every limit, 0 included */
        if (counts[i] || i >= TTFT_TPOT__N_COUNTS)
            ttft_tpot__out_fmt(out, put++ ? " %s=%llu" : "# counts: %s=%llu", ttft_tpot__count_names[i],
                               (unsigned long long)counts[i]);
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
static unsigned ttft_tpot__write_runs(const ttft_tpot *c, ttft_tpot__out *o, size_t i, unsigned run)
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
    const char *role = ttft_tpot_role_name(c->phase.slots[phase].role);
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
static void ttft_tpot__write_samples(const ttft_tpot *c, ttft_tpot__out *o)
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

/* The requests [from, to) of the table that have no submit event (made by a "# truncated:" line, or
   their submit found no room in the log: truncated all), as "# truncated:" lines. Returns to. */
static unsigned ttft_tpot__write_unsubmitted(const ttft_tpot *c, ttft_tpot__out *out, unsigned from, unsigned to)
{
    for (; from < to; from++)
        if (c->req.list[from].truncated)
            ttft_tpot__write_truncated(out, &c->req.list[from]);
    return to;
}

/* Every request event, in its own order, each request made where it stands in the request table (the
   lanes of the Chrome export follow that order): a submit makes its request, and the requests made
   without one come by their "# truncated:" lines before the next submit. A request's marks follow
   its submit, or every event (ttft_tpot__mark_early); a truncated one's, its "# truncated:" line. */
static void ttft_tpot__write_events(const ttft_tpot *c, ttft_tpot__out *out)
{
    unsigned next = 0, r; /* the requests made so far */
    size_t i;
    for (i = 0; i < c->req.n_events; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        const ttft_tpot_request *q = &c->req.list[ev->request];
        if (!ev->tokens) /* submits come in the table's order */
            next = ttft_tpot__write_unsubmitted(c, out, next, ev->request) + 1;
        ttft_tpot__write_row(out, q, ev->tokens ? TTFT_TPOT_POINT_LAST : TTFT_TPOT_POINT_SUBMIT, ev->t_ns, ev->tokens);
        if (!ev->tokens && !q->truncated)
            ttft_tpot__write_marks(out, q, 1);
    }
    ttft_tpot__write_unsubmitted(c, out, next, c->req.n);
    for (r = 0; r < c->req.n; r++)
        if (!c->req.list[r].truncated)
            ttft_tpot__write_marks(out, &c->req.list[r], 0);
}

/* The device intervals, in ticket order: "# device: SAMPLE,STREAM,STATE,PART,WARMUP,ISSUE_NS,BEGIN_NS,
   DEVICE_NS,PHASE" (SAMPLE: its sample's line among the trace's samples, from 1; 0 none), each with a
   queued stamp followed by "# device_queued: QUEUED_NS" (host clock), then what was lost:
   "# device_lost: UNRESOLVED,REFUSED". A reader that does not know them skips them. */
static void ttft_tpot__write_device(const ttft_tpot *c, ttft_tpot__out *out)
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

/* After the requests' events, what a request row cannot say: its prompt tokens ("# prompt_tokens: N,ID")
   and that it finished ("# finished: ID"), so that a trace's requests in flight are the live ones. */
static void ttft_tpot__write_finished(const ttft_tpot *c, ttft_tpot__out *out)
{
    unsigned r;
    for (r = 0; r < c->req.n; r++) {
        if (c->req.list[r].prompt_tokens)
            ttft_tpot__out_fmt(out, "# prompt_tokens: %llu,%s\n", (unsigned long long)c->req.list[r].prompt_tokens,
                               c->req.list[r].id);
        if (c->req.list[r].finished)
            ttft_tpot__out_fmt(out, "# finished: %s\n", c->req.list[r].id);
        if (c->req.list[r].reason)
            ttft_tpot__out_fmt(out, "# finish_reason: %s,%s\n", ttft_tpot_finish_reason_name(c->req.list[r].reason),
                               c->req.list[r].id);
    }
}

/* The requests folded out of the table (config.request_window), which no event row carries:
   "# folded: REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,STOP,LENGTH,ABORT,ERROR" (the
   requests by finish reason: those of REQUESTS given stop or length, then the aborted and errored),
   then each metric with values as
   "# folded_metric: KEY,COUNT,SUM_HI,SUM_LO,I:C I:C ..." (KEY its JSON key, I a bucket's index among
   its bounds, C its values there; the sum as folding keeps it), so a trace's report and exposition
   count them as the live ones do; "# buckets: vllm" first where the bounds are vLLM's alone. */
static void ttft_tpot__write_folded(const ttft_tpot *c, ttft_tpot__out *out)
{
    const ttft_tpot__tally *t = &c->folded;
    size_t k;
    int m, any;
    if (!ttft_tpot__tally_any(t))
        return;
    if (c->buckets == TTFT_TPOT_BUCKETS_VLLM) /* the bounds the bucket indexes below count among */
        ttft_tpot__out_str(out, "# buckets: vllm\n");
    ttft_tpot__out_fmt(out, "# folded: %llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)t->requests,
                       (unsigned long long)t->tokens, (unsigned long long)t->prompt_tokens,
                       (unsigned long long)t->truncated, (unsigned long long)t->unmeasured,
                       (unsigned long long)t->reasons[TTFT_TPOT_FINISH_STOP],
                       (unsigned long long)t->reasons[TTFT_TPOT_FINISH_LENGTH],
                       (unsigned long long)t->reasons[TTFT_TPOT_FINISH_ABORT],
                       (unsigned long long)t->reasons[TTFT_TPOT_FINISH_ERROR]);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (!t->count[m])
            continue;
        ttft_tpot__out_fmt(out, "# folded_metric: %s,%llu,%llu,%llu,", ttft_tpot__metrics[m].json,
                           (unsigned long long)t->count[m], (unsigned long long)t->sum_hi[m],
                           (unsigned long long)t->sum_lo[m]);
        for (k = 0, any = 0; k < TTFT_TPOT_BUCKETS_MAX; k++)
            if (t->bucket[m][k])
                ttft_tpot__out_fmt(out, any++ ? " %u:%llu" : "%u:%llu", (unsigned)k,
                                   (unsigned long long)t->bucket[m][k]);
        ttft_tpot__out_str(out, "\n");
    }
}

/* Through a large block (a system call for each 16 KiB costs as much as formatting them), or the
   stack's when there is no memory for it: a trace is written whatever memory is left. */
TTFT_TPOT_DEF int ttft_tpot_trace_write(const ttft_tpot *c, FILE *out)
{
    char block[TTFT_TPOT__OUT_MIN], *big;
    ttft_tpot__out o;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    big = (char *)TTFT_TPOT_MALLOC(TTFT_TPOT__OUT_BIG, c->alloc_user);
    ttft_tpot__out_open(&o, out, big ? big : block, big ? TTFT_TPOT__OUT_BIG : sizeof block);
    ttft_tpot__out_str(&o, "# ttft_tpot trace v1\n");
    if (c->clock_name[0] && c->clock_read_ns)
        ttft_tpot__out_fmt(&o, "# clock: %s, %llu ns/read\n", c->clock_name, (unsigned long long)c->clock_read_ns);
    ttft_tpot__out_fmt(&o, "%s\n", ttft_tpot__header);
    ttft_tpot__write_directives(c, &o, 1);
    ttft_tpot__write_samples(c, &o);
    ttft_tpot__write_device(c, &o);
    ttft_tpot__write_events(c, &o);
    ttft_tpot__write_finished(c, &o);
    ttft_tpot__write_folded(c, &o);
    ttft_tpot__write_directives(c, &o, 0);
    rc = ttft_tpot__out_close(&o);
    if (big)
        TTFT_TPOT_FREE(big, c->alloc_user);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifdef __cplusplus
}
#endif
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
#endif /* TTFT_TPOT_IMPLEMENTATION */

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
