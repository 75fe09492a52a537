/* ttft_tpot_serve.h v0.4.0 - the requests an LLM inference driver serves: vLLM's per-request metrics, SLOs
   and goodput, and a Prometheus exposition that runs for weeks. A layer on ttft_tpot.h's public API.
   MIT license (the end of ttft_tpot.h).

   USE
     The stb way, as ttft_tpot.h: declarations always; the implementation where TTFT_TPOT_IMPLEMENTATION
     is defined. It includes ttft_tpot.h; in the one file that holds the implementation, include this
     header, so that both halves are compiled there:

         #define TTFT_TPOT_IMPLEMENTATION
         #include "ttft_tpot_serve.h"

         ttft_tpot tp;
         ttft_tpot_serve srv;
         ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
         sc.max_requests = 1024;                                     // in flight plus the window kept
         ttft_tpot_init(&tp, NULL);
         ttft_tpot_serve_attach(&srv, &tp, &sc);                     // its figures join tp's reports
         ttft_tpot_request_mark(&srv, "r1", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW);
         ttft_tpot_request_tokens(&srv, "r1", TTFT_TPOT_NOW, 1);      // the first: its TTFT
         ttft_tpot_request_finish(&srv, "r1", TTFT_TPOT_FINISH_LENGTH);
         ttft_tpot_report(&tp, stdout);                              // the serving section leads
         ttft_tpot_serve_free(&srv);
         ttft_tpot_free(&tp);

   INDEX (one line a function; each is declared below with its contract)
     Serving     ttft_tpot_serve_attach       a serving layer on a collector (its one call)
                 ttft_tpot_serve_free         free it (before its collector)
                 ttft_tpot_serve_of           the serving layer attached to a collector, or NULL
                 ttft_tpot_serve_slo          the SLOs goodput counts against
                 ttft_tpot_serve_tell         what the driver knows: KV cache usage, preemptions, ...
     Requests    ttft_tpot_request_mark       a request's point by its id: submit, schedule, first output
                 ttft_tpot_request_tokens     tokens delivered (the first: its TTFT)
                 ttft_tpot_request_finish     it is done, and why (stop, length, abort, error, repetition)
                 ttft_tpot_request_prompt     its prompt tokens
                 ttft_tpot_request_cached     ... and those the prefix cache served (prefill computed)
                 ttft_tpot_request_get        a request held, by its id (to log it)
                 ttft_tpot_request_at         the i-th request held
                 ttft_tpot_request_event_at   the i-th event of the log (a submit, tokens)
                 ttft_tpot_request_point      a request's time at a point (0: it has none)
                 ttft_tpot_finish_reason_name "stop", "length", "abort", "error", "repetition"
     Figures     ttft_tpot_serve_figures      a model's serving figures
                 ttft_tpot_request_values_of  a request's own figures (the requests CSV's)
                 ttft_tpot_requests_summary   the serving metrics of the requests held
                 ttft_tpot_metric_values      the values behind a request metric
     Prometheus  ttft_tpot_model_prometheus   the exposition of a model (vLLM's names)
                 ttft_tpot_publish            a live exposition: counters that only grow
                 ttft_tpot_publish_file       ... written whole to a file (a textfile collector's)
                 ttft_tpot_publish_buffer     ... into memory (an HTTP server's /metrics body)
     Traces      ttft_tpot_serve_restore      a trace's requests, back (the trace reader's call)

   In this header config.NAME is a field of ttft_tpot_serve_config (the reports name them so too).

   REQUESTS
     The serving layer records each request's time points (one row each in TTFT_TPOT_POINTS): its
     submit; its schedule (optional), at or after its submit and at or before its first token; its
     first, second and last token, from its token events, each at or after every point before it; its
     first output token (optional), the first token that is not reasoning, once, at or after its first
     token and at or before its last (meant as the time of the token event that held it:
     TTFT_TPOT_NOW takes the latest). A point that a call of its own sets (SUBMIT, SCHEDULE, OUTPUT)
     is set by ttft_tpot_request_mark with its id; the token points by ttft_tpot_request_tokens. An event that would break that order is refused (EREQUEST), so
     every figure below is a difference of ordered points. It reports vLLM's per-request metrics, each
     spanning two points: TTFT = first token - submit, E2E = last token - submit, TPOT = (E2E - TTFT)
     / (tokens - 1), ITL = every gap between a request's token events (an event of several tokens,
     as speculative decoding streams them, adds one gap and no zero gaps inside it: vLLM's ITL,
     while TPOT spreads the time over every token), TTST = second token - submit,
     queue = schedule - submit, prefill = first token - schedule, decode = last token - first token
     (vLLM's request_decode_time_seconds), inference = last token - schedule (vLLM's
     request_inference_time_seconds: the time it ran, prefill and decode), and TTFO = first output token -
     submit (time to first output token, as AIPerf and guidellm report it: TTFT past the reasoning)
     (one row each in TTFT_TPOT_METRICS: label, JSON key, Prometheus name, help, buckets, points; a
     request without both points of a metric is left out of it, so TTFO is over the requests with an
     output event); goodput under SLOs; Prometheus exposition (ttft_tpot_model_prometheus).
     A server that runs for weeks: a request finished (ttft_tpot_request_finish) is folded once into
     cumulative histograms and counters (its metrics' values bucketed, its sums exact), which the
     live exposition (ttft_tpot_publish) writes in O(buckets). When a submit or a token event finds
     the request table or the event log full, the finished requests but the last
     ttft_tpot_serve_config.request_window (and at most half of them) leave the table, oldest first, their slots and
     events reused: every report figure is then exact over the requests held (the window), and the
     requests folded away are counted (JSON requests.folded) and stay in every Prometheus histogram
     and counter, within the buckets' bound. Memory stays that of the table, however many requests
     were served. Only finished requests fold: a driver that never finishes its requests fills the
     table as before (refused, and counted).

   METRICS (as the top of ttft_tpot.h defines the rest: percentiles, their intervals, steady state)
     Window = the last token of any measured request - the first submit of a measured
       request (measured: not submitted inside a warmup section, not truncated, one token at
       least). Request throughput = measured requests / window; output token throughput = their
       tokens / window (JSON requests.window_ms, request_throughput_rps, output_throughput_tok_s;
       null without a measured request or with a window of 0).
     Goodput (with SLOs: ttft_tpot_serve_slo, --slo) = the measured requests that meet each SLO set:
       a figure equal to its SLO meets it (<=, compared in ns; TPOT exactly, not rounded), and a
       request with one token has no TPOT and passes the TPOT SLO, as in vLLM. Reported: good n,
       their fraction of the measured requests, and good requests / window (JSON requests.goodput:
       n, fraction, rps, slo; null without an SLO or a measured request).

   A REPORT'S SERVING SECTION
     Attached (ttft_tpot_serve_attach), the layer's figures join every model of its collector: the text
     report leads with them where a request was measured ("Serving: N requests measured ..."), the JSON
     report's "requests" holds them (null without a layer or a request), a trace carries the requests'
     rows and directives, and the tools read them (ttft_tpot_serve_figures).

   WHAT THE DRIVER TELLS
     What the layer cannot see, the driver tells it (ttft_tpot_serve_tell, TTFT_TPOT_TOLD): the KV
     cache's usage (vllm:kv_cache_usage_perc, a fraction), preemptions (num_preemptions_total), the
     prefix cache's queried and hit tokens (prefix_cache_queries_total, prefix_cache_hits_total), the
     prompt tokens it served (prompt_tokens_cached_total), and the requests waiting by why
     (num_requests_waiting_by_reason: capacity, deferred), and a finished request's parameters, each a
     value of vLLM's histogram of it (request_params_max_tokens, request_params_n,
     request_max_num_generation_tokens, request_num_preemptions, and request_prefill_kv_computed_tokens
     where it does not give a request's cached prompt tokens: ttft_tpot_request_cached),
     the tokens of an engine step the collector does not time (iteration_tokens_total) and speculative
     decoding's counts where config.num_speculative_tokens is 0 (spec_decode_*). Each family is written
     from the start, 0 until told, as vLLM writes it, in the live exposition and the model's; a trace
     carries them.

   WHAT THE LAYER SEES OF ENGINE STEPS
     Attached, the layer sees each prefill and decode span of its collector as it ends (the core's
     layer sample hook), but in a warmup section: its tokens, prompt and generated, are an engine step's
     for vLLM's iteration_tokens_total; with config.num_speculative_tokens k, a decode span given its
     sequences (ttft_tpot_span_set_sequences: s sequences, t tokens) counts vLLM's spec decoding: s
     drafts, s k draft tokens and t - s accepted tokens (t past s (k + 1): rejected, not counted). A
     span restored from a trace or merged is not seen again: the trace and the merge carry the counts.

   FOLDING AND THE EXPOSITION
     A server that runs for weeks: a request finished (ttft_tpot_request_finish) is folded once into
     cumulative histograms and counters, which the live exposition (ttft_tpot_publish) writes in
     O(buckets). The buckets: vLLM's bounds and the E12 series from 100 us to 680 s, at most 25% apart
     up to 10 min (so a histogram_quantile is within 25% of the value at its rank; README: Fleets), or
     vLLM's alone (ttft_tpot_serve_config.buckets).

   THREADS
     As the collector's: one thread a collector and its layer; merge collectors (ttft_tpot_merge) to
     report them together, their layers merged with them.
*/
#ifndef TTFT_TPOT_SERVE_H
#define TTFT_TPOT_SERVE_H

#ifndef TTFT_TPOT_LAYERS
#define TTFT_TPOT_LAYERS /* the implementation of ttft_tpot.h's calls of layers, which this one makes */
#endif
#include "ttft_tpot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================ types ======================================================== */

/* ---- Requests -------------------------------------------------------------------------------- */

/* A request, as the driver names it (1..TTFT_TPOT_NAME_MAX-1 bytes of UTF-8, like a phase). Its
   times are its points' (TTFT_TPOT_POINTS, below): a field each, set when its bit in points is. */
typedef struct ttft_tpot_request {
    char id[TTFT_TPOT_NAME_MAX];
    uint64_t submit_ns, first_ns, last_ns; /* first_ns and last_ns: 0 with no token yet */
    uint64_t tokens;
    uint64_t scheduled_ns;  /* when it was scheduled (its SCHEDULE point), where scheduled is set */
    uint64_t second_ns;     /* the token event that brought it to two tokens */
    uint64_t output_ns;     /* its first output token, not reasoning (its OUTPUT point) */
    uint32_t prompt_tokens; /* ttft_tpot_request_prompt; 0: not given */
    uint32_t cached_tokens; /* of them, served from the prefix cache (ttft_tpot_request_cached) */
    uint32_t token_events;
    uint32_t points;            /* the points it has: bit TTFT_TPOT_POINT_BIT(NAME) for each */
    uint32_t ev_first, ev_last; /* its first and last token event in the log (UINT32_MAX: none): where
                                   folding it walks (ttft_tpot__fold), not from its submit, which a
                                   burst logs long before */
    uint8_t scheduled; /* scheduled_ns holds when it was scheduled */
    uint8_t warmup;    /* submitted inside a warmup section */
    uint8_t truncated; /* an event of it did not fit config.max_request_events: out of every figure */
    uint8_t finished;  /* ttft_tpot_request_finish: no more tokens; a live exposition counts it */
    uint8_t reason;    /* why it finished (TTFT_TPOT_FINISH_*): abort and error are out of every figure */
    uint8_t cached;    /* cached_tokens given (ttft_tpot_request_cached) */
} ttft_tpot_request;

/* A request's time points, one list: recording and its order checks, the metric table (a metric spans
   two points), the trace's request rows, the requests CSV, the Chrome trace and the Python binding
   all expand it, so a metric that needs a new point is a row here (with its ttft_tpot_request field)
   and its recording call. X(NAME, FIELD, SET, TOKENS, FOLLOWS, NOW, ROLE, CSV, WORDS):
   TTFT_TPOT_POINT_NAME; the field that holds its time; how it is set: SUBMIT (the submit, which makes
   the request: ttft_tpot_request_mark), TOKEN (by the token event that brings the request to TOKENS
   tokens or more, or with TOKENS 0 by each token event: the latest: ttft_tpot_request_tokens) or MARK
   (ttft_tpot_request_mark, once a request: kept with the request, not in the event log); FOLLOWS: the points it lies at or after (TTFT_TPOT_POINT_BIT): an
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

/* One request event in the log, in call order (ttft_tpot_request_event_at): a submit (tokens 0) or
   tokens delivered, of the request-th request held (ttft_tpot_request_at). */
typedef struct ttft_tpot_request_event {
    uint64_t t_ns;
    uint32_t request, tokens;
} ttft_tpot_request_event;

/* The request table: each request's aggregates, an index by id, and the event log. */
typedef struct ttft_tpot__request_table {
    ttft_tpot_request *list;
    unsigned n, max;
    unsigned done;   /* of the n: those finished (what folding may take, known without a pass) */
    uint32_t *index; /* open addressing by id: request number + 1, 0 empty */
    uint32_t mask;
    ttft_tpot_request_event *events;
    size_t n_events, max_events;
    uint64_t dropped;     /* requests not kept whole, each once: refused, or truncated */
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
   TPOT or E2E bounds of ttft_tpot_model_prometheus); the metric it is a part of (its text line goes under
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
      "first to last token", "requests.decode", FIRST, LAST, SPAN, "", "")                            \
    X(INFERENCE, "inference", "inference time", "inference_ms", "request_inference_time_seconds",     \
      "Histogram of time from schedule to last token in seconds, per request with a schedule event.", E2E, E2E, \
      "schedule to last token", "requests.inference", SCHEDULE, LAST, SPAN, "", "")

#define TTFT_TPOT__METRIC_ENUM(name, label, words, json, prom, help, le, under, note, cmp, from, to, rule, slice, \
                               csv)                                                                   \
    TTFT_TPOT_METRIC_##name,
enum { TTFT_TPOT_METRICS(TTFT_TPOT__METRIC_ENUM) TTFT_TPOT_METRIC_COUNT };
#undef TTFT_TPOT__METRIC_ENUM
enum { TTFT_TPOT_METRIC_NONE = -1 }; /* UNDER of a metric that is part of none */

/* Why a request finished, as vLLM's finished_reason label names it: stop (an end token or a stop
   string), length (its token limit), abort (the client went away, or the server dropped it), error,
   repetition (stopped by repetition detection: finished, as stop and length are). An aborted or
   errored request (TTFT_TPOT_FINISH_FAILED) is in no latency figure or histogram (vLLM's histograms
   leave them out too): it is counted by its reason (JSON requests.finish_reasons, and Prometheus
   request_success_total{finished_reason=...} with every other reason, as vLLM counts them). */
enum { TTFT_TPOT_FINISH_NONE = 0, /* ttft_tpot_request_finish: no reason given (or not finished) */
       TTFT_TPOT_FINISH_STOP, TTFT_TPOT_FINISH_LENGTH, TTFT_TPOT_FINISH_ABORT, TTFT_TPOT_FINISH_ERROR,
       TTFT_TPOT_FINISH_REPETITION, TTFT_TPOT_FINISH_COUNT };
#define TTFT_TPOT_FINISH_FAILED(reason) ((reason) == TTFT_TPOT_FINISH_ABORT || (reason) == TTFT_TPOT_FINISH_ERROR)

/* What a driver knows of its scheduler and KV cache and tells the layer (ttft_tpot_serve_tell), as
   vLLM's families of them mean it; each is written from the start (0 until told), as vLLM writes them.
   X(NAME, name: Python's and a trace's, family, its reason label or "", kind, help). Kinds: a COUNTER
   adds what it is told (a whole number); a GAUGE is set to it (a whole number); a FRACTION is set to
   a value from 0 to 1, kept to 1e-9; a TOKENS, SEQUENCES or ITERATION histogram counts each whole
   number told (one a finished request, or one an engine step, as vLLM observes them) in vLLM's bounds:
   1, 2, 5, 10, 20, ... (TOKENS up to config.max_model_len, SEQUENCES up to 20), 1, 8, 16, 32, ...
   16384 (ITERATION), or 1, 2, 3, 4, 5, 10, 20 (FEW). */
#define TTFT_TPOT_TOLD(X)                                                                             \
    X(KV_CACHE_USAGE, "kv_cache_usage_perc", "kv_cache_usage_perc", "", FRACTION,                      \
      "KV-cache usage. 1 means 100 percent usage.")                                                   \
    X(PREEMPTIONS, "num_preemptions", "num_preemptions_total", "", COUNTER,                           \
      "Cumulative number of preemption from the engine.")                                             \
    X(PREFIX_CACHE_QUERIES, "prefix_cache_queries", "prefix_cache_queries_total", "", COUNTER,        \
      "Prefix cache queries, in terms of number of queried tokens.")                                  \
    X(PREFIX_CACHE_HITS, "prefix_cache_hits", "prefix_cache_hits_total", "", COUNTER,                 \
      "Prefix cache hits, in terms of number of cached tokens.")                                      \
    X(PROMPT_TOKENS_CACHED, "prompt_tokens_cached", "prompt_tokens_cached_total", "", COUNTER,        \
      "Number of prompt tokens served from the prefix cache, not computed.")                          \
    X(WAITING_CAPACITY, "waiting_capacity", "num_requests_waiting_by_reason", "capacity", GAUGE,      \
      "Number of requests waiting, by why: capacity (no room in the KV cache), deferred (held back).") \
    X(WAITING_DEFERRED, "waiting_deferred", "num_requests_waiting_by_reason", "deferred", GAUGE, "")   \
    X(PARAMS_MAX_TOKENS, "params_max_tokens", "request_params_max_tokens", "", TOKENS,                 \
      "Histogram of the max_tokens request parameter.")                                               \
    X(PARAMS_N, "params_n", "request_params_n", "", SEQUENCES, "Histogram of the n request parameter.") \
    X(MAX_NUM_GENERATION_TOKENS, "max_num_generation_tokens", "request_max_num_generation_tokens", "", \
      TOKENS, "Histogram of maximum number of requested generation tokens.")                         \
    X(PREFILL_KV_COMPUTED_TOKENS, "prefill_kv_computed_tokens", "request_prefill_kv_computed_tokens", "", \
      TOKENS, "Histogram of new KV tokens computed during prefill (excluding cached tokens).")         \
    X(ITERATION_TOKENS, "iteration_tokens", "iteration_tokens_total", "", ITERATION,                   \
      "Histogram of number of tokens per engine_step.")                                               \
    X(SPEC_DECODE_DRAFTS, "spec_decode_num_drafts", "spec_decode_num_drafts_total", "", COUNTER,       \
      "Number of spec decoding drafts.")                                                              \
    X(SPEC_DECODE_DRAFT_TOKENS, "spec_decode_num_draft_tokens", "spec_decode_num_draft_tokens_total", "", \
      COUNTER, "Number of draft tokens.")                                                             \
    X(SPEC_DECODE_ACCEPTED_TOKENS, "spec_decode_num_accepted_tokens", "spec_decode_num_accepted_tokens_total", \
      "", COUNTER, "Number of accepted tokens.")                                                     \
    X(REQUEST_NUM_PREEMPTIONS, "request_num_preemptions", "request_num_preemptions", "", FEW,          \
      "Histogram of the number of preemptions a finished request went through.")
#define TTFT_TPOT__TOLD_ENUM(name, key, family, label, kind, help) TTFT_TPOT_TOLD_##name,
enum { TTFT_TPOT_TOLD(TTFT_TPOT__TOLD_ENUM) TTFT_TPOT_TOLD_COUNT };
#undef TTFT_TPOT__TOLD_ENUM
enum { TTFT_TPOT_TOLD_COUNTER, TTFT_TPOT_TOLD_GAUGE, TTFT_TPOT_TOLD_FRACTION, TTFT_TPOT_TOLD_TOKENS,
       TTFT_TPOT_TOLD_SEQUENCES, TTFT_TPOT_TOLD_ITERATION, TTFT_TPOT_TOLD_FEW }; /* its kind */

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

/* One request's own figures (ttft_tpot_request_values_of), as the requests CSV writes them. */
typedef struct ttft_tpot_request_values {
    unsigned has;                          /* bit m: it has metric m (TTFT_TPOT_METRICS: both its points,
                                              and the tokens or token events its rule needs) */
    uint64_t ns[TTFT_TPOT_METRIC_COUNT];   /* metric m's span, its FROM point to its TO point, in ns ... */
    uint64_t over[TTFT_TPOT_METRIC_COUNT]; /* ... over this: tokens - 1 for a PER_TOKEN metric (TPOT), else 1 */
    int measured; /* in the figures: not warmup, not truncated, a token at least, not aborted or errored */
    int slo[3];   /* whether it met the TTFT, TPOT and E2E SLO (goodput's rule): 1 or 0; -1 where that SLO
                     is not set, or it has no such figure (no token yet, TPOT of one token) */
} ttft_tpot_request_values;

/* ---- Figures --------------------------------------------------------------------------------- */

/* The bucket bounds of the Prometheus histograms (ttft_tpot_serve_config.buckets; README: Fleets).
   VLLM_0_3: the bounds 0.3 took for vLLM's, which a trace's "# buckets: vllm" names; read, never exposed
   (TTFT_TPOT_BUCKETS_VLLM, "# buckets: vllm-0.33", are vLLM 0.33's). */
enum { TTFT_TPOT_BUCKETS_FINE = 0, TTFT_TPOT_BUCKETS_VLLM = 1, TTFT_TPOT_BUCKETS_VLLM_0_3 = 2 };

#define TTFT_TPOT_BUCKETS_MAX 103 /* bounds of the largest Prometheus bucket table */

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

/* A token count as vLLM's histograms of them (request_prompt_tokens, request_generation_tokens):
   vLLM's 1-2-5 bounds, bound b (1, 2, 5)[b % 3] * 10^(b / 3), from 1 to 5e9 (a prompt's count is
   below 2^32); each bucket holds the values above the bound before it, at or below its own (not
   cumulative); a value past the last is in count alone. */
#define TTFT_TPOT_TOKEN_BOUNDS 30
/* X(ID, NAME, HELP): each histogram (TTFT_TPOT_TOKENS_ID), its family's name (a trace's
   "# folded_tokens:" KEY too) and help. */
#define TTFT_TPOT_TOKEN_HISTS(X)                                                                              \
    X(PROMPT, "request_prompt_tokens",                                                                        \
      "Number of prefill tokens processed: a finished request's prompt tokens, where the driver gave them.") \
    X(GENERATION, "request_generation_tokens", "Number of generation tokens processed: a finished request's tokens.")
#define TTFT_TPOT__TOKENS_ID(id, name, help) TTFT_TPOT_TOKENS_##id,
enum { TTFT_TPOT_TOKEN_HISTS(TTFT_TPOT__TOKENS_ID) TTFT_TPOT_TOKENS_COUNT };
#undef TTFT_TPOT__TOKENS_ID
typedef struct ttft_tpot_token_hist {
    uint64_t bucket[TTFT_TPOT_TOKEN_BOUNDS];
    uint64_t count, sum;
} ttft_tpot_token_hist;

/* One slice of a serving run's time (ttft_tpot_serve_model.slices): over the measured requests. */
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

/* What the request tables lost, with the limits they met (the recording layer's, where the losses
   came from a trace). */
typedef struct ttft_tpot_request_losses {
    uint64_t requests_dropped, requests_refused, requests_truncated, events_lost;
    uint64_t events_kept;   /* request events stored */
    uint64_t max_requests, max_request_events; /* the limits met */
} ttft_tpot_request_losses;

/* The serving figures of a model (ttft_tpot_serve_figures(m)), computed with it, once. */
typedef struct ttft_tpot_serve_model {
    int has_requests;           /* a request was seen, or request events dropped */
    ttft_tpot_requests requests;
    ttft_tpot_steady_state requests_steady_state; /* the requests' TTFT in submit order */
    ttft_tpot_buckets buckets[TTFT_TPOT_METRIC_COUNT]; /* each request metric, for the exposition */
    ttft_tpot_token_hist tokens[TTFT_TPOT_TOKENS_COUNT]; /* the measured requests' prompt (where given)
                                                       and generation tokens, for the exposition */
    int tokens_known;           /* 0: a trace's folded requests came without them (0.3 wrote none) */
    uint64_t max_model_len;     /* ttft_tpot_serve_config.max_model_len */
    ttft_tpot_slice *slices;    /* the measured requests over time: [n_slices] of slice_ns each, from the */
    size_t n_slices;            /* first one's submit (a width that would pass 2^20 slices is doubled) */
    uint64_t slice_ns;
    int slices_asked;           /* ttft_tpot_serve_config.slice_ns was set: the text shows them */
    ttft_tpot_slo slo;
    ttft_tpot_request_losses losses;
    const char *model_label;    /* model_name="..." (ttft_tpot_serve_config.model_name, escaped), or "" */
} ttft_tpot_serve_model;

/* What a live exposition has published (ttft_tpot_publish). */
typedef struct ttft_tpot_publisher {
    ttft_tpot_buckets now[TTFT_TPOT_METRIC_COUNT]; /* every request finished, as last published */
    uint64_t requests, tokens; /* request_success_total, generation_tokens_total */
    uint64_t prompt_tokens;    /* prompt_tokens_total */
    int started;               /* published once */
} ttft_tpot_publisher;

/* ---- Serving --------------------------------------------------------------------------------- */

/* Zero it (TTFT_TPOT_ZERO), then set what differs from the defaults. */
typedef struct ttft_tpot_serve_config {
    unsigned max_requests;     /* requests tracked (0: none, request calls return EFULL; a growing
                                  collector's, config.grow, grow from 0 as a trace needs) */
    size_t max_request_events; /* submit and token events kept (0: 4096 per request, 64 KiB each) */
    unsigned request_window;   /* a server's exact window: when a submit or a token finds the request
                                  table or the event log full, the finished requests are folded away
                                  (into the exposition's histograms and counters, where every one
                                  stays counted) but for the last request_window of them, at most half
                                  (0: max_requests / 2); their slots and events are reused */
    uint64_t slice_ns;         /* results over time: the requests' slices (0: 1 s, and the text shows none) */
    const char *model_name;    /* a model_name label on every series of the Prometheus exposition, as vLLM
                                  writes it and its dashboards filter on it (NULL: none): at most 127
                                  bytes of UTF-8 without a newline or braces, copied at attach */
    const char *engine;        /* an engine label on every series, after model_name, as vLLM writes each
                                  engine's index (NULL: none): at most 31 bytes, as model_name's are */
    int buckets;               /* the exposition's bucket bounds: TTFT_TPOT_BUCKETS_FINE (0: vLLM's and the
                                  E12 series, histogram_quantile within 25%) or TTFT_TPOT_BUCKETS_VLLM
                                  (vLLM's alone: fewer series, coarser quantiles) */
    uint64_t max_model_len;    /* the model's length in tokens, as vLLM's config names it: the token
                                  histograms' last bound (vLLM's 1, 2, 5, 10, ... up to it; 0: up to
                                  5e9, above any count a prompt can have) */
    unsigned num_speculative_tokens; /* k, the draft tokens a sequence each decode step, as vLLM's
                                  speculative config names it: each decode span given its sequences
                                  (ttft_tpot_span_set_sequences) then counts vLLM's spec_decode_* (one of
                                  more than k + 1 tokens a sequence is rejected; 0: the driver tells them) */
    int no_live;               /* 1: no live exposition (ttft_tpot_publish refuses, EINVAL), so a finished
                                  request is not folded for one: a program that reads traces to report
                                  them (ttft_tpot_report) saves that work; its reports are the same */
} ttft_tpot_serve_config;

/* What the driver told (ttft_tpot_serve_tell): each counter's or gauge's value (a FRACTION in 1e-9),
   each histogram's values, and which were told (bit k of any: a merge takes a gauge only then). */
typedef struct ttft_tpot__told_set {
    uint64_t v[TTFT_TPOT_TOLD_COUNT]; /* the COUNTER, GAUGE and FRACTION kinds' */
    ttft_tpot_token_hist hist[TTFT_TPOT_TOLD_COUNT]; /* the TOKENS and SEQUENCES kinds' */
    unsigned any;
} ttft_tpot__told_set;

/* Finished requests folded into histograms and counters once each, in O(buckets) whatever their
   number: each value counted in its bucket (not cumulative; past the last bound: in count alone),
   per-token metrics' sums in 1/1024 ns, the others' in ns, 128 bits each. */
typedef struct ttft_tpot__tally {
    uint64_t bucket[TTFT_TPOT_METRIC_COUNT][TTFT_TPOT_BUCKETS_MAX];
    uint64_t count[TTFT_TPOT_METRIC_COUNT], sum_hi[TTFT_TPOT_METRIC_COUNT], sum_lo[TTFT_TPOT_METRIC_COUNT];
    uint64_t requests, tokens, prompt_tokens; /* measured: their number, tokens and prompt tokens */
    uint64_t other_tokens, other_prompt; /* the others not of a warmup section: their tokens, and the
                                            prompt tokens of those with one (with the measured ones':
                                            generation_tokens_total and prompt_tokens_total) */
    uint64_t truncated, unmeasured; /* finished requests out of the figures: truncated; warmup or no token */
    uint64_t reasons[TTFT_TPOT_FINISH_COUNT]; /* by finish reason (request_success_total): the measured
                                                 ones (NONE, STOP, LENGTH, REPETITION), the aborted and errored ones
                                                 (not warmup) */
    ttft_tpot_token_hist tok[TTFT_TPOT_TOKENS_COUNT]; /* the measured ones' prompt (where given) and
                                                         generation tokens */
} ttft_tpot__tally;

/* The serving layer. Fields are visible so it can live on the stack; read them through functions. */
typedef struct ttft_tpot_serve {
    ttft_tpot_layer layer;         /* its hooks, attached to its collector (ttft_tpot_attach) */
    ttft_tpot *owner;              /* that collector, as attach was given it (layer.c: NULL once detached) */
    ttft_tpot__request_table req;  /* the requests, their index and events */
    ttft_tpot__tally finished;     /* every request finished since attach: the live exposition (never cleared) */
    ttft_tpot__tally folded;       /* the finished requests folded out of the table since the last clear */
    uint64_t refused_cleared, dropped_cleared; /* the request losses of the intervals cleared (publish) */
    uint64_t made_cleared[2];      /* the tokens and prompt tokens of the requests in flight at a clear */
    uint64_t rejected;             /* its calls refused (the collector's reports add them to theirs) */
    uint64_t full_at[2];           /* the limits losses read from a trace met (max_requests,
                                      max_request_events of the recording layer) */
    unsigned full_known;           /* bit k: full_at[k] was read */
    unsigned request_window;       /* config.request_window */
    uint64_t slice_ns;             /* config.slice_ns */
    int buckets;                   /* config.buckets */
    uint64_t max_model_len;        /* config.max_model_len */
    int no_live;                   /* config.no_live */
    unsigned spec_k;               /* config.num_speculative_tokens */
    unsigned tokens_unknown;       /* a trace's folded requests came without their token counts (0.3
                                      wrote none): bit 0 in folded, bit 1 in finished */
    ttft_tpot_slo slo;
    char model_label[352];         /* model_name="...",engine="..." (config.model_name and engine,
                                      escaped; each where given), or "" */
    ttft_tpot__told_set told;      /* ttft_tpot_serve_tell's */
    void *reading;                 /* a trace being read (ttft_tpot_serve_restore), or NULL */
    void *owned;                   /* its tables' one allocation */
    unsigned grown;                /* tables a trace outgrew, moved to allocations of their own: bit 0 the
                                      requests and their index, bit 1 the events */
} ttft_tpot_serve;

/* ---- Traces ---------------------------------------------------------------------------------- */

/* What a trace holds of requests, put back by ttft_tpot_serve_restore between its collector's
   TTFT_TPOT_RESTORE_BEGIN and COMMIT (the trace reader's call). */
enum {
    TTFT_TPOT_SERVE_EVENT,         /* "ID,submit,T,0,0,W" (point SUBMIT) or "ID,token,T,0,K,W" (point LAST,
                                      tokens K): id (len), point, t_ns, tokens, warmup */
    TTFT_TPOT_SERVE_MARK,          /* "ID,ROLE,T,0,0,W": a mark (point SCHEDULE, OUTPUT) */
    TTFT_TPOT_SERVE_TRUNCATED,     /* "# truncated: SUBMIT_NS,WARMUP,ID": t_ns, warmup, id */
    TTFT_TPOT_SERVE_FINISHED,      /* "# finished: ID" */
    TTFT_TPOT_SERVE_FINISH_REASON, /* "# finish_reason: REASON,ID": reason */
    TTFT_TPOT_SERVE_PROMPT_TOKENS, /* "# prompt_tokens: N,ID": tokens */
    TTFT_TPOT_SERVE_FOLDED,        /* "# folded: REQUESTS,...,ERROR[,REPETITION[,OTHER_TOKENS,OTHER_PROMPT_TOKENS]]":
                                      v[0..11] (0 where the line ends before them) */
    TTFT_TPOT_SERVE_FOLDED_METRIC, /* "# folded_metric: KEY,COUNT,SUM_HI,SUM_LO,I:C ...": metric, v[0..2],
                                      n pairs (bucket[k], count[k]) */
    TTFT_TPOT_SERVE_BUCKETS,       /* "# buckets: vllm-0.33" (or 0.3's "vllm"): set (TTFT_TPOT_BUCKETS_*) */
    TTFT_TPOT_SERVE_TOLD,          /* "# told: KEY,VALUE": metric (TTFT_TPOT_TOLD_*), tokens (the value as
                                      kept: a FRACTION in 1e-9) */
    TTFT_TPOT_SERVE_FOLDED_TOKENS, /* "# folded_tokens: KEY,COUNT,SUM,I:C ...": metric (TTFT_TPOT_TOKENS_*),
                                      v[0..1], n pairs (bucket[k], count[k]) */
    TTFT_TPOT_SERVE_TOLD_HIST      /* "# told_hist: KEY,COUNT,SUM,I:C ...": metric (TTFT_TPOT_TOLD_*, a
                                      histogram's), v[0..1], n pairs */
};

/* One item for ttft_tpot_serve_restore. line: where it stands (a check at the collector's COMMIT says
   which line failed). err: room for what a refusal (EPARSE) says. */
typedef struct ttft_tpot_serve_item {
    int kind;                 /* TTFT_TPOT_SERVE_* */
    unsigned long line;
    const char *id;           /* not NUL-terminated; len bytes */
    size_t len;
    int point;                /* EVENT, MARK: TTFT_TPOT_POINT_* */
    uint64_t t_ns, tokens;
    int warmup;
    int reason;               /* FINISH_REASON: TTFT_TPOT_FINISH_* */
    int metric, set;          /* FOLDED_METRIC: TTFT_TPOT_METRIC_* (FOLDED_TOKENS: TTFT_TPOT_TOKENS_*);
                                 BUCKETS: TTFT_TPOT_BUCKETS_* */
    uint64_t v[12];
    size_t n;                 /* FOLDED_METRIC, FOLDED_TOKENS: its buckets */
    uint64_t bucket[TTFT_TPOT_BUCKETS_MAX], count[TTFT_TPOT_BUCKETS_MAX];
    char *err;
    size_t errlen;
} ttft_tpot_serve_item;

/* ================================ functions ==================================================== */

/* ---- Serving --------------------------------------------------------------------------------- */

/* Make s a serving layer of collector c (cfg NULL: defaults) and attach it (ttft_tpot_attach): from now
   on c's models, reports and traces hold its requests, and a clear or merge of c clears or merges
   them. Its tables are one allocation (config.alloc_user's); the requests' ids are keyed by c's hash
   key (ttft_tpot_name_hash). OK; EINVAL (s or c NULL, c has a layer already, a limit past 2^24
   requests or 2^32 events, model_name, engine or buckets invalid: s is zeroed); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_serve_attach(ttft_tpot_serve *s, ttft_tpot *c, const ttft_tpot_serve_config *cfg);

/* Detach s from its collector and release its tables; s is zeroed. Free it before its collector (a
   collector freed first has detached it). NULL: nothing. */
TTFT_TPOT_DEF void ttft_tpot_serve_free(ttft_tpot_serve *s);

/* The serving layer attached to c (a tool's way to a collector's requests), or NULL. */
TTFT_TPOT_DEF ttft_tpot_serve *ttft_tpot_serve_of(const ttft_tpot *c);

/* SLOs for goodput: a request is good when each SLO set (nonzero) holds, <= inclusive; a request with
   one token has no TPOT and passes the TPOT SLO. OK; EINVAL (s NULL); ERANGE (negative, NaN or
   infinite, told by its bits: nothing changes). A trace does not carry them. */
TTFT_TPOT_DEF int ttft_tpot_serve_slo(ttft_tpot_serve *s, ttft_tpot_slo slo);

/* What the driver knows and the layer cannot see: what (TTFT_TPOT_TOLD_*), a COUNTER adding value, a
   GAUGE or FRACTION set to it, a histogram (TOKENS, SEQUENCES) counting it (TTFT_TPOT_TOLD). Counters
   and histograms never go back, across clears too, as the live exposition's. OK (also when disabled:
   nothing); EINVAL (s NULL, what unknown); ERANGE (NaN, infinite, negative, not a whole number where
   one is asked, a fraction past 1, a total past 2^64 - 1; told by its bits: nothing changes). A trace
   carries what was told ("# told:", "# told_hist:"). */
TTFT_TPOT_DEF int ttft_tpot_serve_tell(ttft_tpot_serve *s, int what, double value);

/* ---- Requests -------------------------------------------------------------------------------- */

/* Request events. A request is made by its submit, then delivers tokens in events of one or more
   tokens; it finishes implicitly at its last token. t_ns is a time on the collector's clock (device
   timestamps, traces, tests), or TTFT_TPOT_NOW: that clock's time (or, for a point whose NOW names
   another, that point's time: TTFT_TPOT_POINTS). A request submitted inside a warmup section
   (ttft_tpot_warmup_begin) is a warmup request. Collector disabled: nothing, OK.
   mark: point TTFT_TPOT_POINT_SUBMIT makes request id; a point set by a call of its own (SET MARK:
   SCHEDULE, OUTPUT) is set once a request, kept with it (no event storage). OK; EINVAL (s or id NULL,
   a point neither submit nor a mark); ENAME (id as a phase name would be refused); EREQUEST (a second
   submit; a mark of an unknown or finished request, set before, or out of the points' order:
   counted as rejected); EFULL: the request table is full (its max_requests: counted in
   requests_dropped and requests_refused), or the event log is full (the request is tracked but
   truncated: counted in requests_dropped and events_lost).
   tokens: as mark, and EREQUEST for an unknown id, or a time before the request's submit or its
   previous tokens (counted as rejected); EINVAL for 0 tokens. EFULL when the event log is full: the
   request is truncated, and a truncated request is left out of every request figure (counted in
   requests.truncated; its later events are dropped too). Once a submit was refused for a full
   request table, a token for an id not held is taken as that request's (EFULL), and neither rejected
   nor counted again: it was counted as dropped at its submit. Before either
   takes room, a full table or log folds its finished requests away (FOLDING). */
#define TTFT_TPOT_NOW UINT64_MAX
TTFT_TPOT_DEF int ttft_tpot_request_mark(ttft_tpot_serve *s, const char *id, int point, uint64_t t_ns);
TTFT_TPOT_DEF int ttft_tpot_request_tokens(ttft_tpot_serve *s, const char *id, uint64_t t_ns, uint32_t tokens);

/* The request has delivered its last token, for reason (TTFT_TPOT_FINISH_*: NONE when none is
   given): later tokens and marks are refused, a live exposition (ttft_tpot_publish) counts it from now
   on, and no longer as in flight. The reports need no finish (a request ends at its last token); a
   trace carries it ("# finished:", "# finish_reason:"). OK (also when disabled: nothing); EINVAL (s or
   id NULL, reason unknown); EREQUEST (unknown id, or finished before: counted as rejected); EFULL
   (not held after a submit was refused for a full table: taken as that request's, counted at its
   submit, as its tokens are). */
TTFT_TPOT_DEF int ttft_tpot_request_finish(ttft_tpot_serve *s, const char *id, int reason);

/* A reason's name ("stop", "length", "abort", "error", "repetition"; "" for NONE), or NULL when
   unknown. */
TTFT_TPOT_DEF const char *ttft_tpot_finish_reason_name(int reason);

/* The request's prompt tokens (once, after its submit), for vLLM's prompt_tokens_total and the JSON's
   requests.prompt_tokens. OK (also when disabled: nothing); EINVAL (s or id NULL, 0 tokens or 2^32 and
   more, as a span's: so that no total of them wraps); EREQUEST
   (unknown id, or given before: counted as rejected); EFULL as finish. Takes no event storage. */
TTFT_TPOT_DEF int ttft_tpot_request_prompt(ttft_tpot_serve *s, const char *id, uint64_t prompt_tokens);

/* Of the request's prompt tokens (given before: ttft_tpot_request_prompt), those served from the prefix
   cache, not computed (once): vLLM's request_prefill_kv_computed_tokens then counts its prompt tokens
   less these, one value once it has finished, over the requests request_prompt_tokens counts
   (measured: not of a warmup section, aborted or errored, with a token), as vLLM observes a finished
   request's. A driver that gives them need not tell TTFT_TPOT_TOLD_PREFILL_KV_COMPUTED_TOKENS (both
   would count it twice). OK (also when disabled: nothing); EINVAL (s or id NULL, more than its prompt
   tokens); EREQUEST (unknown id, no prompt tokens given, or given before: counted as rejected); EFULL as
   finish. A trace carries the count (# told_hist:), not a request's cached tokens. */
TTFT_TPOT_DEF int ttft_tpot_request_cached(ttft_tpot_serve *s, const char *id, uint64_t cached_tokens);

/* The time of q's point (TTFT_TPOT_POINT_*) in ns: 0 where q lacks it (q->points says which it has),
   q is NULL or the point unknown. */
TTFT_TPOT_DEF uint64_t ttft_tpot_request_point(const ttft_tpot_request *q, int point);

/* The tracked request named id (a server logs a request as it finishes, before it may fold away): OK;
   EINVAL (NULL); EREQUEST (no such request held). */
TTFT_TPOT_DEF int ttft_tpot_request_get(const ttft_tpot_serve *s, const char *id, ttft_tpot_request *out);

/* The i-th tracked request (in submit order; numbers move down as finished requests fold away): OK;
   EINVAL (NULL, or no such request). *n (may be NULL): how many are held. */
TTFT_TPOT_DEF int ttft_tpot_request_at(const ttft_tpot_serve *s, unsigned i, ttft_tpot_request *out, unsigned *n);

/* The i-th event of the log (in call order; numbers move down as finished requests fold away): OK;
   EINVAL (NULL, or no such event). *n (may be NULL): how many are held. */
TTFT_TPOT_DEF int ttft_tpot_request_event_at(const ttft_tpot_serve *s, size_t i, ttft_tpot_request_event *out,
                                             size_t *n);

/* ---- Figures --------------------------------------------------------------------------------- */

/* Request q's own figures under s's SLOs (q: one of s's, from ttft_tpot_request_at or _get). OK;
   EINVAL (NULL). */
TTFT_TPOT_DEF int ttft_tpot_request_values_of(const ttft_tpot_serve *s, const ttft_tpot_request *q,
                                              ttft_tpot_request_values *out);

/* The serving figures computed with model m (m's collector's layer, with its figures: not
   TTFT_TPOT_SKIP_LAYER), or NULL. */
TTFT_TPOT_DEF const ttft_tpot_serve_model *ttft_tpot_serve_figures(const ttft_tpot_model *m);

/* The serving metrics of the requests held and folded. OK; EINVAL (NULL); ENOMEM. With no request seen,
   out->seen is 0. */
TTFT_TPOT_DEF int ttft_tpot_requests_summary(const ttft_tpot_serve *s, ttft_tpot_requests *out);

/* The values behind a request metric (a TTFT_TPOT_METRIC_*), for tools that compare runs: over the
   measured requests (TPOT rounded to the ns; ITL every gap; queue and prefill the requests with a
   schedule event; TTST those with two tokens or more), in ns, into out[0, cap); *n: how many there
   are (more than cap: only cap were written; out may be NULL to ask). OK; EINVAL (s or n NULL, metric
   unknown); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_metric_values(const ttft_tpot_serve *s, int metric, uint64_t *out, size_t cap, size_t *n);

/* ---- Prometheus ------------------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* Prometheus text exposition (format 0.0.4, OpenMetrics-compatible) of a model's measured requests:
   histograms of TTFT, TPOT, ITL and E2E latency and of prompt and generation tokens
   (TTFT_TPOT_TOKEN_HISTS, up to config.max_model_len), counters of requests by finished_reason, of prompt
   tokens (those given ttft_tpot_request_prompt) and generation tokens, of requests refused at submit
   (request_refused_total: the request table was full) and dropped (request_dropped_total: refused, or
   truncated), and vLLM's gauges of the requests in flight (num_requests_waiting: submitted, neither
   scheduled nor given a token; num_requests_running: scheduled or given a token, not finished). With
   config.model_name, every series carries the label model_name="NAME" (and with config.engine,
   engine="ENGINE" after it), as vLLM's own do and its
   dashboards' queries filter on. prefix NULL gives vLLM's names to vLLM's families
   ("vllm:time_to_first_token_seconds", ...) and "ttft_tpot:" to the project's own (TTST, TTFO, the
   refused and dropped requests, the device figures): nothing vLLM lacks is written under "vllm:".
   Prometheus accepts ':' though promtool's lint prefers names without it; another prefix replaces
   both, joined with '_' unless it ends in '_' or ':' ("llm" and "llm_" both give "llm_time_to_...").
   Bounds are spelled as prometheus_client spells them (le="1.0", le="+Inf"). labels (NULL or e.g. "model_name=\"qwen3\"") go on every series: name="value"
   pairs joined by ',', names [a-zA-Z_][a-zA-Z0-9_]* each once, not "le" and not starting "__"; values
   UTF-8 with \\, \" and \n their only escapes, no raw newline, no braces; at most 500 bytes with the
   model_name label, which they cannot name again. EINVAL (m or out NULL, a model without serving
   figures or computed with TTFT_TPOT_SKIP_EXPOSITION, prefix not [a-zA-Z_:][a-zA-Z0-9_:]*, labels otherwise: nothing written), ENOMEM (nothing
   written), EIO. The bucket bounds: examples/README.md, Serving metrics. */
TTFT_TPOT_DEF int ttft_tpot_model_prometheus(const ttft_tpot_model *m, FILE *out, const char *prefix,
                                             const char *labels);

/* A live exposition, published while the collector runs (a scrape, a textfile collector): the requests
   finished so far (ttft_tpot_request_finish), measured as the reports measure them, their histograms
   and counters as ttft_tpot_model_prometheus writes them, cumulative over every publication of this
   publisher: they never go backwards, also across ttft_tpot_clear (a request that finished before a
   clear is counted whenever it is published), so rate() and increase() work. Zero-initialise it
   (about 15 KiB) before the first publication; one publisher a layer. Each publication costs
   O(buckets + requests in the table), whatever the number served: a finished request was folded into
   the layer's cumulative histograms once, when it finished. The device figures are not published
   live. publish: into out; EINVAL as ttft_tpot_model_prometheus (nothing written, nothing counted;
   also a layer of config.no_live),
   ENOMEM, EIO. publish_file: the same into path, atomically: written to "PATH.tmp-PID-ADDRESS" (this
   process and publisher's own, so publishers on one path never touch each other's), then renamed
   over path, so a reader sees the last whole exposition (node_exporter's textfile collector reads
   only files ending in .prom); the temporary file is created exclusively (a link planted there is
   removed, not followed). EPATH, nothing written: path exists and is not a regular file (a FIFO, a
   device, a link: never replaced), or is too long for the temporary name. */
TTFT_TPOT_DEF int ttft_tpot_publish(const ttft_tpot_serve *s, ttft_tpot_publisher *p, FILE *out, const char *prefix,
                                    const char *labels);
TTFT_TPOT_DEF int ttft_tpot_publish_file(const ttft_tpot_serve *s, ttft_tpot_publisher *p, const char *path,
                                         const char *prefix, const char *labels);
/* The same into buf, cap bytes, as a string (its length: strlen), for a server that answers /metrics
   itself (text/plain; version=0.0.4). OK; EINVAL as publish (buf NULL or cap 0 too); ENOMEM: the
   exposition is cap - 1 bytes or more (a byte to spare tells a whole one from a cut one; buf then
   holds ""; a replica's is about 100 KiB: about 100 bytes a series, 1,252 series with the fine
   buckets, 460 with vLLM's). */
TTFT_TPOT_DEF int ttft_tpot_publish_buffer(const ttft_tpot_serve *s, ttft_tpot_publisher *p, char *buf, size_t cap,
                                           const char *prefix, const char *labels);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Traces ---------------------------------------------------------------------------------- */

/* Put back a trace's requests, item by item (TTFT_TPOT_SERVE_*), between the collector's
   TTFT_TPOT_RESTORE_BEGIN and COMMIT (ttft_tpot_restore), checked as the calls check them, each
   request keeping its warmup flag as written; a growing collector's tables (config.grow) make room
   first. At the collector's COMMIT the layer checks what its directives say of its records (a
   truncated request lost an event; the dropped requests hold the refused and the truncated ones)
   and folds the finished ones; at a ROLLBACK it is as it was at BEGIN. OK; EPARSE (item->err says
   why); ENOMEM; EINVAL (NULL, an unknown kind, outside BEGIN and COMMIT). */
#ifndef TTFT_TPOT_NO_STDIO
TTFT_TPOT_DEF int ttft_tpot_serve_restore(ttft_tpot_serve *s, ttft_tpot_serve_item *item);
#endif

#ifdef __cplusplus
}
#endif
#endif /* TTFT_TPOT_SERVE_H */

/* ================================ implementation ================================================ */
#if defined(TTFT_TPOT_IMPLEMENTATION) && !defined(TTFT_TPOT_SERVE_IMPLEMENTED)
#define TTFT_TPOT_SERVE_IMPLEMENTED

#include <string.h>
#ifndef TTFT_TPOT_NO_STDIO
#include <stdlib.h> /* qsort */
#if defined(__unix__) || defined(__APPLE__)
#include <sys/stat.h> /* what publish_file would replace */
#include <unistd.h>   /* getpid: the publisher's temporary file */
#define TTFT_TPOT__SERVE_PID() ((unsigned long)getpid())
#elif defined(_WIN32)
#include <process.h>
#define TTFT_TPOT__SERVE_PID() ((unsigned long)_getpid())
#else
#define TTFT_TPOT__SERVE_PID() 0ul
#endif
#endif

/* As in ttft_tpot.h: strict floating point, whatever the file is compiled with. */
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

#define TTFT_TPOT__TWO64_SERVE 18446744073709551616.0

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

static int ttft_tpot__has_point(const ttft_tpot_request *q, int p)
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
    /* the common case, a token past the second: at or after every point so far, which the last token
       is of all but the output mark */
    if (bits == TTFT_TPOT_POINT_BIT(LAST) && ttft_tpot__has_point(q, TTFT_TPOT_POINT_SECOND))
        return t >= q->last_ns && t >= q->output_ns;
    uint32_t after = 0u TTFT_TPOT_POINTS(TTFT_TPOT__POINT_AFTER);
    TTFT_TPOT_POINTS(TTFT_TPOT__POINT_ORDER)
    return 1;
#undef TTFT_TPOT__POINT_AFTER
#undef TTFT_TPOT__POINT_ORDER
}

/* -- Requests: the index of their ids ---------------------------------------------------------- */

/* An index entry: the request's number + 1 in its low 25 bits (2^24 requests at most), and above them
   7 more bits of its id's hash, so that a probe reads only the records whose tag matches. At most
   half full, keyed by the collector's hash (ttft_tpot_name_hash): ids crafted to collide cannot be
   made without its key. */
#define TTFT_TPOT__REQ_NUM 0x01FFFFFFu
#define TTFT_TPOT__REQ_TAG(h) ((uint32_t)((h) >> 57) << 25)

/* The slot of the request named id (len bytes, hash h) in the index, or of the empty slot where it
   would go. */
static uint32_t ttft_tpot__request_probe(const ttft_tpot_serve *s, const char *id, size_t len, uint64_t h)
{
    uint32_t i = (uint32_t)h & s->req.mask, tag = TTFT_TPOT__REQ_TAG(h), e;
    for (; (e = s->req.index[i]) != 0; i = (i + 1) & s->req.mask) {
        const char *have = s->req.list[(e & TTFT_TPOT__REQ_NUM) - 1].id;
        if ((e & ~TTFT_TPOT__REQ_NUM) == tag && have[len] == '\0' && memcmp(have, id, len) == 0)
            break;
    }
    return i;
}

static uint64_t ttft_tpot__id_hash(const ttft_tpot_serve *s, const char *id, size_t len)
{
    uint64_t h = 0;
    (void)ttft_tpot_name_hash(s->layer.c, id, len, &h);
    return h;
}

static uint32_t ttft_tpot__request_slot(const ttft_tpot_serve *s, const char *id, size_t len)
{
    return ttft_tpot__request_probe(s, id, len, ttft_tpot__id_hash(s, id, len));
}

/* The number of the request named id, or -1. */
static int ttft_tpot__request_find(const ttft_tpot_serve *s, const char *id, size_t len)
{
    return s->req.max ? (int)(s->req.index[ttft_tpot__request_slot(s, id, len)] & TTFT_TPOT__REQ_NUM) - 1 : -1;
}

/* Request r into the index. */
static void ttft_tpot__request_index_add(ttft_tpot_serve *s, unsigned r)
{
    const char *id = s->req.list[r].id;
    size_t len = strlen(id);
    uint64_t h = ttft_tpot__id_hash(s, id, len);
    s->req.index[ttft_tpot__request_probe(s, id, len, h)] = (r + 1) | TTFT_TPOT__REQ_TAG(h);
}

/* Every request into an empty index. */
static void ttft_tpot__request_reindex(ttft_tpot_serve *s)
{
    unsigned r;
    if (!s->req.max)
        return;
    memset(s->req.index, 0, ((size_t)s->req.mask + 1) * sizeof *s->req.index);
    for (r = 0; r < s->req.n; r++)
        ttft_tpot__request_index_add(s, r);
}

/* -- Requests: events -------------------------------------------------------------------------- */

/* A new request in the table, which has room, at slot of the index (the empty one that ended its
   probe: ttft_tpot__request_slot): its number. */
static int ttft_tpot__request_new(ttft_tpot_serve *s, const char *id, size_t len, uint64_t t, int warmup, uint32_t slot)
{
    ttft_tpot_request *q = &s->req.list[s->req.n];
    memset(q, 0, sizeof *q);
    memcpy(q->id, id, len);
    q->ev_first = q->ev_last = UINT32_MAX;
    ttft_tpot__set_points(q, TTFT_TPOT_POINT_BIT(SUBMIT), t, 0);
    q->warmup = warmup != 0;
    s->req.index[slot] = (s->req.n + 1) | TTFT_TPOT__REQ_TAG(ttft_tpot__id_hash(s, id, len)); /* its tag */
    return (int)s->req.n++;
}

#define TTFT_TPOT__ELOG (-100) /* internal: the request is tracked, the event log is full */

/* Record mark p (a point set by a call of its own) of request r at t: OK, or EREQUEST when r is
   finished, has the mark, lacks a point the mark follows, or the mark would break their order. */
static int ttft_tpot__request_mark_set(ttft_tpot_serve *s, int r, int p, uint64_t t)
{
    ttft_tpot_request *q = &s->req.list[r];
    uint32_t need = ttft_tpot__points[p].follows;
    if (q->finished || ttft_tpot__has_point(q, p) || (q->points & need) != need || !ttft_tpot__in_order(q, 1u << p, t))
        return TTFT_TPOT_EREQUEST;
    ttft_tpot__set_points(q, 1u << p, t, 0);
    q->scheduled = (uint8_t)ttft_tpot__has_point(q, TTFT_TPOT_POINT_SCHEDULE); /* the flag code written before points reads */
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

/* One request event, as its call gives it: an id, a point, a time and tokens. */
typedef struct ttft_tpot__request_ev {
    const char *id;
    size_t len;
    uint64_t t;
    uint32_t tokens;
    int warmup, point;
    uint32_t slot; /* the id's slot in the index (ttft_tpot__request_slot), UINT32_MAX: found here */
} ttft_tpot__request_ev;

/* The request e's event acts on (*req), or EFULL / EREQUEST / ENAME where there is none to act on. */
static int ttft_tpot__request_of_event(ttft_tpot_serve *s, const ttft_tpot__request_ev *e, int *req)
{
    uint32_t slot = e->slot;
    int r;
    *req = -1;
    if (e->len == 0 || e->len >= TTFT_TPOT_NAME_MAX)
        return TTFT_TPOT_ENAME;
    if (s->req.max) /* an id found is valid: it was checked when added */
        slot = slot == UINT32_MAX ? ttft_tpot__request_slot(s, e->id, e->len) : slot;
    *req = r = s->req.max ? (int)(s->req.index[slot] & TTFT_TPOT__REQ_NUM) - 1 : -1;
    if (r < 0 && ttft_tpot_name_hash(s->layer.c, e->id, e->len, NULL) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENAME;
    if (e->point == TTFT_TPOT_POINT_SUBMIT) {
        if (r >= 0)
            return TTFT_TPOT_EREQUEST;
        if (s->req.n == s->req.max)
            return TTFT_TPOT_EFULL;
        *req = ttft_tpot__request_new(s, e->id, e->len, e->t, e->warmup, slot);
    } else if (r < 0) {
        return s->req.refused ? TTFT_TPOT_EFULL : TTFT_TPOT_EREQUEST;
    }
    return TTFT_TPOT_OK;
}

/* Apply one request event: a submit (point SUBMIT, tokens 0), tokens (point LAST), or a mark (a point
   set by a call of its own: TTFT_TPOT_POINTS), which is kept with the request, not in the log.
   Checked, then stored; nothing counted. *req: the request's number, or -1. EFULL: the request table
   is full (a token for an unknown id once a submit was refused for that is taken as one of the
   requests that could not be tracked); TTFT_TPOT__ELOG: the event log is full, or the request already
   lost an event (a submit still makes its request). One lookup an event. */
static int ttft_tpot__request_event(ttft_tpot_serve *s, const ttft_tpot__request_ev *e, int *req)
{
    ttft_tpot_request *q;
    ttft_tpot_request_event *ev;
    uint32_t bits = 0;
    int rc = ttft_tpot__request_of_event(s, e, req);
    if (rc != TTFT_TPOT_OK)
        return rc;
    q = &s->req.list[*req];
    if (ttft_tpot__points[e->point].set == TTFT_TPOT__SET_MARK)
        return ttft_tpot__request_mark_set(s, *req, e->point, e->t);
    if (e->point != TTFT_TPOT_POINT_SUBMIT) {
        bits = ttft_tpot__token_points(q, e->tokens);
        if (q->finished || !ttft_tpot__in_order(q, bits, e->t))
            return TTFT_TPOT_EREQUEST;
    }
    if (q->truncated || s->req.n_events == s->req.max_events)
        return TTFT_TPOT__ELOG;
    if (e->tokens) {
        ttft_tpot__tokens_add(q, bits, e->t, e->tokens);
        q->ev_last = (uint32_t)s->req.n_events; /* below max_events: within 32 bits */
        q->ev_first = q->ev_first == UINT32_MAX ? q->ev_last : q->ev_first;
    }
    ev = &s->req.events[s->req.n_events++];
    ev->t_ns = e->t;
    ev->request = (uint32_t)*req;
    ev->tokens = e->tokens;
    return TTFT_TPOT_OK;
}

/* Back to n requests and m events, as after an event that is refused: the aggregates and the index
   are rebuilt from the event log (the points of token events from their events; marks stay). */
static void ttft_tpot__requests_rollback(ttft_tpot_serve *s, unsigned n, size_t m)
{
    uint32_t by_tokens = 0;
    unsigned r;
    size_t i;
    int p;
    s->req.n = n;
    s->req.n_events = m;
    s->req.done = 0;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        by_tokens |= ttft_tpot__points[p].set == TTFT_TPOT__SET_TOKEN ? 1u << p : 0u;
    for (r = 0; r < n; r++) {
        ttft_tpot_request *req = &s->req.list[r];
        ttft_tpot__set_points(req, by_tokens, 0, 1);
        req->tokens = 0;
        req->token_events = 0;
        req->ev_first = req->ev_last = UINT32_MAX;
        s->req.done += req->finished != 0;
    }
    ttft_tpot__request_reindex(s);
    for (i = 0; i < m; i++) {
        const ttft_tpot_request_event *ev = &s->req.events[i];
        ttft_tpot_request *req = &s->req.list[ev->request];
        if (!ev->tokens)
            continue;
        req->ev_last = (uint32_t)i;
        req->ev_first = req->ev_first == UINT32_MAX ? req->ev_last : req->ev_first;
        ttft_tpot__tokens_add(req, ttft_tpot__token_points(req, ev->tokens), ev->t_ns, ev->tokens);
    }
}

/* The time of an event of point p, t_ns as its call gave it: TTFT_TPOT_NOW is the clock's time, or
   that of the point the table's NOW names, where the request has it (else the clock's: the event is
   refused then, as the point it follows is missing). */
static uint64_t ttft_tpot__event_time(const ttft_tpot_serve *s, const char *id, int p, uint64_t t)
{
    int now = ttft_tpot__points[p].now, r;
    if (t != TTFT_TPOT_NOW)
        return t;
    r = now != TTFT_TPOT_POINT_NONE && s->req.max ? ttft_tpot__request_find(s, id, strlen(id)) : -1;
    return r >= 0 && ttft_tpot__has_point(&s->req.list[r], now) ? ttft_tpot__point_ns(&s->req.list[r], now)
                                                                 : ttft_tpot_clock_now(s->layer.c);
}

/* Whether a request is in the figures: not warmup, not truncated, a token at least, not aborted or
   errored. */
static int ttft_tpot__measured(const ttft_tpot_request *r)
{
    return !r->warmup && !r->truncated && r->token_events > 0 && !TTFT_TPOT_FINISH_FAILED(r->reason);
}

/* Folding finished requests (Requests: folding, below, beside the metrics it computes). */
static void ttft_tpot__fold(const ttft_tpot_serve *s, ttft_tpot__tally *t, unsigned r);
static unsigned ttft_tpot__fold_away(ttft_tpot_serve *s);
static void ttft_tpot__hist_put(ttft_tpot_token_hist *h, int scale, uint64_t n);
/* What the driver tells, taken (Serving: what the driver tells, below): a request's prefill counts there. */
static int ttft_tpot__told_take(ttft_tpot__told_set *t, int what, uint64_t v);

/* An event of a call: room folded for it where the table or the log is full, applied, and what it
   lost or had refused counted. */
static int ttft_tpot__request_call(ttft_tpot_serve *s, const char *id, uint64_t t, uint32_t tokens, int point)
{
    ttft_tpot__request_ev e;
    int rc, r;
    if (!s || !id)
        return TTFT_TPOT_EINVAL;
    if (!s->layer.c || !s->layer.enabled)
        return TTFT_TPOT_OK;
    if (s->req.max && ttft_tpot__points[point].set != TTFT_TPOT__SET_MARK &&
        ((point == TTFT_TPOT_POINT_SUBMIT && s->req.n == s->req.max) || s->req.n_events == s->req.max_events))
        (void)ttft_tpot__fold_away(s); /* room from the finished requests, if any */
    e.id = id, e.len = strlen(id), e.t = ttft_tpot__event_time(s, id, point, t), e.tokens = tokens;
    e.warmup = s->layer.warmup, e.point = point, e.slot = UINT32_MAX;
    rc = ttft_tpot__request_event(s, &e, &r);
    if (rc == TTFT_TPOT_EREQUEST)
        s->rejected += s->layer.refusal;
    /* a request dropped counts once: at its refused submit (its later calls find no request), or at
       the first event it lost */
    if (rc == TTFT_TPOT_EFULL && point == TTFT_TPOT_POINT_SUBMIT) {
        s->req.refused++;
        s->req.dropped++;
    }
    if (rc == TTFT_TPOT__ELOG) { /* tracked, but not every event kept: out of every figure */
        s->req.events_lost++;
        s->req.dropped += !s->req.list[r].truncated;
        s->req.list[r].truncated = 1;
        rc = TTFT_TPOT_EFULL;
    }
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_request_mark(ttft_tpot_serve *s, const char *id, int point, uint64_t t_ns)
{
    if (point < 0 || point >= TTFT_TPOT_POINT_COUNT ||
        (point != TTFT_TPOT_POINT_SUBMIT && ttft_tpot__points[point].set != TTFT_TPOT__SET_MARK))
        return TTFT_TPOT_EINVAL;
    return ttft_tpot__request_call(s, id, t_ns, 0, point);
}

TTFT_TPOT_DEF int ttft_tpot_request_tokens(ttft_tpot_serve *s, const char *id, uint64_t t_ns, uint32_t tokens)
{
    return tokens ? ttft_tpot__request_call(s, id, t_ns, tokens, TTFT_TPOT_POINT_LAST) : TTFT_TPOT_EINVAL;
}

/* The request id names, for a call that takes no event storage: OK and *r (-1 when the collector is
   disabled: nothing to do); EINVAL (s or id NULL); EFULL (unknown after a submit was refused for a
   full table: dropped, and counted at that submit); EREQUEST (unknown: counted as rejected). */
static int ttft_tpot__request_by_id(ttft_tpot_serve *s, const char *id, int *r)
{
    *r = -1;
    if (!s || !id)
        return TTFT_TPOT_EINVAL;
    if (!s->layer.c || !s->layer.enabled)
        return TTFT_TPOT_OK;
    *r = s->req.max ? ttft_tpot__request_find(s, id, strlen(id)) : -1;
    if (*r < 0 && s->req.refused)
        return TTFT_TPOT_EFULL;
    if (*r < 0) {
        s->rejected += s->layer.refusal;
        return TTFT_TPOT_EREQUEST;
    }
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF const char *ttft_tpot_finish_reason_name(int reason)
{
    static const char *const names[TTFT_TPOT_FINISH_COUNT] = {"", "stop", "length", "abort", "error", "repetition"};
    return reason >= 0 && reason < TTFT_TPOT_FINISH_COUNT ? names[reason] : NULL;
}

/* A finished request's prefill, its prompt tokens less those cached, where the driver gave both
   (request_prefill_kv_computed_tokens), as vLLM observes it, over the requests that
   request_prompt_tokens counts (measured: not aborted or errored, with a token); called at its finish
   and at its cached tokens, each once a request, so it counts at the later of the two. A total past
   2^64 - 1 stays. */
static void ttft_tpot__kv_computed(ttft_tpot_serve *s, const ttft_tpot_request *q)
{
    if (!q->cached || !q->finished || !ttft_tpot__measured(q))
        return;
    (void)ttft_tpot__told_take(&s->told, TTFT_TPOT_TOLD_PREFILL_KV_COMPUTED_TOKENS, q->prompt_tokens - q->cached_tokens);
}

TTFT_TPOT_DEF int ttft_tpot_request_cached(ttft_tpot_serve *s, const char *id, uint64_t cached_tokens)
{
    int r = -1, rc = ttft_tpot__request_by_id(s, id, &r);
    ttft_tpot_request *q;
    if (rc != TTFT_TPOT_OK || r < 0)
        return rc;
    q = &s->req.list[r];
    if (!q->prompt_tokens || q->cached) {
        s->rejected += s->layer.refusal;
        return TTFT_TPOT_EREQUEST;
    }
    if (cached_tokens > q->prompt_tokens)
        return TTFT_TPOT_EINVAL;
    q->cached_tokens = (uint32_t)cached_tokens, q->cached = 1; /* at most its prompt's: below 2^32 */
    ttft_tpot__kv_computed(s, q);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_finish(ttft_tpot_serve *s, const char *id, int reason)
{
    int r, rc = reason >= 0 && reason < TTFT_TPOT_FINISH_COUNT ? ttft_tpot__request_by_id(s, id, &r)
                                                                : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK || r < 0)
        return rc;
    if (s->req.list[r].finished) {
        s->rejected += s->layer.refusal;
        return TTFT_TPOT_EREQUEST;
    }
    s->req.list[r].finished = 1;
    s->req.list[r].reason = (uint8_t)reason; /* checked: below TTFT_TPOT_FINISH_COUNT */
    s->req.done++;
    ttft_tpot__kv_computed(s, &s->req.list[r]);
    if (!s->no_live)
        ttft_tpot__fold(s, &s->finished, (unsigned)r); /* counted once, live, whatever becomes of its slot */
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_prompt(ttft_tpot_serve *s, const char *id, uint64_t prompt_tokens)
{
    int r = -1, rc = prompt_tokens && prompt_tokens <= UINT32_MAX ? ttft_tpot__request_by_id(s, id, &r)
                                                                   : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK || r < 0)
        return rc;
    if (s->req.list[r].prompt_tokens) {
        s->rejected += s->layer.refusal;
        return TTFT_TPOT_EREQUEST;
    }
    s->req.list[r].prompt_tokens = (uint32_t)prompt_tokens; /* checked: at most 2^32 - 1 */
    if (s->req.list[r].finished && ttft_tpot__measured(&s->req.list[r])) { /* folded without them */
        s->finished.prompt_tokens += prompt_tokens;
        ttft_tpot__hist_put(&s->finished.tok[TTFT_TPOT_TOKENS_PROMPT], 0, prompt_tokens);
    } else if (s->req.list[r].finished && !s->req.list[r].warmup && s->req.list[r].tokens) {
        s->finished.other_prompt += prompt_tokens;
    }
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF uint64_t ttft_tpot_request_point(const ttft_tpot_request *q, int point)
{
    return q && point >= 0 && point < TTFT_TPOT_POINT_COUNT && ttft_tpot__has_point(q, point)
               ? ttft_tpot__point_ns(q, point)
               : 0;
}

TTFT_TPOT_DEF int ttft_tpot_request_get(const ttft_tpot_serve *s, const char *id, ttft_tpot_request *out)
{
    size_t len;
    int r;
    if (!s || !id || !out)
        return TTFT_TPOT_EINVAL;
    len = strlen(id);
    r = s->req.max && s->layer.c && len && len < TTFT_TPOT_NAME_MAX ? ttft_tpot__request_find(s, id, len) : -1;
    if (r < 0)
        return TTFT_TPOT_EREQUEST;
    *out = s->req.list[r];
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_at(const ttft_tpot_serve *s, unsigned i, ttft_tpot_request *out, unsigned *n)
{
    if (n)
        *n = s ? s->req.n : 0;
    if (!s || !out || i >= s->req.n)
        return TTFT_TPOT_EINVAL;
    *out = s->req.list[i];
    return TTFT_TPOT_OK;
}

/* Whether v is finite, from its bits (the collector's rule: no compiler option folds it away). */
static int ttft_tpot__slo_finite(double v)
{
    volatile double opaque = v;
    double w = opaque;
    uint64_t bits;
    memcpy(&bits, &w, sizeof bits);
    return (bits >> 52 & 0x7FFu) != 0x7FFu;
}

TTFT_TPOT_DEF int ttft_tpot_serve_slo(ttft_tpot_serve *s, ttft_tpot_slo slo)
{
    if (!s)
        return TTFT_TPOT_EINVAL;
    if (!ttft_tpot__slo_finite(slo.ttft_ms) || !ttft_tpot__slo_finite(slo.tpot_ms) ||
        !ttft_tpot__slo_finite(slo.e2e_ms) || slo.ttft_ms < 0 || slo.tpot_ms < 0 || slo.e2e_ms < 0)
        return TTFT_TPOT_ERANGE;
    s->slo = slo;
    return TTFT_TPOT_OK;
}

/* The TTFT_TPOT_TOLD table, expanded once. */
typedef struct ttft_tpot__told_info {
    const char *key, *family, *label;
    int kind;
    const char *help;
} ttft_tpot__told_info;
#define TTFT_TPOT__TOLD_INFO(name, key, family, label, kind, help)                                   \
    {key, family, label, TTFT_TPOT_TOLD_##kind, help},
static const ttft_tpot__told_info ttft_tpot__told[TTFT_TPOT_TOLD_COUNT] = {TTFT_TPOT_TOLD(TTFT_TPOT__TOLD_INFO)};
#undef TTFT_TPOT__TOLD_INFO

/* value as what's told kept (*v): a whole number (a FRACTION in 1e-9), or ERANGE. */
static int ttft_tpot__told_value(int what, double value, uint64_t *v)
{
    int fraction = ttft_tpot__told[what].kind == TTFT_TPOT_TOLD_FRACTION;
    double x = fraction ? value * 1e9 + 0.5 : value;
    if (!ttft_tpot__slo_finite(value) || !(value >= 0) || (fraction && !(value <= 1)) || !(x < 18446744073709551616.0))
        return TTFT_TPOT_ERANGE;
    *v = (uint64_t)x;
    return fraction || (double)*v == value ? TTFT_TPOT_OK : TTFT_TPOT_ERANGE;
}

/* The scale of a told histogram of kind kind (TTFT_TPOT_TOLD_*): ttft_tpot__scale_bound's. */
static int ttft_tpot__told_scale(int kind)
{
    return kind == TTFT_TPOT_TOLD_ITERATION ? 1 : kind == TTFT_TPOT_TOLD_FEW ? 2 : 0;
}

/* Whether told kind k adds up (a counter; a histogram's count and sum) rather than being set. */
static int ttft_tpot__told_adds(int k)
{
    return ttft_tpot__told[k].kind == TTFT_TPOT_TOLD_COUNTER || ttft_tpot__told[k].kind >= TTFT_TPOT_TOLD_TOKENS;
}

/* t takes v for what: a counter adds it, a histogram counts it, the others are set; ERANGE where a
   total would pass 2^64 - 1. */
static int ttft_tpot__told_take(ttft_tpot__told_set *t, int what, uint64_t v)
{
    int kind = ttft_tpot__told[what].kind;
    if (kind >= TTFT_TPOT_TOLD_TOKENS ? t->hist[what].count == UINT64_MAX || v > UINT64_MAX - t->hist[what].sum
                                      : kind == TTFT_TPOT_TOLD_COUNTER && v > UINT64_MAX - t->v[what])
        return TTFT_TPOT_ERANGE;
    if (kind >= TTFT_TPOT_TOLD_TOKENS)
        ttft_tpot__hist_put(&t->hist[what], ttft_tpot__told_scale(kind), v);
    else
        t->v[what] = kind == TTFT_TPOT_TOLD_COUNTER ? t->v[what] + v : v;
    t->any |= 1u << what;
    return TTFT_TPOT_OK;
}

/* Whether src joins dst (ttft_tpot__told_join) with no total past 2^64 - 1. */
static int ttft_tpot__told_fits(const ttft_tpot__told_set *dst, const ttft_tpot__told_set *src)
{
    int k;
    for (k = 0; k < TTFT_TPOT_TOLD_COUNT; k++)
        if (ttft_tpot__told_adds(k) && (src->v[k] > UINT64_MAX - dst->v[k] ||
                                        src->hist[k].count > UINT64_MAX - dst->hist[k].count ||
                                        src->hist[k].sum > UINT64_MAX - dst->hist[k].sum))
            return 0;
    return 1;
}

/* dst takes what src was told (it fits: checked): counters and histograms add, a gauge is src's. */
static void ttft_tpot__told_join(ttft_tpot__told_set *dst, const ttft_tpot__told_set *src)
{
    unsigned b;
    int k;
    for (k = 0; k < TTFT_TPOT_TOLD_COUNT; k++) {
        if (!(src->any >> k & 1u))
            continue;
        if (ttft_tpot__told[k].kind < TTFT_TPOT_TOLD_TOKENS) {
            (void)ttft_tpot__told_take(dst, k, src->v[k]);
            continue;
        }
        for (b = 0; b < TTFT_TPOT_TOKEN_BOUNDS; b++)
            dst->hist[k].bucket[b] += src->hist[k].bucket[b];
        dst->hist[k].count += src->hist[k].count;
        dst->hist[k].sum += src->hist[k].sum;
        dst->any |= 1u << k;
    }
}

TTFT_TPOT_DEF int ttft_tpot_serve_tell(ttft_tpot_serve *s, int what, double value)
{
    uint64_t v;
    int rc;
    if (!s || what < 0 || what >= TTFT_TPOT_TOLD_COUNT)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot__told_value(what, value, &v)) != TTFT_TPOT_OK)
        return rc;
    if (!s->layer.enabled)
        return TTFT_TPOT_OK;
    return ttft_tpot__told_take(&s->told, what, v);
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

/* The bucket bounds, in seconds: vLLM's bounds of each set (TTFT, TPOT, E2E), so that dashboards made for
   vLLM read them, and among them the E12 series (1, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8,
   8.2 a decade) from 100 us to 680 s: between 100 us and 10 min no two neighbours are more than 25%
   apart (1.5 / 1.2), which bounds histogram_quantile's error (README: Fleets). Each is spelled as
   prometheus_client (vLLM's writer) spells it, "1.0" and not "1": Prometheus keeps le as a string,
   and a bound spelled two ways would be two series under sum by (le). */
static const char *const ttft_tpot__le_ttft[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.0022", "0.0027", "0.0033",
    "0.0039", "0.0047", "0.005", "0.0056", "0.0068", "0.0082", "0.01", "0.012", "0.015", "0.018", "0.02",
    "0.022", "0.027", "0.033", "0.039", "0.04", "0.047", "0.056", "0.06", "0.068", "0.08", "0.082", "0.1",
    "0.12", "0.15", "0.18", "0.22", "0.25", "0.27", "0.33", "0.39", "0.47", "0.5", "0.56", "0.68", "0.75",
    "0.82", "1.0", "1.2", "1.5", "1.8", "2.2", "2.5", "2.7", "3.3", "3.9", "4.7", "5.0", "5.6", "6.8", "7.5",
    "8.2", "10.0", "12.0", "15.0", "18.0", "20.0", "22.0", "27.0", "33.0", "39.0", "40.0", "47.0", "56.0", "68.0", "80.0", "82.0", "100.0",
    "120.0", "150.0", "160.0", "180.0", "220.0", "270.0", "330.0", "390.0", "470.0", "560.0", "640.0", "680.0", "2560.0"};
static const char *const ttft_tpot__le_tpot[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.0005", "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.002", "0.0022",
    "0.0027", "0.003", "0.0033", "0.0039", "0.004", "0.0047", "0.005", "0.0056", "0.0068", "0.0075", "0.0082",
    "0.01", "0.012", "0.015", "0.018", "0.022", "0.025", "0.027", "0.033", "0.039", "0.047", "0.05", "0.056",
    "0.068", "0.075", "0.082", "0.1", "0.12", "0.15", "0.18", "0.2", "0.22", "0.27", "0.3", "0.33", "0.39",
    "0.4", "0.47", "0.5", "0.56", "0.68", "0.75", "0.82", "1.0", "1.2", "1.5", "1.8", "2.2", "2.5", "2.7",
    "3.3", "3.9", "4.7", "5.0", "5.6", "6.8", "7.5", "8.2", "10.0", "12.0", "15.0", "18.0", "20.0", "22.0", "27.0", "33.0",
    "39.0", "40.0", "47.0", "56.0", "68.0", "80.0", "82.0", "100.0", "120.0", "150.0", "180.0", "220.0", "270.0", "330.0", "390.0", "470.0",
    "560.0", "680.0"};
static const char *const ttft_tpot__le_e2e[] = {
    "0.0001", "0.00012", "0.00015", "0.00018", "0.00022", "0.00027", "0.00033", "0.00039", "0.00047",
    "0.00056", "0.00068", "0.00082", "0.001", "0.0012", "0.0015", "0.0018", "0.0022", "0.0027", "0.0033",
    "0.0039", "0.0047", "0.0056", "0.0068", "0.0082", "0.01", "0.012", "0.015", "0.018", "0.022", "0.027",
    "0.033", "0.039", "0.047", "0.056", "0.068", "0.082", "0.1", "0.12", "0.15", "0.18", "0.22", "0.27",
    "0.3", "0.33", "0.39", "0.47", "0.5", "0.56", "0.68", "0.8", "0.82", "1.0", "1.2", "1.5", "1.8", "2.0", "2.2",
    "2.5", "2.7", "3.3", "3.9", "4.7", "5.0", "5.6", "6.8", "8.2", "10.0", "12.0", "15.0", "18.0", "20.0", "22.0", "27.0",
    "30.0", "33.0", "39.0", "40.0", "47.0", "50.0", "56.0", "60.0", "68.0", "82.0", "100.0", "120.0", "150.0", "180.0", "220.0", "240.0",
    "270.0", "330.0", "390.0", "470.0", "480.0", "560.0", "680.0", "960.0", "1920.0", "7680.0"};

/* vLLM's own bounds (vllm/v1/metrics/buckets.py, 0.33), each among the fine ones above
   (config.buckets TTFT_TPOT_BUCKETS_VLLM): TTFT 22, ITL and TPOT 19, the request latencies 21. */
static const char *const ttft_tpot__le_vllm_ttft[] = {
    "0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75",
    "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0"};
static const char *const ttft_tpot__le_vllm_tpot[] = {
    "0.01", "0.025", "0.05", "0.075", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5",
    "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0"};
static const char *const ttft_tpot__le_vllm_e2e[] = {
    "0.3", "0.5", "0.8", "1.0", "1.5", "2.0", "2.5", "5.0", "10.0", "15.0", "20.0",
    "30.0", "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0"};
/* The ITL and TPOT bounds 0.3 took for vLLM's, 7 more below 10 ms: a trace's "# buckets: vllm" (0.3
   wrote it) counts its folded buckets among them; a collector never exposes them. */
static const char *const ttft_tpot__le_vllm_0_3_tpot[] = {
    "0.0005", "0.001", "0.002", "0.003", "0.004", "0.005", "0.0075", "0.01", "0.025", "0.05", "0.075", "0.1", "0.15",
    "0.2", "0.3", "0.4", "0.5", "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0"};

/* The same bounds in ns (test_requests.c, bounds_as_written_are_their_ns, checks that the two agree). */
static const uint64_t ttft_tpot__ns_ttft[] = {
    100000u, 120000u, 150000u, 180000u, 220000u, 270000u, 330000u, 390000u, 470000u, 560000u, 680000u, 820000u,
    1000000u, 1200000u, 1500000u, 1800000u, 2200000u, 2700000u, 3300000u, 3900000u, 4700000u, 5000000u, 5600000u,
    6800000u, 8200000u, 10000000u, 12000000u, 15000000u, 18000000u, 20000000u, 22000000u, 27000000u, 33000000u,
    39000000u, 40000000u, 47000000u, 56000000u, 60000000u, 68000000u, 80000000u, 82000000u, 100000000u, 120000000u,
    150000000u, 180000000u, 220000000u, 250000000u, 270000000u, 330000000u, 390000000u, 470000000u, 500000000u,
    560000000u, 680000000u, 750000000u, 820000000u, 1000000000u, 1200000000u, 1500000000u, 1800000000u, 2200000000u,
    2500000000u, 2700000000u, 3300000000u, 3900000000u, 4700000000ull, 5000000000ull, 5600000000ull, 6800000000ull,
    7500000000ull, 8200000000ull, 10000000000ull, 12000000000ull, 15000000000ull, 18000000000ull, 20000000000ull,
    22000000000ull, 27000000000ull, 33000000000ull, 39000000000ull, 40000000000ull, 47000000000ull, 56000000000ull,
    68000000000ull, 80000000000ull, 82000000000ull, 100000000000ull, 120000000000ull, 150000000000ull,
    160000000000ull, 180000000000ull, 220000000000ull, 270000000000ull, 330000000000ull, 390000000000ull,
    470000000000ull, 560000000000ull, 640000000000ull, 680000000000ull, 2560000000000ull
};
static const uint64_t ttft_tpot__ns_tpot[] = {
    100000u, 120000u, 150000u, 180000u, 220000u, 270000u, 330000u, 390000u, 470000u, 500000u, 560000u, 680000u,
    820000u, 1000000u, 1200000u, 1500000u, 1800000u, 2000000u, 2200000u, 2700000u, 3000000u, 3300000u, 3900000u,
    4000000u, 4700000u, 5000000u, 5600000u, 6800000u, 7500000u, 8200000u, 10000000u, 12000000u, 15000000u,
    18000000u, 22000000u, 25000000u, 27000000u, 33000000u, 39000000u, 47000000u, 50000000u, 56000000u, 68000000u,
    75000000u, 82000000u, 100000000u, 120000000u, 150000000u, 180000000u, 200000000u, 220000000u, 270000000u,
    300000000u, 330000000u, 390000000u, 400000000u, 470000000u, 500000000u, 560000000u, 680000000u, 750000000u,
    820000000u, 1000000000u, 1200000000u, 1500000000u, 1800000000u, 2200000000u, 2500000000u, 2700000000u,
    3300000000u, 3900000000u, 4700000000ull, 5000000000ull, 5600000000ull, 6800000000ull, 7500000000ull,
    8200000000ull, 10000000000ull, 12000000000ull, 15000000000ull, 18000000000ull, 20000000000ull, 22000000000ull,
    27000000000ull, 33000000000ull, 39000000000ull, 40000000000ull, 47000000000ull, 56000000000ull, 68000000000ull,
    80000000000ull, 82000000000ull, 100000000000ull, 120000000000ull, 150000000000ull, 180000000000ull,
    220000000000ull, 270000000000ull, 330000000000ull, 390000000000ull, 470000000000ull, 560000000000ull,
    680000000000ull
};
static const uint64_t ttft_tpot__ns_e2e[] = {
    100000u, 120000u, 150000u, 180000u, 220000u, 270000u, 330000u, 390000u, 470000u, 560000u, 680000u, 820000u,
    1000000u, 1200000u, 1500000u, 1800000u, 2200000u, 2700000u, 3300000u, 3900000u, 4700000u, 5600000u, 6800000u,
    8200000u, 10000000u, 12000000u, 15000000u, 18000000u, 22000000u, 27000000u, 33000000u, 39000000u, 47000000u,
    56000000u, 68000000u, 82000000u, 100000000u, 120000000u, 150000000u, 180000000u, 220000000u, 270000000u,
    300000000u, 330000000u, 390000000u, 470000000u, 500000000u, 560000000u, 680000000u, 800000000u, 820000000u,
    1000000000u, 1200000000u, 1500000000u, 1800000000u, 2000000000u, 2200000000u, 2500000000u, 2700000000u,
    3300000000u, 3900000000u, 4700000000ull, 5000000000ull, 5600000000ull, 6800000000ull, 8200000000ull,
    10000000000ull, 12000000000ull, 15000000000ull, 18000000000ull, 20000000000ull, 22000000000ull, 27000000000ull,
    30000000000ull, 33000000000ull, 39000000000ull, 40000000000ull, 47000000000ull, 50000000000ull, 56000000000ull,
    60000000000ull, 68000000000ull, 82000000000ull, 100000000000ull, 120000000000ull, 150000000000ull,
    180000000000ull, 220000000000ull, 240000000000ull, 270000000000ull, 330000000000ull, 390000000000ull,
    470000000000ull, 480000000000ull, 560000000000ull, 680000000000ull, 960000000000ull, 1920000000000ull,
    7680000000000ull
};
static const uint64_t ttft_tpot__ns_vllm_ttft[] = {
    1000000u, 5000000u, 10000000u, 20000000u, 40000000u, 60000000u, 80000000u, 100000000u, 250000000u, 500000000u,
    750000000u, 1000000000u, 2500000000u, 5000000000ull, 7500000000ull, 10000000000ull, 20000000000ull,
    40000000000ull, 80000000000ull, 160000000000ull, 640000000000ull, 2560000000000ull
};
static const uint64_t ttft_tpot__ns_vllm_tpot[] = {
    10000000u, 25000000u, 50000000u, 75000000u, 100000000u, 150000000u, 200000000u, 300000000u, 400000000u,
    500000000u, 750000000u, 1000000000u, 2500000000u, 5000000000ull, 7500000000ull, 10000000000ull, 20000000000ull,
    40000000000ull, 80000000000ull
};
static const uint64_t ttft_tpot__ns_vllm_0_3_tpot[] = {
    500000u, 1000000u, 2000000u, 3000000u, 4000000u, 5000000u, 7500000u, 10000000u, 25000000u, 50000000u, 75000000u,
    100000000u, 150000000u, 200000000u, 300000000u, 400000000u, 500000000u, 750000000u, 1000000000u, 2500000000u,
    5000000000ull, 7500000000ull, 10000000000ull, 20000000000ull, 40000000000ull, 80000000000ull
};
static const uint64_t ttft_tpot__ns_vllm_e2e[] = {
    300000000u, 500000000u, 800000000u, 1000000000u, 1500000000u, 2000000000u, 2500000000u, 5000000000ull,
    10000000000ull, 15000000000ull, 20000000000ull, 30000000000ull, 40000000000ull, 50000000000ull, 60000000000ull,
    120000000000ull, 240000000000ull, 480000000000ull, 960000000000ull, 1920000000000ull, 7680000000000ull
};

/* The bounds of each bucket set (TTFT_TPOT_BUCKETS_*, then TTFT_TPOT__LE_*): as printed, and in ns. */
#define TTFT_TPOT__LES(t) {ttft_tpot__le_##t, ttft_tpot__ns_##t, sizeof(ttft_tpot__ns_##t) / sizeof *ttft_tpot__ns_##t}
static const struct {
    const char *const *le;
    const uint64_t *ns;
    size_t n;
} ttft_tpot__les[3][3] = {{TTFT_TPOT__LES(ttft), TTFT_TPOT__LES(tpot), TTFT_TPOT__LES(e2e)},
                          {TTFT_TPOT__LES(vllm_ttft), TTFT_TPOT__LES(vllm_tpot), TTFT_TPOT__LES(vllm_e2e)},
                          {TTFT_TPOT__LES(vllm_ttft), TTFT_TPOT__LES(vllm_0_3_tpot), TTFT_TPOT__LES(vllm_e2e)}};
#undef TTFT_TPOT__LES

/* Whether request q has metric m: both points it spans, and the tokens its rule needs (PER_TOKEN: two
   tokens or more; GAPS: two token events or more). */
static int ttft_tpot__has_metric(const ttft_tpot_request *q, int m)
{
    const ttft_tpot__metric_info *i = &ttft_tpot__metrics[m];
    return ttft_tpot__has_point(q, i->from) && ttft_tpot__has_point(q, i->to) &&
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
static uint64_t ttft_tpot__tpot_scale(const ttft_tpot_serve *s)
{
    unsigned r;
    int m;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
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
static size_t ttft_tpot__event_set(const ttft_tpot_serve *s, int live, uint64_t *x, uint64_t *last)
{
    unsigned char *keep = (unsigned char *)(last + s->req.n); /* the request is counted */
    size_t n = 0, i;
    unsigned r;
    for (r = 0; r < s->req.n; r++) { /* the last token event's time */
        const ttft_tpot_request *q = &s->req.list[r];
        last[r] = UINT64_MAX;
        keep[r] = ttft_tpot__measured(q) && !(live && !q->finished);
    }
    for (i = 0; i < s->req.n_events; i++) {
        const ttft_tpot_request_event *ev = &s->req.events[i];
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
static size_t ttft_tpot__request_set(const ttft_tpot_serve *s, int m, int live, uint64_t scale, uint64_t *x,
                                     uint64_t *last)
{
    size_t n = 0;
    unsigned r;
    if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_GAPS)
        return ttft_tpot__event_set(s, live, x, last);
    for (r = 0; r < s->req.n; r++)
        n += ttft_tpot__request_value(&s->req.list[r], m, live, scale, &x[n]) ? 1u : 0u;
    return n;
}

/* The working memory of ttft_tpot__request_set, one block: *x then *last (a value and a byte a
   request). */
static int ttft_tpot__request_work(const ttft_tpot_serve *s, uint64_t **x, uint64_t **last)
{
    size_t nx = s->req.n_events > s->req.n ? s->req.n_events : s->req.n;
    *x = (uint64_t *)TTFT_TPOT_MALLOC((nx + s->req.n + 1) * sizeof **x + s->req.n, s->layer.alloc_user);
    *last = *x ? *x + nx : NULL;
    return *x ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
}

/* Whether a request with a token meets SLO k (0 TTFT, 1 TPOT, 2 E2E; inclusive): 1 or 0, -1 when that SLO
   is not set or the request has no such figure (TPOT of one token). Compared in integer ns, the SLO
   rounded to the ns once (ttft_tpot_ms_to_ns): ms * 1e6 in doubles may fall below the ns --slo named
   (4.1 ms). */
static int ttft_tpot__slo_met(const ttft_tpot_serve *s, const ttft_tpot_request *q, int k)
{
    const double ms[3] = {s->slo.ttft_ms, s->slo.tpot_ms, s->slo.e2e_ms};
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
static int ttft_tpot__good(const ttft_tpot_serve *s, const ttft_tpot_request *q)
{
    return ttft_tpot__slo_met(s, q, 0) != 0 && ttft_tpot__slo_met(s, q, 1) != 0 && ttft_tpot__slo_met(s, q, 2) != 0;
}

/* A request metric's buckets (its BUCKETS column), without a value yet. */
static void ttft_tpot__buckets_init(ttft_tpot_buckets *b, int m, int set)
{
    memset(b, 0, sizeof *b);
    b->set = set;
    b->n = ttft_tpot__les[set][ttft_tpot__metrics[m].le].n;
    b->le = ttft_tpot__les[set][ttft_tpot__metrics[m].le].le;
    memcpy(b->le_ns, ttft_tpot__les[set][ttft_tpot__metrics[m].le].ns, b->n * sizeof *b->le_ns);
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
static size_t ttft_tpot__bucket_of(const ttft_tpot_serve *s, int m, uint64_t x, uint64_t scale)
{
    const uint64_t *le = ttft_tpot__les[s->buckets][ttft_tpot__metrics[m].le].ns;
    size_t a = 0, z = ttft_tpot__les[s->buckets][ttft_tpot__metrics[m].le].n;
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
static void ttft_tpot__tally_put(const ttft_tpot_serve *s, ttft_tpot__tally *t, int m, uint64_t x, uint64_t scale)
{
    uint64_t lo = x, hi = 0;
    size_t b = ttft_tpot__bucket_of(s, m, x, scale);
    if (b < ttft_tpot__les[s->buckets][ttft_tpot__metrics[m].le].n)
        t->bucket[m][b]++;
    t->count[m]++;
    if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && scale == 1)
        hi = x >> 54, lo = x << 10; /* whole ns to 1/1024 ns, in 128 bits */
    t->sum_lo[m] += lo;
    t->sum_hi[m] += hi + (t->sum_lo[m] < lo);
}

/* Every gap between request r's token events (a GAPS metric m: ITL) into t: they lie between its
   first and its last token event in the log. */
static void ttft_tpot__fold_gaps(const ttft_tpot_serve *s, ttft_tpot__tally *t, unsigned r, int m)
{
    const ttft_tpot_request *q = &s->req.list[r];
    uint64_t last = UINT64_MAX;
    size_t i;
    for (i = q->ev_first; q->token_events > 1 && i <= q->ev_last; i++) {
        const ttft_tpot_request_event *ev = &s->req.events[i];
        if (ev->request != r || !ev->tokens)
            continue;
        if (last != UINT64_MAX)
            ttft_tpot__tally_put(s, t, m, ev->t_ns - last, 1);
        last = ev->t_ns;
    }
}

/* Bound b of a histogram's scale: 0, vLLM's 1-2-5 bounds of token counts, (1, 2, 5)[b % 3] * 10^(b / 3)
   to 5e9 (TTFT_TPOT_TOKEN_BOUNDS of them); 1, vLLM's bounds of tokens an engine step, 1, 8, 16, 32, ...
   16384 (13); 2, vLLM's bounds of a request's preemptions, 1, 2, 3, 4, 5, 10, 20 (7). 0 past the last. */
static uint64_t ttft_tpot__scale_bound(int scale, unsigned b)
{
    static const uint64_t mantissa[3] = {1, 2, 5}, few[7] = {1, 2, 3, 4, 5, 10, 20};
    uint64_t v = mantissa[b % 3];
    unsigned e;
    if (scale == 2)
        return b < 7 ? few[b] : 0u;
    if (scale)
        return b == 0 ? 1u : b <= 12 ? (uint64_t)8u << (b - 1) : 0u;
    for (e = 0; e < b / 3; e++)
        v *= 10u;
    return b < TTFT_TPOT_TOKEN_BOUNDS ? v : 0u;
}

/* The bucket of n among a scale's bounds: the first at or above it (their number past the last). */
static unsigned ttft_tpot__scale_bucket(int scale, uint64_t n)
{
    unsigned b = 0;
    while (ttft_tpot__scale_bound(scale, b) && n > ttft_tpot__scale_bound(scale, b))
        b++;
    return b;
}

/* One value n into h, among the bounds of scale. Nothing wraps: a count is below 2^64 values, a sum
   below the counters' that bound it (checked where they are told). */
static void ttft_tpot__hist_put(ttft_tpot_token_hist *h, int scale, uint64_t n)
{
    unsigned b = ttft_tpot__scale_bucket(scale, n);
    if (ttft_tpot__scale_bound(scale, b))
        h->bucket[b]++;
    h->count++;
    h->sum += n;
}

/* Request r into t, once (when it finishes, and when it is folded out of the table): each metric's
   value (a per-token one in 1/1024 ns while that fits 64 bits, as the reports keep it) and its
   tokens; one out of every figure is only counted. */
static void ttft_tpot__fold(const ttft_tpot_serve *s, ttft_tpot__tally *t, unsigned r)
{
    const ttft_tpot_request *q = &s->req.list[r];
    uint64_t v, sc;
    int m;
    if (!ttft_tpot__measured(q)) { /* classed as the report classes it (ttft_tpot__requests_of) */
        if (!q->warmup) /* its tokens were made all the same */
            t->other_tokens += q->tokens, t->other_prompt += q->tokens ? q->prompt_tokens : 0;
        if (!q->warmup && TTFT_TPOT_FINISH_FAILED(q->reason))
            t->reasons[q->reason]++;
        else
            *(!q->warmup && q->truncated ? &t->truncated : &t->unmeasured) += 1;
        return;
    }
    t->reasons[q->reason]++;
    t->requests++, t->tokens += q->tokens, t->prompt_tokens += q->prompt_tokens;
    ttft_tpot__hist_put(&t->tok[TTFT_TPOT_TOKENS_GENERATION], 0, q->tokens);
    if (q->prompt_tokens)
        ttft_tpot__hist_put(&t->tok[TTFT_TPOT_TOKENS_PROMPT], 0, q->prompt_tokens);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_GAPS) {
            ttft_tpot__fold_gaps(s, t, r, m);
            continue;
        }
        sc = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && ttft_tpot__has_metric(q, m) &&
                     ttft_tpot__span_ns(q, m) / (q->tokens - 1) < UINT64_MAX / 1024
                 ? 1024
                 : 1;
        if (ttft_tpot__request_value(q, m, 0, sc, &v))
            ttft_tpot__tally_put(s, t, m, v, sc);
        else if (ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN && q->finished && q->tokens == 1)
            ttft_tpot__tally_put(s, t, m, 0, 1); /* a finished one-token request: 0, as vLLM observes it */
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
    dst->other_tokens += src->other_tokens, dst->other_prompt += src->other_prompt;
    dst->truncated += src->truncated, dst->unmeasured += src->unmeasured;
    for (m = 0; m < TTFT_TPOT_FINISH_COUNT; m++)
        dst->reasons[m] += src->reasons[m];
    for (m = 0; m < TTFT_TPOT_TOKENS_COUNT; m++) {
        for (k = 0; k < TTFT_TPOT_TOKEN_BOUNDS; k++)
            dst->tok[m].bucket[k] += src->tok[m].bucket[k];
        dst->tok[m].count += src->tok[m].count;
        dst->tok[m].sum += src->tok[m].sum;
    }
}

/* Add to made[0] and made[1] the tokens and prompt tokens made for the requests held (finished ones
   too where all), not of a warmup section: a request's tokens as they are given, its prompt tokens
   from its first token, as vLLM counts them (generation_tokens_total, prompt_tokens_total). */
static void ttft_tpot__made(const ttft_tpot_serve *s, int all, uint64_t made[2])
{
    unsigned r;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
        if (q->warmup || (q->finished && !all))
            continue;
        made[0] += q->tokens;
        made[1] += q->tokens ? q->prompt_tokens : 0;
    }
}

/* Metric m of t as a histogram of the exposition: cumulative, its sum back in ns, rounded once. */
static void ttft_tpot__tally_buckets(const ttft_tpot_serve *s, const ttft_tpot__tally *t, int m, ttft_tpot_buckets *b)
{
    ttft_tpot__buckets_init(b, m, s->buckets);
    memcpy(b->cumulative, t->bucket[m], sizeof b->cumulative);
    ttft_tpot__buckets_close(b, t->count[m], ttft_tpot__scale_of(m, 1024), t->sum_lo[m], t->sum_hi[m]);
}

/* The finished requests folding keeps: the last config.request_window of them (0: half the table),
   and at most half of them. */
static unsigned ttft_tpot__fold_keep(const ttft_tpot_serve *s)
{
    unsigned window = s->request_window ? s->request_window : s->req.max / 2;
    return s->req.done / 2 < window ? s->req.done / 2 : window;
}

/* Room in a full request table or event log, for a server that runs for weeks: the finished
   requests, oldest first, all but those ttft_tpot__fold_keep keeps, are folded into s->folded, their
   slots and events reused; the rest keep their order. The index holds the new numbers until it is
   rebuilt. Returns how many were folded away. */
static unsigned ttft_tpot__fold_away(ttft_tpot_serve *s)
{
    uint32_t *to = s->req.index; /* a request's new number + 1; 0: folded away */
    unsigned r, done = s->req.done, keep = ttft_tpot__fold_keep(s), gone = 0, kept = 0;
    size_t i, e = 0;
    if (done == keep) /* O(1) when nothing can go: a full table refuses fast */
        return 0;
    for (r = 0; r < s->req.n; r++)
        if (s->req.list[r].finished && gone < done - keep)
            ttft_tpot__fold(s, &s->folded, r), to[r] = 0, gone++;
        else
            to[r] = ++kept;
    for (r = 0; r < s->req.n; r++)
        s->req.list[r].ev_first = UINT32_MAX;
    for (i = 0; i < s->req.n_events; i++) {
        ttft_tpot_request_event ev = s->req.events[i];
        ttft_tpot_request *q = &s->req.list[ev.request];
        if (!to[ev.request])
            continue;
        if (ev.tokens) {
            q->ev_last = (uint32_t)e;
            q->ev_first = q->ev_first == UINT32_MAX ? q->ev_last : q->ev_first;
        }
        ev.request = to[ev.request] - 1;
        s->req.events[e++] = ev;
    }
    for (r = 0; r < s->req.n; r++) /* to[r] - 1 <= r: each moves down, in order */
        if (to[r])
            s->req.list[to[r] - 1] = s->req.list[r];
    s->req.n = kept, s->req.n_events = e, s->req.done = keep;
    ttft_tpot__request_reindex(s);
    return gone;
}

/* The room ttft_tpot__fold_away would make, without making it: the requests it would fold (*reqs)
   and their events (*events). One pass over the log. */
static void ttft_tpot__fold_room(const ttft_tpot_serve *s, unsigned *reqs, size_t *events)
{
    unsigned r, seen = 0, cut = 0;
    size_t i;
    *reqs = s->req.done - ttft_tpot__fold_keep(s), *events = 0;
    for (r = 0; r < s->req.n && seen < *reqs; r++) /* the last finished request it folds */
        if (s->req.list[r].finished)
            seen++, cut = r;
    for (i = 0; *reqs && i < s->req.n_events; i++)
        *events += s->req.events[i].request <= cut && s->req.list[s->req.events[i].request].finished;
}

/* The figures of the requests held into out (those folded away: ttft_tpot__folded_figures). */
static int ttft_tpot__requests_of(const ttft_tpot_serve *s, ttft_tpot_requests *out)
{
    uint64_t *x, *last, first_submit = UINT64_MAX, last_token = 0, scale;
    ttft_tpot_series series;
    unsigned r;
    int m, rc = TTFT_TPOT_OK;
    memset(out, 0, sizeof *out);
    out->seen = s->req.n;
    out->dropped = s->req.dropped;
    if (!s->req.n)
        return TTFT_TPOT_OK;
    if (ttft_tpot__request_work(s, &x, &last) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    for (r = 0; r < s->req.n; r++) { /* counts, window, goodput */
        const ttft_tpot_request *q = &s->req.list[r];
        int failed = !q->warmup && TTFT_TPOT_FINISH_FAILED(q->reason);
        if (!ttft_tpot__measured(q)) { /* warmup, then aborted or errored, truncated, no token */
            out->warmup_excluded += q->warmup != 0;
            out->finish_reasons[q->reason] += (uint64_t)failed;
            out->truncated += !q->warmup && !failed && q->truncated;
            out->incomplete += !q->warmup && !failed && !q->truncated;
            continue;
        }
        out->finish_reasons[q->reason]++;
        out->n++;
        out->unscheduled += !ttft_tpot__has_point(q, TTFT_TPOT_POINT_SCHEDULE);
        out->tokens += q->tokens;
        out->prompt_tokens += q->prompt_tokens;
        first_submit = q->submit_ns < first_submit ? q->submit_ns : first_submit;
        last_token = q->last_ns > last_token ? q->last_ns : last_token;
        out->good_n += (uint64_t)ttft_tpot__good(s, q);
    }
    scale = ttft_tpot__tpot_scale(s);
    memset(&series, 0, sizeof series);
    series.set = -1;
    series.scratch = x; /* each metric's values, reordered where they lie */
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT && rc == TTFT_TPOT_OK; m++) {
        series.scale = ttft_tpot__scale_of(m, scale);
        series.n = ttft_tpot__request_set(s, m, 0, series.scale, x, last);
        rc = ttft_tpot_series_stats(s->layer.c, &series, &out->metric[m], NULL);
    }
    if (out->n && last_token > first_submit) {
        out->has_window = 1;
        out->window_ns = (double)(last_token - first_submit);
        out->request_rps = (double)out->n / (out->window_ns * 1e-9);
        out->output_tok_s = (double)out->tokens / (out->window_ns * 1e-9);
    }
    if (out->n && (s->slo.ttft_ms > 0 || s->slo.tpot_ms > 0 || s->slo.e2e_ms > 0)) {
        out->has_goodput = 1;
        out->good_fraction = (double)out->good_n / (double)out->n;
        if (out->has_window)
            out->good_rps = (double)out->good_n / (out->window_ns * 1e-9);
    }
    TTFT_TPOT_FREE(x, s->layer.alloc_user);
    return rc;
}

/* Forget every request, its events and what the table lost. */
static void ttft_tpot__requests_clear(ttft_tpot_serve *s)
{
    s->req.dropped = s->req.refused = s->req.events_lost = 0;
    ttft_tpot__requests_rollback(s, 0, 0);
}

/* Append src's requests and their events to dst, with what src's table lost. The caller has checked
   that the ids are new and that everything fits. */
static void ttft_tpot__requests_merge(ttft_tpot_serve *dst, const ttft_tpot_serve *src)
{
    size_t i, at = dst->req.n_events;
    unsigned p;
    for (i = 0; i < src->req.n_events; i++) {
        ttft_tpot_request_event ev = src->req.events[i];
        ev.request += dst->req.n;
        dst->req.events[dst->req.n_events++] = ev;
    }
    for (p = 0; p < src->req.n; p++) {
        ttft_tpot_request *q = &dst->req.list[dst->req.n];
        *q = src->req.list[p];
        q->ev_first += q->ev_first == UINT32_MAX ? 0 : (uint32_t)at; /* its events moved with it */
        q->ev_last += q->ev_last == UINT32_MAX ? 0 : (uint32_t)at;
        dst->req.done += q->finished != 0;
        ttft_tpot__request_index_add(dst, dst->req.n++);
        if (src->no_live && !dst->no_live && q->finished) /* src counted none live: dst counts it now */
            ttft_tpot__fold(dst, &dst->finished, dst->req.n - 1);
    }
    ttft_tpot__tally_add(&dst->finished, src->no_live ? &src->folded : &src->finished);
    ttft_tpot__tally_add(&dst->folded, &src->folded);
    dst->tokens_unknown |= src->tokens_unknown;
    dst->refused_cleared += src->refused_cleared;
    dst->dropped_cleared += src->dropped_cleared;
    dst->made_cleared[0] += src->made_cleared[0], dst->made_cleared[1] += src->made_cleared[1];
    dst->req.dropped += src->req.dropped;
    dst->req.refused += src->req.refused;
    dst->req.events_lost += src->req.events_lost;
}

/* Whether a request is in the requests' TTFT series: it has a token, and kept all its events. */
static int ttft_tpot__in_ttft_series(const ttft_tpot_request *q)
{
    return !q->truncated && q->token_events && !TTFT_TPOT_FINISH_FAILED(q->reason);
}

/* The requests' TTFT series, in submit order (every request with a token that kept all its events,
   warmup ones included), measured like a decode phase (ttft_tpot_series_stats: MSER-5's cut and the p50
   after it, White's cut checked, its spikes). OK, ENOMEM. */
static int ttft_tpot__requests_steady_state(const ttft_tpot_serve *s, ttft_tpot_steady_state *ss)
{
    uint64_t *x = (uint64_t *)TTFT_TPOT_MALLOC((size_t)s->req.n * sizeof *x + s->req.n + 1, s->layer.alloc_user);
    unsigned char *warm;
    ttft_tpot_series series;
    unsigned r;
    int rc;
    if (!x)
        return TTFT_TPOT_ENOMEM;
    warm = (unsigned char *)(x + s->req.n);
    memset(&series, 0, sizeof series);
    series.set = -1;
    series.values = x;
    series.flags = warm;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
        if (!ttft_tpot__in_ttft_series(q))
            continue;
        warm[series.n] = q->warmup != 0;
        x[series.n++] = q->first_ns - q->submit_ns;
    }
    rc = ttft_tpot_series_stats(s->layer.c, &series, NULL, ss);
    TTFT_TPOT_FREE(x, s->layer.alloc_user);
    return rc;
}

/* The slices' tokens, requests in flight (a difference array: +1 at the first slice, -1 past the
   last) and submissions; w: their width, x: scratch of a value a measured request. */
static void ttft_tpot__slices_fill(const ttft_tpot_serve *s, ttft_tpot_serve_model *m, uint64_t t0, int64_t *diff)
{
    uint64_t w = m->slice_ns;
    size_t i, k;
    unsigned r;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
        if (!ttft_tpot__measured(q))
            continue;
        diff[(q->submit_ns - t0) / w]++;
        diff[(q->last_ns - t0) / w + 1]--;
        m->slices[(q->submit_ns - t0) / w].submitted++;
    }
    for (i = 0; i < s->req.n_events; i++) {
        const ttft_tpot_request_event *ev = &s->req.events[i];
        if (ev->tokens && ttft_tpot__measured(&s->req.list[ev->request]))
            m->slices[(ev->t_ns - t0) / w].tokens += ev->tokens;
    }
    for (k = 0; k < m->n_slices; k++) {
        ttft_tpot_slice *sl = &m->slices[k];
        sl->start_ns = k * w;
        sl->in_flight = (uint64_t)(diff[k] + (k ? (int64_t)m->slices[k - 1].in_flight : 0));
        sl->output_tok_s = (double)sl->tokens / ((double)w * 1e-9);
        if (!m->requests.has_max_tok_s || sl->output_tok_s > m->requests.max_output_tok_s)
            m->requests.max_output_tok_s = sl->output_tok_s;
        m->requests.has_max_tok_s = 1;
    }
}

/* Each slice's TTFT p50: the measured requests' TTFTs grouped by their submit's slice (x: room for
   one a request, tmp: as much again), each group sorted. */
static void ttft_tpot__slices_ttft(const ttft_tpot_serve *s, ttft_tpot_serve_model *m, uint64_t t0, uint64_t *x, uint64_t *tmp)
{
    size_t k, at = 0, *start = (size_t *)(void *)tmp; /* tmp holds the offsets first, then sorts */
    unsigned r;
    for (k = 0; k < m->n_slices; k++)
        at += m->slices[k].submitted, start[k] = at;
    for (r = s->req.n; r-- > 0;) {
        const ttft_tpot_request *q = &s->req.list[r];
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
static uint64_t ttft_tpot__max_concurrent(const ttft_tpot_serve *s, ttft_tpot_serve_model *m, uint64_t t0, uint64_t *ev,
                                          uint64_t *tmp)
{
    uint64_t now = 0, most = 0, *end;
    size_t n = 0, i = 0, j = 0, at = 0;
    unsigned r;
    for (r = 0; r < s->req.n; r++)
        n += ttft_tpot__measured(&s->req.list[r]) ? 1u : 0u;
    end = ev + n;
    for (r = 0, n = 0; r < s->req.n; r++)
        if (ttft_tpot__measured(&s->req.list[r])) {
            ev[n] = s->req.list[r].submit_ns - t0;
            end[n++] = s->req.list[r].last_ns - t0;
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
static int ttft_tpot__slices_of(const ttft_tpot_serve *s, ttft_tpot_serve_model *m)
{
    uint64_t t0 = UINT64_MAX, t1 = 0, *x;
    int64_t *diff;
    size_t n = 0, cells;
    unsigned r;
    for (r = 0; r < s->req.n; r++)
        if (ttft_tpot__measured(&s->req.list[r])) {
            n++;
            t0 = s->req.list[r].submit_ns < t0 ? s->req.list[r].submit_ns : t0;
            t1 = s->req.list[r].last_ns > t1 ? s->req.list[r].last_ns : t1;
        }
    m->slice_ns = s->slice_ns ? s->slice_ns : 1000000000u;
    m->slices_asked = s->slice_ns != 0;
    if (!n)
        return TTFT_TPOT_OK;
    while ((t1 - t0) / m->slice_ns >= (1u << 20)) /* a width that would pass 2^20 slices is doubled */
        m->slice_ns *= 2;
    m->n_slices = (size_t)((t1 - t0) / m->slice_ns) + 1;
    cells = 4 * n > m->n_slices + 1 ? 4 * n : m->n_slices + 1;
    m->slices = (ttft_tpot_slice *)TTFT_TPOT_MALLOC(m->n_slices * sizeof *m->slices, s->layer.alloc_user);
    x = (uint64_t *)TTFT_TPOT_MALLOC(2 * cells * sizeof *x, s->layer.alloc_user);
    if (!m->slices || !x) {
        if (x)
            TTFT_TPOT_FREE(x, s->layer.alloc_user);
        return TTFT_TPOT_ENOMEM; /* the model is freed: its slices with it */
    }
    memset(m->slices, 0, m->n_slices * sizeof *m->slices);
    diff = (int64_t *)(void *)x;
    memset(diff, 0, (m->n_slices + 1) * sizeof *diff);
    ttft_tpot__slices_fill(s, m, t0, diff);
    ttft_tpot__slices_ttft(s, m, t0, x, x + cells);
    m->requests.max_concurrent_requests = ttft_tpot__max_concurrent(s, m, t0, x, x + cells);
    TTFT_TPOT_FREE(x, s->layer.alloc_user);
    return TTFT_TPOT_OK;
}

/* The requests folded out of the table into q: counted (the figures are exact over the rest). */
static void ttft_tpot__folded_figures(const ttft_tpot_serve *s, ttft_tpot_requests *q)
{
    const ttft_tpot__tally *t = &s->folded;
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
static int ttft_tpot__report_buckets(const ttft_tpot_serve *s, ttft_tpot_serve_model *m)
{
    ttft_tpot__tally *t = (ttft_tpot__tally *)TTFT_TPOT_MALLOC(sizeof *t, s->layer.alloc_user);
    unsigned r;
    int k;
    if (!t)
        return TTFT_TPOT_ENOMEM;
    *t = s->folded;
    for (r = 0; r < s->req.n; r++)
        if (ttft_tpot__measured(&s->req.list[r]))
            ttft_tpot__fold(s, t, r);
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        ttft_tpot__tally_buckets(s, t, k, &m->buckets[k]);
    memcpy(m->tokens, t->tok, sizeof m->tokens);
    m->tokens_known = !(s->tokens_unknown & 1u);
    m->max_model_len = s->max_model_len;
    TTFT_TPOT_FREE(t, s->layer.alloc_user);
    return TTFT_TPOT_OK;
}

static int ttft_tpot__request_figures(const ttft_tpot_serve *s, ttft_tpot_serve_model *m, unsigned skipped)
{
    int rc = TTFT_TPOT_OK; /* without the histograms and without requests: nothing to fail */
    if (!(skipped & TTFT_TPOT_SKIP_EXPOSITION) && (rc = ttft_tpot__report_buckets(s, m)) != TTFT_TPOT_OK)
        return rc;
    if ((m->has_requests = s->req.n || s->req.dropped || ttft_tpot__tally_any(&s->folded)) != 0 &&
        (rc = ttft_tpot__requests_of(s, &m->requests)) == TTFT_TPOT_OK)
        rc = ttft_tpot__requests_steady_state(s, &m->requests_steady_state);
    if (rc == TTFT_TPOT_OK && m->has_requests)
        rc = ttft_tpot__slices_of(s, m);
    ttft_tpot__folded_figures(s, &m->requests);
    m->losses.requests_truncated = m->requests.truncated;
    return rc;
}

/* The serving figures of a model, with what the tables lost and the limits they met (the recording
   layer's, where the losses came from a trace). */
static int ttft_tpot__serve_figures_of(const ttft_tpot_serve *s, ttft_tpot_serve_model *f, unsigned skipped)
{
    int rc = ttft_tpot__request_figures(s, f, skipped);
    f->slo = s->slo;
    f->model_label = s->model_label;
    f->losses.requests_dropped = s->req.dropped;
    f->losses.requests_refused = s->req.refused;
    f->losses.events_lost = s->req.events_lost;
    f->losses.events_kept = s->req.n_events;
    f->losses.max_requests = s->full_known & 1u ? s->full_at[0] : s->req.max;
    f->losses.max_request_events = s->full_known & 2u ? s->full_at[1] : s->req.max_events;
    return rc;
}

/* ---- Writers: the serving section ------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* The plural ending of a count's noun: "1 request", "2 requests". */
static const char *ttft_tpot__plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

/* "p50 / p90 / p99 ms" of a set (one value at least), or its chosen percentiles, for the serving lines. */
static void ttft_tpot__serving_line(ttft_tpot_writer *out, const char *what, const ttft_tpot_stats *st, const char *span)
{
    unsigned k;
    if (!st->pick_n) {
        ttft_tpot_write(out, "  %-4s p50/p90/p99: %T / %T / %T", what, st->p50_ns, st->p90_ns, st->p99_ns);
    } else { /* the chosen percentiles (config.percentiles) */
        ttft_tpot_write(out, "  %-4s ", what);
        for (k = 0; k < st->pick_n; k++) /* "p50/p99.9" */
            ttft_tpot_write(out, k ? "/%P" : "%P", st->pick_pm[k]);
        ttft_tpot_write(out, ":");
        for (k = 0; k < st->pick_n; k++)
            ttft_tpot_write(out, "%s%T", k ? " / " : " ", (double)st->pick_ns[k]);
    }
    ttft_tpot_write(out, "  (mean %T, n=%llu%s%s)\n", st->mean_ns, (unsigned long long)st->n, span ? ": " : "",
                    span ? span : "");
}

/* What the request tables could not keep, and what that leaves out. */
static void ttft_tpot__text_request_losses(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_requests *q = &f->requests;
    const ttft_tpot_request_losses *l = &f->losses;
    if (q->dropped)
        ttft_tpot_write(out, "WARNING: %llu request%s dropped: the request tables are full (config.max_requests "
                             "%llu, max_request_events %llu; %llu submits refused)\n",
                        (unsigned long long)q->dropped, ttft_tpot__plural(q->dropped),
                        (unsigned long long)l->max_requests, (unsigned long long)l->max_request_events,
                        (unsigned long long)l->requests_refused);
    if (q->truncated)
        ttft_tpot_write(out, "WARNING: %llu request%s truncated: %llu events did not fit config.max_request_events %llu "
                             "(%llu would hold every event); left out of every request figure\n",
                        (unsigned long long)q->truncated, ttft_tpot__plural(q->truncated),
                        (unsigned long long)l->events_lost, (unsigned long long)l->max_request_events,
                        (unsigned long long)l->events_kept + (unsigned long long)l->events_lost);
    if (q->finish_reasons[TTFT_TPOT_FINISH_ABORT] || q->finish_reasons[TTFT_TPOT_FINISH_ERROR])
        ttft_tpot_write(out, "NOTE: %llu aborted and %llu errored requests: in no latency figure (as vLLM's histograms "
                             "leave them out); counted by their reason in request_success_total\n",
                        (unsigned long long)q->finish_reasons[TTFT_TPOT_FINISH_ABORT],
                        (unsigned long long)q->finish_reasons[TTFT_TPOT_FINISH_ERROR]);
    if (q->folded || q->folded_other)
        ttft_tpot_write(out, "NOTE: %llu finished requests were folded out of the request table to make room "
                             "(config.request_window), %llu of them measured (%llu tokens): the figures below are "
                             "exact over the %llu measured requests it still holds; the Prometheus histograms and "
                             "counters count all %llu measured (each quantile within the buckets' bound)\n",
                        (unsigned long long)q->folded + (unsigned long long)q->folded_other,
                        (unsigned long long)q->folded, (unsigned long long)q->folded_tokens, (unsigned long long)q->n,
                        (unsigned long long)q->n + (unsigned long long)q->folded);
}

/* The goodput line: the SLOs set, and how many requests met them. */
static void ttft_tpot__text_goodput(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_requests *q = &f->requests;
    const double slo[3] = {f->slo.ttft_ms, f->slo.tpot_ms, f->slo.e2e_ms};
    static const char *const what[3] = {"TTFT", "TPOT", "E2E"};
    int k, any = 0;
    ttft_tpot_write(out, "  Goodput (");
    for (k = 0; k < 3; k++)
        if (slo[k] > 0)
            ttft_tpot_write(out, "%s%s <= %g ms", any++ ? ", " : "", what[k], slo[k]);
    ttft_tpot_write(out, "): %llu of %llu good (%.1R%%)", (unsigned long long)q->good_n, (unsigned long long)q->n,
                    100.0 * q->good_fraction);
    if (q->has_window)
        ttft_tpot_write(out, ", %.2R good req/s", q->good_rps);
    ttft_tpot_write(out, "\n");
}

/* The request metrics' lines (TTFT_TPOT_METRICS): a part of a metric goes under it, indented, where
   requests have one (queue and prefill split TTFT where requests were scheduled), and after a group
   whose parts start at the schedule, how many measured requests have none, and which parts they miss. */
static void ttft_tpot__text_metrics(const ttft_tpot_requests *q, ttft_tpot_writer *out)
{
    char what[16], miss[64] = "";
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        const ttft_tpot__metric_info *i = &ttft_tpot__metrics[m];
        int part = i->under != TTFT_TPOT_METRIC_NONE, last = m + 1 == TTFT_TPOT_METRIC_COUNT;
        if (q->metric[m].n) { /* a row without data is left out */
            snprintf(what, sizeof what, part ? "  %-7s" : "%s", i->label);
            ttft_tpot__serving_line(out, what, &q->metric[m], *i->note ? i->note : NULL);
        }
        if ((i->from == TTFT_TPOT_POINT_SCHEDULE || i->to == TTFT_TPOT_POINT_SCHEDULE) && q->metric[m].n)
            snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s%s", *miss ? " and " : "", i->label);
        if (q->unscheduled && *miss && (last || ttft_tpot__metrics[m + 1].under == TTFT_TPOT_METRIC_NONE)) {
            ttft_tpot_write(out, "    (%llu measured requests have no schedule event: not in %s)\n",
                            (unsigned long long)q->unscheduled, miss);
            *miss = '\0';
        }
    }
}

/* The slices, a line each (asked for with config.slice_ns). */
static void ttft_tpot__text_slices(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    size_t k;
    ttft_tpot_write(out, "  Over time (%T slices from the first submit):\n       start       tok/s  in flight  "
                         "submitted  TTFT p50\n",
                    (double)f->slice_ns);
    for (k = 0; k < f->n_slices; k++) {
        const ttft_tpot_slice *s = &f->slices[k];
        ttft_tpot_write(out, "  %10T %11.1R %10llu %10llu  ", (double)s->start_ns, s->output_tok_s,
                        (unsigned long long)s->in_flight, (unsigned long long)s->submitted);
        ttft_tpot_write(out, s->has_ttft ? "%T\n" : "-\n", s->ttft_p50_ns);
    }
}

static void ttft_tpot__text_serving(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_requests *q = &f->requests;
    if (q->truncated)
        ttft_tpot_write(out, "\nServing: %llu request%s measured (%llu warmup, %llu incomplete and %llu truncated excluded)",
                        (unsigned long long)q->n, ttft_tpot__plural(q->n), (unsigned long long)q->warmup_excluded,
                        (unsigned long long)q->incomplete, (unsigned long long)q->truncated);
    else
        ttft_tpot_write(out, "\nServing: %llu request%s measured (%llu warmup and %llu incomplete excluded)",
                        (unsigned long long)q->n, ttft_tpot__plural(q->n), (unsigned long long)q->warmup_excluded,
                        (unsigned long long)q->incomplete);
    ttft_tpot_write(out, q->has_window ? ", window %T\n" : "\n", q->window_ns);
    ttft_tpot__text_request_losses(f, out);
    ttft_tpot__text_metrics(q, out);
    if (q->has_window)
        ttft_tpot_write(out, "  Throughput: %.2R req/s, %.1R output tok/s  (%llu tokens of measured requests / window)\n",
                        q->request_rps, q->output_tok_s, (unsigned long long)q->tokens);
    if (q->has_max_tok_s)
        ttft_tpot_write(out, "  Peak: %.1R output tok/s (the busiest %T slice), %llu concurrent request%s\n",
                        q->max_output_tok_s, (double)f->slice_ns, (unsigned long long)q->max_concurrent_requests,
                        ttft_tpot__plural(q->max_concurrent_requests));
    if (q->has_goodput)
        ttft_tpot__text_goodput(f, out);
    if (f->slices_asked)
        ttft_tpot__text_slices(f, out);
}

/* The requests' TTFT series when its measured warmup (MSER-5) runs past the warmup requests. */
static void ttft_tpot__text_request_cut(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_steady_state *ss = &f->requests_steady_state;
    uint64_t past = ss->truncation - ss->flagged;
    if (f->has_requests && ss->measured && ss->drift && f->requests.metric[TTFT_TPOT_METRIC_TTFT].n) {
        ttft_tpot_write(out, "requests: no steady state: MSER-5's best cut falls in the second half of their TTFTs "
                             "(White's rule): they keep rising or falling, as a queue that builds up does\n");
        return;
    }
    if (!f->has_requests || !ss->measured || ss->truncation <= ss->flagged || !ss->has_p50 ||
        !f->requests.metric[TTFT_TPOT_METRIC_TTFT].n)
        return;
    ttft_tpot_write(out, "requests: MSER-5 puts the end of warmup at request %llu, %llu request%s after the %llu "
                         "flagged; TTFT p50 %T with them, %T without\n",
                    (unsigned long long)ss->truncation, (unsigned long long)past, ttft_tpot__plural(past),
                    (unsigned long long)ss->flagged, f->requests.metric[TTFT_TPOT_METRIC_TTFT].p50_ns, ss->p50_ns);
}

/* The text report's serving section (the layer's text hook): where it leads, the figures and the
   TTFT series' warmup; where it does not, the figures of requests that were seen, then that. */
static void ttft_tpot__serve_text(const ttft_tpot_model *m, ttft_tpot_writer *out, int section)
{
    const ttft_tpot_serve_model *f = (const ttft_tpot_serve_model *)m->layer;
    if (f->has_requests)
        ttft_tpot__text_serving(f, out);
    (void)section; /* the collector chose where (TTFT_TPOT_LAYER_LEADS) */
    ttft_tpot__text_request_cut(f, out);
    if (f->has_requests && f->requests.metric[TTFT_TPOT_METRIC_TTFT].n)
        ttft_tpot_write(out, "%K", "requests", "request", &f->requests_steady_state);
}

/* ---- Writers: the JSON report's "requests" --------------------------------------------------- */

/* The peaks under vLLM's names, and the slices: ,"max_output_tokens_per_s":..,"max_concurrent_requests":..,
   "slice_ms":..,"slices":[{"start_ms","tokens","output_tok_s","in_flight","peak_in_flight","submitted",
   "ttft_p50_ms"},..]: in_flight counts the requests in flight during some of the slice, peak_in_flight
   the most at once. */
static void ttft_tpot__json_slices(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_requests *q = &f->requests;
    size_t k;
    ttft_tpot_write(out, ",\"max_output_tokens_per_s\":%N,\"max_concurrent_requests\":%llu,\"slice_ms\":%M,\"slices\":[",
                    q->has_max_tok_s, q->max_output_tok_s, (unsigned long long)q->max_concurrent_requests, f->slice_ns);
    for (k = 0; k < f->n_slices; k++) {
        const ttft_tpot_slice *s = &f->slices[k];
        ttft_tpot_write(out, "%s{\"start_ms\":%M,\"tokens\":%llu,\"output_tok_s\":%N,\"in_flight\":%llu,"
                             "\"peak_in_flight\":%llu,\"submitted\":%llu,\"ttft_p50_ms\":",
                        k ? "," : "", s->start_ns, (unsigned long long)s->tokens, 1, s->output_tok_s,
                        (unsigned long long)s->in_flight, (unsigned long long)s->peak_in_flight,
                        (unsigned long long)s->submitted);
        ttft_tpot_write(out, s->has_ttft ? "%L}" : "null}", s->ttft_p50_ns);
    }
    ttft_tpot_write(out, "]");
}

/* "goodput": the good requests and the SLOs, or null. */
static void ttft_tpot__json_goodput(const ttft_tpot_serve_model *f, ttft_tpot_writer *out)
{
    const ttft_tpot_requests *q = &f->requests;
    if (!q->has_goodput) {
        ttft_tpot_write(out, ",\"goodput\":null");
        return;
    }
    ttft_tpot_write(out, ",\"goodput\":{\"n\":%llu,\"fraction\":%N,\"rps\":%N,\"slo\":{\"ttft_ms\":%N,\"tpot_ms\":%N,"
                         "\"e2e_ms\":%N}}",
                    (unsigned long long)q->good_n, 1, q->good_fraction, q->has_window, q->good_rps,
                    f->slo.ttft_ms > 0, f->slo.ttft_ms, f->slo.tpot_ms > 0, f->slo.tpot_ms, f->slo.e2e_ms > 0,
                    f->slo.e2e_ms);
}

/* "requests": the serving metrics, or null when no request was seen (the layer's JSON hook). */
static void ttft_tpot__serve_json(const ttft_tpot_model *md, ttft_tpot_writer *out)
{
    const ttft_tpot_serve_model *f = (const ttft_tpot_serve_model *)md->layer;
    const ttft_tpot_requests *q = &f->requests;
    int m;
    if (!f->has_requests) {
        ttft_tpot_write(out, "null");
        return;
    }
    ttft_tpot_write(out, "{\"n\":%llu,\"incomplete\":%llu,\"warmup_excluded\":%llu,\"dropped\":%llu,\"truncated\":%llu,"
                         "\"refused\":%llu",
                    (unsigned long long)q->n, (unsigned long long)q->incomplete, (unsigned long long)q->warmup_excluded,
                    (unsigned long long)q->dropped, (unsigned long long)q->truncated,
                    (unsigned long long)f->losses.requests_refused);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        ttft_tpot_write(out, ",\"%s\":%S", ttft_tpot__metrics[m].json, &q->metric[m]);
    ttft_tpot_write(out, ",\"unscheduled\":%llu,\"prompt_tokens\":%llu,\"folded\":{\"requests\":%llu,\"tokens\":%llu,"
                         "\"prompt_tokens\":%llu,\"other\":%llu}",
                    (unsigned long long)q->unscheduled, (unsigned long long)q->prompt_tokens,
                    (unsigned long long)q->folded, (unsigned long long)q->folded_tokens,
                    (unsigned long long)q->folded_prompt_tokens, (unsigned long long)q->folded_other);
    for (m = 0; m < TTFT_TPOT_FINISH_COUNT; m++)
        ttft_tpot_write(out, ",%s\"%s\":%llu", m ? "" : "\"finish_reasons\":{", m ? ttft_tpot_finish_reason_name(m) : "none",
                        (unsigned long long)q->finish_reasons[m]);
    ttft_tpot_write(out, q->has_window ? "},\"window_ms\":%L" : "},\"window_ms\":null", q->window_ns);
    ttft_tpot_write(out, ",\"request_throughput_rps\":%N,\"output_throughput_tok_s\":%N", q->has_window, q->request_rps,
                    q->has_window, q->output_tok_s);
    ttft_tpot__json_slices(f, out);
    ttft_tpot__json_goodput(f, out);
    ttft_tpot_write(out, ",\"steady_state\":%W}", &f->requests_steady_state); /* of the TTFT series */
}

#endif /* TTFT_TPOT_NO_STDIO */


/* The bytes of the UTF-8 character at s (n bytes left), or 0 where it is not one (overlong, a
   surrogate, past U+10FFFF, cut short). */
static size_t ttft_tpot__utf8_at(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
               : s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : 0, k;
    if (len == 0 || len > n)
        return 0;
    for (k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return len;
}

/* ---- Prometheus ------------------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* A value in ns as seconds to the ns: "1.250000000". */
#define TTFT_TPOT__SECONDS(ns) (unsigned long long)((ns) / 1000000000u), (unsigned long long)((ns) % 1000000000u)

/* The exposition's names: the prefix of vLLM's families (pre) and of the project's own (own: never
   "vllm:"), and the labels as a label set of their own ("{a=\"b\"}", or "": lb) and as the head of a
   bucket's ("a=\"b\",", or "": blb). */
typedef struct ttft_tpot__prom_names {
    char pre[256], own[256], lb[512], blb[512];
} ttft_tpot__prom_names;

/* Whether request metric k is one of vLLM's families (TTST and TTFO are the project's own). */
static int ttft_tpot__prom_vllm(int k)
{
    return k != TTFT_TPOT_METRIC_TTST && k != TTFT_TPOT_METRIC_TTFO;
}

/* Histogram k. A 128-bit sum is exact while it fits 64 bits. */
static void ttft_tpot__prom_hist(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm, const ttft_tpot_buckets *b, int k)
{
    const char *prefix = ttft_tpot__prom_vllm(k) ? nm->pre : nm->own, *labels = nm->lb, *bucket_labels = nm->blb;
    const char *name = ttft_tpot__metrics[k].prom;
    size_t i;
    ttft_tpot_write(w, "# HELP %s%s %s %s\n# TYPE %s%s histogram\n", prefix, name, ttft_tpot__metrics[k].help,
                    b->set == TTFT_TPOT_BUCKETS_VLLM
                        ? "Buckets: vLLM's bounds."
                        : "Buckets at most 25% apart from 100us to 10min: histogram_quantile is within 25% of "
                          "the value at its rank.",
                    prefix, name);
    for (i = 0; i <= b->n; i++)
        ttft_tpot_write(w, "%s%s_bucket{%sle=\"%s\"} %llu\n", prefix, name, bucket_labels,
                        i < b->n ? b->le[i] : "+Inf", (unsigned long long)(i < b->n ? b->cumulative[i] : b->count));
    ttft_tpot_write(w, "%s%s_sum%s ", prefix, name, labels);
    if (b->sum_hi == 0)
        ttft_tpot_write(w, "%llu.%09llu", TTFT_TPOT__SECONDS(b->sum_lo));
    else
        ttft_tpot_write(w, "%.9f", ((double)b->sum_hi * TTFT_TPOT__TWO64_SERVE + (double)b->sum_lo) * 1e-9);
    ttft_tpot_write(w, "\n%s%s_count%s %llu\n", prefix, name, labels, (unsigned long long)b->count);
}

/* The device figures, when the collector has device data: the device counterparts of TTFT and TPOT
   as summaries (p50, p90, p99, in seconds to the ns), the busy ratio, and what was lost. */
static void ttft_tpot__prom_device(const ttft_tpot_model *m, ttft_tpot_writer *w, const ttft_tpot__prom_names *nm)
{
    const char *prefix = nm->own, *labels = nm->lb, *head = nm->blb;
    static const char *const q[3] = {"0.5", "0.9", "0.99"};
    static const unsigned at[3] = {0, 1, 3}; /* pct_ns: p50, p90, p95, p99 */
    const ttft_tpot_device_figures *f = &m->device;
    int k, i;
    if (!f->intervals && !f->open && !f->unresolved && !f->refused)
        return;
    for (k = 0; k < 2; k++) {
        const ttft_tpot_stats *st = k ? &f->tpot : &f->ttft_steady;
        const char *name = k ? "device_time_per_output_token_seconds" : "device_time_to_first_token_seconds";
        ttft_tpot_write(w, "# HELP %s%s Device time of the steady %s steps (their own interval, or their kernels').\n"
                           "# TYPE %s%s summary\n", prefix, name, k ? "decode" : "prefill", prefix, name);
        for (i = 0; st->n && i < 3; i++)
            ttft_tpot_write(w, "%s%s{%squantile=\"%s\"} %llu.%09llu\n", prefix, name, head, q[i],
                            TTFT_TPOT__SECONDS(st->pct_ns[at[i]]));
        ttft_tpot_write(w, "%s%s_sum%s %.9f\n%s%s_count%s %llu\n", prefix, name, labels, st->total_ns / 1e9, prefix,
                        name, labels, (unsigned long long)st->n);
    }
    if (f->has_busy)
        ttft_tpot_write(w, "# HELP %sdevice_busy_ratio Device time over wall time of the steady decode steps.\n"
                           "# TYPE %sdevice_busy_ratio gauge\n%sdevice_busy_ratio%s %.6f\n",
                        prefix, prefix, prefix, labels, f->busy_fraction);
    ttft_tpot_write(w, "# HELP %sdevice_intervals_unresolved_total Device spans that got no ticket: no device time.\n"
                       "# TYPE %sdevice_intervals_unresolved_total counter\n%sdevice_intervals_unresolved_total%s %llu\n"
                       "# HELP %sdevice_tickets_open Device tickets not yet resolved.\n"
                       "# TYPE %sdevice_tickets_open gauge\n%sdevice_tickets_open%s %llu\n",
                    prefix, prefix, prefix, labels, (unsigned long long)f->unresolved, prefix, prefix, prefix, labels,
                    (unsigned long long)f->open);
    ttft_tpot_write(w, "# HELP %sdevice_resolutions_refused_total Device resolutions refused.\n"
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


/* One label value at s (past its opening quote): its length to the closing quote, or 0 where it is
   not one (an escape other than \\, \" and \n, a raw newline, a brace, not UTF-8, unterminated). */
static size_t ttft_tpot__label_value(const char *s, size_t n)
{
    size_t i = 0, k;
    for (; i < n && s[i] != '"'; i += k) {
        if (s[i] == '\\')
            k = i + 1 < n && (s[i + 1] == '\\' || s[i + 1] == '"' || s[i + 1] == 'n') ? 2 : 0;
        else
            k = s[i] == '\n' || s[i] == '{' || s[i] == '}' ? 0 : ttft_tpot__utf8_at((const unsigned char *)s + i, n - i);
        if (k == 0)
            return 0;
    }
    return i < n ? i + 1 : 0;
}

/* labels as the inside of an exposition label set: name="value" pairs joined by ','; names
   [a-zA-Z_][a-zA-Z0-9_]*, each once, not "le" (the buckets' own) and not starting "__" (reserved);
   values as ttft_tpot__label_value takes them; at most 500 bytes. */
static int ttft_tpot__labels_ok(const char *s)
{
    const char *names[64];
    size_t lens[64], i = 0, len = strlen(s), k, v;
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
        if ((v = ttft_tpot__label_value(s + i + k + 2, len - i - k - 2)) == 0)
            return 0;
        i += k + 2 + v;
        if ((s[i] == ',' && s[i + 1] == '\0') || (s[i] != ',' && s[i] != '\0'))
            return 0;
        i += s[i] == ',';
    }
    return len <= 500 && s[i] == '\0';
}

/* The exposition's names: the prefix joined ('_' unless it ends in '_' or ':'; NULL: "vllm:" for
   vLLM's families and "ttft_tpot:" for the project's own), the layer's model_name label and labels.
   OK, or EINVAL (also for labels that name model_name when the layer has one). */
static int ttft_tpot__prom_names_of(const char *model_label, const char *prefix, const char *labels,
                                    ttft_tpot__prom_names *nm)
{
    char all[512];
    size_t len;
    int n, own = !prefix;
    if (own)
        prefix = "vllm:";
    len = strlen(prefix);
    n = snprintf(all, sizeof all, "%s%s%s", model_label, model_label[0] && labels && *labels ? "," : "",
                 labels ? labels : "");
    if (len >= 254 || !ttft_tpot__prom_name_ok(prefix) || n < 0 || (size_t)n >= sizeof all ||
        !ttft_tpot__labels_ok(all))
        return TTFT_TPOT_EINVAL;
    snprintf(nm->pre, sizeof nm->pre, len && prefix[len - 1] != '_' && prefix[len - 1] != ':' ? "%s_" : "%s", prefix);
    snprintf(nm->own, sizeof nm->own, "%s", own ? "ttft_tpot:" : nm->pre);
    snprintf(nm->lb, sizeof nm->lb, *all ? "{%s}" : "%s", all);
    snprintf(nm->blb, sizeof nm->blb, *all ? "%s," : "%s", all);
    return TTFT_TPOT_OK;
}

/* What the exposition counts beside its histograms. */
typedef struct ttft_tpot__prom_counts {
    uint64_t tokens;            /* generation_tokens_total */
    uint64_t prompt_tokens;     /* prompt_tokens_total */
    uint64_t refused, dropped;  /* requests_refused, requests_dropped (as in the reports) */
    uint64_t waiting, running;  /* the requests in flight now: num_requests_waiting, num_requests_running */
    const uint64_t *reasons;    /* by finish reason (TTFT_TPOT_FINISH_*): request_success_total's children */
    const ttft_tpot__told_set *told; /* what the driver told (TTFT_TPOT_TOLD) */
    const ttft_tpot_token_hist *tok; /* the token histograms (TTFT_TPOT_TOKENS_*), or NULL: unknown */
    uint64_t max_model_len;     /* their last bound (0: every bound) */
} ttft_tpot__prom_counts;

/* The requests in flight now: waiting (submitted, neither scheduled nor given a token) and running
   (scheduled or given a token, not finished), as vLLM's gauges count its queues. */
static void ttft_tpot__in_flight(const ttft_tpot_serve *s, ttft_tpot__prom_counts *k)
{
    unsigned r;
    k->waiting = k->running = 0;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
        if (q->finished)
            continue;
        if (q->scheduled || q->token_events)
            k->running++;
        else
            k->waiting++;
    }
}

/* One counter (its name ends "_total") or gauge, its name after pre, its series labelled lb. */
static void ttft_tpot__prom_one(ttft_tpot_writer *w, const char *pre, const char *lb, const char *name,
                                const char *help, uint64_t v)
{
    size_t len = strlen(name);
    const char *type = len > 6 && strcmp(name + len - 6, "_total") == 0 ? "counter" : "gauge";
    ttft_tpot_write(w, "# HELP %s%s %s\n# TYPE %s%s %s\n%s%s%s %llu\n", pre, name, help, pre, name, type, pre, name, lb,
                    (unsigned long long)v);
}

/* The finished requests by reason, as vLLM counts them: request_success_total by finished_reason
   ("": no reason given, which Prometheus stores as no label; stop, length, abort, error, repetition), every child
   written from the start, as vLLM does, so that increase() sees a reason's first request, and with one
   set of label names (a textfile collector refuses a family that mixes them). */
static void ttft_tpot__prom_reasons(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm, const uint64_t *k)
{
    const char *pre = nm->pre, *blb = nm->blb;
    int r;
    ttft_tpot_write(w, "# HELP %srequest_success_total Count of finished requests (not warmup), by "
                       "finished_reason, as vLLM counts them (\"\": none given, the same as no label to "
                       "Prometheus).\n"
                       "# TYPE %srequest_success_total counter\n", pre, pre);
    for (r = TTFT_TPOT_FINISH_NONE; r < TTFT_TPOT_FINISH_COUNT; r++)
        ttft_tpot_write(w, "%srequest_success_total{%sfinished_reason=\"%s\"} %llu\n", pre, blb,
                        ttft_tpot_finish_reason_name(r), (unsigned long long)k[r]);
}

/* A told value as prometheus_client writes a float: a FRACTION's 1e-9 as "0.8245" (its shortest
   decimals, one at least: "1.0"), a whole number as itself. */
static void ttft_tpot__told_text(char *buf, size_t cap, int what, uint64_t v)
{
    char frac[16];
    int n = 9;
    if (ttft_tpot__told[what].kind != TTFT_TPOT_TOLD_FRACTION) {
        snprintf(buf, cap, "%llu", (unsigned long long)v);
        return;
    }
    snprintf(frac, sizeof frac, "%09llu", (unsigned long long)(v % 1000000000u));
    while (n > 1 && frac[n - 1] == '0')
        frac[--n] = '\0';
    snprintf(buf, cap, "%llu.%s", (unsigned long long)(v / 1000000000u), frac);
}



/* The token histograms' names (a trace's "# folded_tokens:" KEY too) and help (TTFT_TPOT_TOKEN_HISTS). */
#define TTFT_TPOT__TOKENS_INFO(id, name, help) {name, help},
static const struct {
    const char *name, *help;
} ttft_tpot__token_hists[TTFT_TPOT_TOKENS_COUNT] = {TTFT_TPOT_TOKEN_HISTS(TTFT_TPOT__TOKENS_INFO)};
#undef TTFT_TPOT__TOKENS_INFO

/* A whole-number bound as prometheus_client writes the float: "20.0", and from 1e6 as Go writes it,
   "1e+06", "2.5e+07" (its repr's digits, the exponent as "e+0" and the digits before the point). */
static void ttft_tpot__le_text(char *buf, size_t cap, uint64_t v)
{
    char d[24];
    int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v), z = n;
    if (n <= 6) {
        snprintf(buf, cap, "%s.0", d);
        return;
    }
    while (z > 1 && d[z - 1] == '0')
        z--;
    d[z] = '\0';
    snprintf(buf, cap, "%c%s%se+0%d", d[0], z > 1 ? "." : "", d + 1, n - 1);
}

/* A histogram's series after its HELP and TYPE: each bound of scale up to last (0: all), cumulative. */
static void ttft_tpot__prom_token_series(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm, const char *name,
                                         const ttft_tpot_token_hist *h, int scale, uint64_t last)
{
    char le[32];
    uint64_t below = 0;
    unsigned b;
    for (b = 0; ttft_tpot__scale_bound(scale, b) && (!last || ttft_tpot__scale_bound(scale, b) <= last); b++) {
        below += h->bucket[b];
        ttft_tpot__le_text(le, sizeof le, ttft_tpot__scale_bound(scale, b));
        ttft_tpot_write(w, "%s%s_bucket{%sle=\"%s\"} %llu\n", nm->pre, name, nm->blb, le, (unsigned long long)below);
    }
    ttft_tpot_write(w, "%s%s_bucket{%sle=\"+Inf\"} %llu\n%s%s_sum%s %llu\n%s%s_count%s %llu\n", nm->pre, name,
                    nm->blb, (unsigned long long)h->count, nm->pre, name, nm->lb, (unsigned long long)h->sum, nm->pre,
                    name, nm->lb, (unsigned long long)h->count);
}

/* The token histograms of the requests, vLLM's (TTFT_TPOT_TOKEN_HISTS): none where unknown. */
static void ttft_tpot__prom_tokens(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm,
                                   const ttft_tpot__prom_counts *n)
{
    int k;
    for (k = 0; n->tok && k < TTFT_TPOT_TOKENS_COUNT; k++) {
        const char *name = ttft_tpot__token_hists[k].name;
        ttft_tpot_write(w, "# HELP %s%s %s\n# TYPE %s%s histogram\n", nm->pre, name, ttft_tpot__token_hists[k].help,
                        nm->pre, name);
        ttft_tpot__prom_token_series(w, nm, name, &n->tok[k], 0, n->max_model_len);
    }
}

/* What the driver told, each family once, each series from the start. */
static void ttft_tpot__prom_told(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm, const ttft_tpot__prom_counts *n)
{
    static const char *const type[7] = {"counter", "gauge", "gauge", "histogram", "histogram", "histogram",
                                        "histogram"};
    char v[32];
    int k;
    for (k = 0; k < TTFT_TPOT_TOLD_COUNT; k++) {
        const ttft_tpot__told_info *t = &ttft_tpot__told[k];
        if (!k || strcmp(t->family, ttft_tpot__told[k - 1].family) != 0)
            ttft_tpot_write(w, "# HELP %s%s %s\n# TYPE %s%s %s\n", nm->pre, t->family, t->help, nm->pre, t->family,
                            type[t->kind]);
        ttft_tpot__told_text(v, sizeof v, k, n->told->v[k]);
        if (t->kind >= TTFT_TPOT_TOLD_TOKENS)
            ttft_tpot__prom_token_series(w, nm, t->family, &n->told->hist[k], ttft_tpot__told_scale(t->kind),
                                         t->kind == TTFT_TPOT_TOLD_SEQUENCES ? 20u
                                         : t->kind == TTFT_TPOT_TOLD_TOKENS ? n->max_model_len : 0);
        else if (*t->label)
            ttft_tpot_write(w, "%s%s{%sreason=\"%s\"} %s\n", nm->pre, t->family, nm->blb, t->label, v);
        else
            ttft_tpot_write(w, "%s%s%s %s\n", nm->pre, t->family, nm->lb, v);
    }
}

/* The request histograms, the counters and the gauges. */
static void ttft_tpot__prom_requests(ttft_tpot_writer *w, const ttft_tpot__prom_names *nm, const ttft_tpot_buckets *b,
                                     const ttft_tpot__prom_counts *n)
{
    int k;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        ttft_tpot__prom_hist(w, nm, &b[k], k);
    ttft_tpot__prom_tokens(w, nm, n);
    ttft_tpot__prom_one(w, nm->own, nm->lb, "request_refused_total",
                        "Requests refused at submit: the request table (config.max_requests) was full.", n->refused);
    ttft_tpot__prom_one(w, nm->own, nm->lb, "request_dropped_total",
                        "Requests left out of every figure: refused at submit, or truncated when the event log "
                        "was full.", n->dropped);
    ttft_tpot__prom_one(w, nm->pre, nm->lb, "num_requests_running",
                        "Requests scheduled or given a token, not finished.", n->running);
    ttft_tpot__prom_one(w, nm->pre, nm->lb, "num_requests_waiting",
                        "Requests submitted, neither scheduled nor given a token.", n->waiting);
    ttft_tpot__prom_told(w, nm, n); /* the scheduler's and the KV cache's, beside them */
    ttft_tpot__prom_reasons(w, nm, n->reasons);
    ttft_tpot__prom_one(w, nm->pre, nm->lb, "prompt_tokens_total",
                        "Number of prefill tokens processed: a request's prompt tokens (as given them) from its "
                        "first token, whatever becomes of it.", n->prompt_tokens);
    ttft_tpot__prom_one(w, nm->pre, nm->lb, "generation_tokens_total",
                        "Number of generation tokens processed, as they are made, whatever becomes of their "
                        "request.", n->tokens);
}

/* The serving layer whose figures m holds, or NULL. */
static const ttft_tpot_serve *ttft_tpot__serve_of_model(const ttft_tpot_model *m)
{
    return ttft_tpot_serve_figures(m) ? ttft_tpot_serve_of(m->collector) : NULL;
}

TTFT_TPOT_DEF int ttft_tpot_model_prometheus(const ttft_tpot_model *m, FILE *out, const char *prefix,
                                             const char *labels)
{
    char block[4096];
    uint64_t made[2];
    ttft_tpot__prom_names nm;
    const ttft_tpot_serve_model *f = m ? ttft_tpot_serve_figures(m) : NULL;
    const ttft_tpot_serve *s = m ? ttft_tpot__serve_of_model(m) : NULL;
    ttft_tpot__prom_counts n;
    ttft_tpot_writer w = TTFT_TPOT_ZERO;
    if (!f || !s || !out || (m->skipped & TTFT_TPOT_SKIP_EXPOSITION) ||
        ttft_tpot__prom_names_of(f->model_label, prefix, labels, &nm))
        return TTFT_TPOT_EINVAL;
    made[0] = s->folded.tokens + s->folded.other_tokens, made[1] = s->folded.prompt_tokens + s->folded.other_prompt;
    ttft_tpot__made(s, 1, made);
    n.tokens = made[0], n.prompt_tokens = made[1];
    n.reasons = f->requests.finish_reasons;
    n.told = &s->told;
    n.tok = f->tokens_known ? f->tokens : NULL;
    n.max_model_len = f->max_model_len;
    n.refused = f->losses.requests_refused, n.dropped = f->losses.requests_dropped;
    ttft_tpot__in_flight(s, &n);
    w.f = out, w.b = block, w.cap = sizeof block;
    ttft_tpot__prom_requests(&w, &nm, f->buckets, &n);
    if (!(m->skipped & TTFT_TPOT_SKIP_DEVICE))
        ttft_tpot__prom_device(m, &w, &nm);
    return ttft_tpot_write(&w, NULL);
}

/* p->now from every request the layer finished: O(buckets), whatever their number. */
static void ttft_tpot__publish_update(const ttft_tpot_serve *s, ttft_tpot_publisher *p)
{
    uint64_t made[2];
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        ttft_tpot__tally_buckets(s, &s->finished, m, &p->now[m]);
    made[0] = s->finished.tokens + s->finished.other_tokens + s->made_cleared[0];
    made[1] = s->finished.prompt_tokens + s->finished.other_prompt + s->made_cleared[1];
    ttft_tpot__made(s, 0, made); /* and those of the requests in flight */
    p->requests = s->finished.requests, p->tokens = made[0], p->prompt_tokens = made[1];
    p->started = 1;
}

/* A publication into w: p brought up to date, then its exposition. */
static void ttft_tpot__publish_into(const ttft_tpot_serve *s, ttft_tpot_publisher *p, ttft_tpot_writer *w,
                                    const ttft_tpot__prom_names *nm)
{
    ttft_tpot__prom_counts n;
    ttft_tpot__publish_update(s, p);
    n.tokens = p->tokens, n.prompt_tokens = p->prompt_tokens; /* across clears */
    n.refused = s->refused_cleared + s->req.refused, n.dropped = s->dropped_cleared + s->req.dropped;
    n.reasons = s->finished.reasons;
    n.told = &s->told;
    n.tok = s->tokens_unknown & 2u ? NULL : s->finished.tok;
    n.max_model_len = s->max_model_len;
    ttft_tpot__in_flight(s, &n);
    ttft_tpot__prom_requests(w, nm, p->now, &n);
}

TTFT_TPOT_DEF int ttft_tpot_publish(const ttft_tpot_serve *s, ttft_tpot_publisher *p, FILE *out, const char *prefix,
                                    const char *labels)
{
    char block[4096];
    ttft_tpot__prom_names nm;
    ttft_tpot_writer w = TTFT_TPOT_ZERO;
    if (!s || !p || !out || s->no_live || ttft_tpot__prom_names_of(s->model_label, prefix, labels, &nm))
        return TTFT_TPOT_EINVAL;
    w.f = out, w.b = block, w.cap = sizeof block;
    ttft_tpot__publish_into(s, p, &w, &nm);
    return ttft_tpot_write(&w, NULL);
}

TTFT_TPOT_DEF int ttft_tpot_publish_buffer(const ttft_tpot_serve *s, ttft_tpot_publisher *p, char *buf, size_t cap,
                                           const char *prefix, const char *labels)
{
    ttft_tpot__prom_names nm;
    ttft_tpot_writer w = TTFT_TPOT_ZERO;
    if (!s || !p || !buf || !cap || s->no_live || ttft_tpot__prom_names_of(s->model_label, prefix, labels, &nm))
        return TTFT_TPOT_EINVAL;
    w.b = buf, w.cap = cap; /* no FILE: a string, cut short where it is full */
    buf[0] = '\0';
    ttft_tpot__publish_into(s, p, &w, &nm);
    if (w.n + 1 < cap)
        return TTFT_TPOT_OK;
    buf[0] = '\0'; /* filled to its last byte: it may be cut, and a cut exposition is no exposition */
    return TTFT_TPOT_ENOMEM;
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

TTFT_TPOT_DEF int ttft_tpot_publish_file(const ttft_tpot_serve *s, ttft_tpot_publisher *p, const char *path,
                                         const char *prefix, const char *labels)
{
    char tmp[4096];
    FILE *f;
    int rc, n;
    if (!path || !s || !p || s->no_live)
        return TTFT_TPOT_EINVAL;
    /* this publisher's own name (its process and address): another's file is never touched */
    n = snprintf(tmp, sizeof tmp, "%s.tmp-%llu-%llx", path, (unsigned long long)TTFT_TPOT__SERVE_PID(),
                 (unsigned long long)(uintptr_t)p);
    if (n < 0 || (size_t)n >= sizeof tmp || !ttft_tpot__replaceable(path))
        return TTFT_TPOT_EPATH;
    remove(tmp); /* a crashed publisher's of the same pid and address, or a planted link: never followed */
    if (!(f = fopen(tmp, "wx"))) /* created here or not at all (C11's exclusive mode; glibc's in C99) */
        return TTFT_TPOT_EIO;
    rc = ttft_tpot_publish(s, p, f, prefix, labels);
    if (fclose(f) != 0 && rc == TTFT_TPOT_OK)
        rc = TTFT_TPOT_EIO;
    if (rc == TTFT_TPOT_OK && rename(tmp, path) != 0)
        rc = TTFT_TPOT_EIO;
    if (rc != TTFT_TPOT_OK)
        remove(tmp);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Traces: writing ------------------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* v in decimal at p: p past it. */
static char *ttft_tpot__serve_u64(char *p, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = d[--n];
    return p;
}

/* An id as a CSV field at p (the rule of ttft_tpot_write's %C: quoted where it holds a comma or a
   quote, or starts with '#' or a space): p past it. */
static char *ttft_tpot__serve_csv(char *p, const char *id)
{
    const char *q = id;
    if (id[0] != '#' && id[0] != ' ' && !id[strcspn(id, ",\"")]) {
        while (*q)
            *p++ = *q++;
        return p;
    }
    *p++ = '"';
    for (; *q; q++) {
        if (*q == '"')
            *p++ = '"';
        *p++ = *q;
    }
    *p++ = '"';
    return p;
}

/* A request's row: "RID,ROLE,T,0,TOKENS,WARMUP", ROLE point p's (TTFT_TPOT_POINTS: submit, token, or
   a mark's), made in place and put at the end of the writer's block (a trace's rows are its bulk). */
static void ttft_tpot__write_row(ttft_tpot_writer *w, const ttft_tpot_request *q, int point, uint64_t t,
                                 uint64_t tokens)
{
    const ttft_tpot__point_info *i = &ttft_tpot__points[point];
    char row[2 * TTFT_TPOT_NAME_MAX + 96], *p = ttft_tpot__serve_csv(row, q->id);
    size_t len;
    *p++ = ',';
    memcpy(p, i->role, i->role_len);
    p += i->role_len;
    *p++ = ',';
    p = ttft_tpot__serve_u64(p, t);
    memcpy(p, ",0,", 3);
    p = ttft_tpot__serve_u64(p + 3, tokens);
    p[0] = ',', p[1] = (char)('0' + (q->warmup != 0)), p[2] = '\n';
    len = (size_t)(p + 3 - row);
    if (w->f && w->cap - w->n < len)
        (void)ttft_tpot_write(w, NULL);
    if (w->f && w->cap - w->n >= len) {
        memcpy(w->b + w->n, row, len);
        w->n += len;
    } else {
        ttft_tpot_write(w, "%.*s", (int)len, row);
    }
}

/* A mark that follows nothing but the submit (a schedule) goes right after its request's submit row;
   the others after every event row, where the token events they lie among have been read. */
static int ttft_tpot__mark_early(int p)
{
    return ttft_tpot__points[p].follows == TTFT_TPOT_POINT_BIT(SUBMIT);
}

/* q's marks, as rows "RID,ROLE,T,0,0,WARMUP": those that go early (early 1), late (0), or all (-1). */
static void ttft_tpot__write_marks(ttft_tpot_writer *w, const ttft_tpot_request *q, int early)
{
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        if (ttft_tpot__points[p].set == TTFT_TPOT__SET_MARK && ttft_tpot__has_point(q, p) &&
            (early < 0 || ttft_tpot__mark_early(p) == early))
            ttft_tpot__write_row(w, q, p, ttft_tpot__point_ns(q, p), 0);
}

/* A truncated request: "# truncated: SUBMIT_NS,WARMUP,ID", then its marks' rows. */
static void ttft_tpot__write_truncated(ttft_tpot_writer *w, const ttft_tpot_request *q)
{
    ttft_tpot_write(w, "# truncated: %llu,%d,%s\n", (unsigned long long)q->submit_ns, q->warmup, q->id);
    ttft_tpot__write_marks(w, q, -1);
}

/* The requests [from, to) of the table that have no submit event (made by a "# truncated:" line, or
   their submit found no room in the log: truncated all), as "# truncated:" lines. Returns to. */
static unsigned ttft_tpot__write_unsubmitted(const ttft_tpot_serve *s, ttft_tpot_writer *w, unsigned from, unsigned to)
{
    for (; from < to; from++)
        if (s->req.list[from].truncated)
            ttft_tpot__write_truncated(w, &s->req.list[from]);
    return to;
}

/* Every request event, in its own order, each request made where it stands in the request table (the
   lanes of the Chrome export follow that order): a submit makes its request, and the requests made
   without one come by their "# truncated:" lines before the next submit. A request's marks follow
   its submit, or every event (ttft_tpot__mark_early); a truncated one's, its "# truncated:" line. */
static void ttft_tpot__write_events(const ttft_tpot_serve *s, ttft_tpot_writer *w)
{
    unsigned next = 0, r; /* the requests made so far */
    size_t i;
    for (i = 0; i < s->req.n_events; i++) {
        const ttft_tpot_request_event *ev = &s->req.events[i];
        const ttft_tpot_request *q = &s->req.list[ev->request];
        if (!ev->tokens) /* submits come in the table's order */
            next = ttft_tpot__write_unsubmitted(s, w, next, ev->request) + 1;
        ttft_tpot__write_row(w, q, ev->tokens ? TTFT_TPOT_POINT_LAST : TTFT_TPOT_POINT_SUBMIT, ev->t_ns, ev->tokens);
        if (!ev->tokens && !q->truncated)
            ttft_tpot__write_marks(w, q, 1);
    }
    ttft_tpot__write_unsubmitted(s, w, next, s->req.n);
    for (r = 0; r < s->req.n; r++)
        if (!s->req.list[r].truncated)
            ttft_tpot__write_marks(w, &s->req.list[r], 0);
}

/* After the requests' events, what a request row cannot say: its prompt tokens ("# prompt_tokens: N,ID")
   and that it finished ("# finished: ID", "# finish_reason: REASON,ID"), so that a trace's requests in
   flight are the live ones. */
static void ttft_tpot__write_finished(const ttft_tpot_serve *s, ttft_tpot_writer *w)
{
    unsigned r;
    for (r = 0; r < s->req.n; r++) {
        const ttft_tpot_request *q = &s->req.list[r];
        if (q->prompt_tokens)
            ttft_tpot_write(w, "# prompt_tokens: %llu,%s\n", (unsigned long long)q->prompt_tokens, q->id);
        if (q->finished)
            ttft_tpot_write(w, "# finished: %s\n", q->id);
        if (q->reason)
            ttft_tpot_write(w, "# finish_reason: %s,%s\n", ttft_tpot_finish_reason_name(q->reason), q->id);
    }
}

/* A token histogram as a trace's "# HEAD: KEY,COUNT,SUM,I:C ..." (I a bucket's index among the bounds
   1, 2, 5, 10, ... 5e9, C its values there), where it counts a value. */
static void ttft_tpot__write_token_hist(ttft_tpot_writer *w, const char *head, const char *key,
                                        const ttft_tpot_token_hist *h)
{
    unsigned b;
    int any = 0;
    if (!h->count)
        return;
    ttft_tpot_write(w, "# %s: %s,%llu,%llu,", head, key, (unsigned long long)h->count, (unsigned long long)h->sum);
    for (b = 0; b < TTFT_TPOT_TOKEN_BOUNDS; b++)
        if (h->bucket[b])
            ttft_tpot_write(w, any++ ? " %u:%llu" : "%u:%llu", b, (unsigned long long)h->bucket[b]);
    ttft_tpot_write(w, "\n");
}

/* The requests folded out of the table (config.request_window), which no event row carries:
   "# folded: REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,STOP,LENGTH,ABORT,ERROR[,REPETITION[,
   OTHER_TOKENS,OTHER_PROMPT_TOKENS]]" (the requests by finish reason: those of REQUESTS given stop or
   length, then the aborted and errored; the tokens and prompt tokens of the folded requests not
   measured nor of a warmup section, which the token counters count),
   then each metric with values as
   "# folded_metric: KEY,COUNT,SUM_HI,SUM_LO,I:C I:C ..." (KEY its JSON key, I a bucket's index among
   its bounds, C its values there; the sum as folding keeps it), so a trace's report and exposition
   count them as the live ones do; "# buckets: vllm-0.33" first where the bounds are vLLM's alone (0.3
   wrote "# buckets: vllm" for its own choice of them: TTFT_TPOT_BUCKETS_VLLM_0_3). */
static void ttft_tpot__write_folded(const ttft_tpot_serve *s, ttft_tpot_writer *w)
{
    const ttft_tpot__tally *t = &s->folded;
    size_t k;
    int m, any;
    if (!ttft_tpot__tally_any(t))
        return;
    if (s->buckets == TTFT_TPOT_BUCKETS_VLLM) /* the bounds the bucket indexes below count among */
        ttft_tpot_write(w, "# buckets: vllm-0.33\n");
    ttft_tpot_write(w, "# folded: %llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)t->requests,
                    (unsigned long long)t->tokens, (unsigned long long)t->prompt_tokens,
                    (unsigned long long)t->truncated, (unsigned long long)t->unmeasured,
                    (unsigned long long)t->reasons[TTFT_TPOT_FINISH_STOP],
                    (unsigned long long)t->reasons[TTFT_TPOT_FINISH_LENGTH],
                    (unsigned long long)t->reasons[TTFT_TPOT_FINISH_ABORT],
                    (unsigned long long)t->reasons[TTFT_TPOT_FINISH_ERROR]);
    if (t->reasons[TTFT_TPOT_FINISH_REPETITION] || t->other_tokens || t->other_prompt) /* only then: 0.3 reads it */
        ttft_tpot_write(w, ",%llu", (unsigned long long)t->reasons[TTFT_TPOT_FINISH_REPETITION]);
    if (t->other_tokens || t->other_prompt)
        ttft_tpot_write(w, ",%llu,%llu", (unsigned long long)t->other_tokens, (unsigned long long)t->other_prompt);
    ttft_tpot_write(w, "\n");
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (!t->count[m])
            continue;
        ttft_tpot_write(w, "# folded_metric: %s,%llu,%llu,%llu,", ttft_tpot__metrics[m].json,
                        (unsigned long long)t->count[m], (unsigned long long)t->sum_hi[m],
                        (unsigned long long)t->sum_lo[m]);
        for (k = 0, any = 0; k < TTFT_TPOT_BUCKETS_MAX; k++)
            if (t->bucket[m][k])
                ttft_tpot_write(w, any++ ? " %u:%llu" : "%u:%llu", (unsigned)k, (unsigned long long)t->bucket[m][k]);
        ttft_tpot_write(w, "\n");
    }
    for (m = 0; m < TTFT_TPOT_TOKENS_COUNT; m++) /* vLLM's histograms of their token counts */
        ttft_tpot__write_token_hist(w, "folded_tokens", ttft_tpot__token_hists[m].name, &t->tok[m]);
}

/* "# told: KEY,VALUE" for what the driver told (ttft_tpot_serve_tell): a counter's total, a gauge's
   last value; a histogram's values as "# told_hist: KEY,COUNT,SUM,I:C ...". */
static void ttft_tpot__write_told(const ttft_tpot_serve *s, ttft_tpot_writer *w)
{
    char v[32];
    int k;
    for (k = 0; k < TTFT_TPOT_TOLD_COUNT; k++) {
        if (!(s->told.any >> k & 1u))
            continue;
        if (ttft_tpot__told[k].kind >= TTFT_TPOT_TOLD_TOKENS) {
            ttft_tpot__write_token_hist(w, "told_hist", ttft_tpot__told[k].key, &s->told.hist[k]);
            continue;
        }
        ttft_tpot__told_text(v, sizeof v, k, s->told.v[k]);
        ttft_tpot_write(w, "# told: %s,%s\n", ttft_tpot__told[k].key, v);
    }
}

/* The layer's trace hook: its rows and directives after the device intervals (EVENTS). Each truncated
   request that has a submit event comes after its events (a "# truncated:" line closes its request to
   event rows) and before "# finished:" (which closes it to its marks). */
static void ttft_tpot__serve_trace(const void *state, ttft_tpot_writer *w, int section)
{
    const ttft_tpot_serve *s = (const ttft_tpot_serve *)state;
    size_t i;
    if (section != TTFT_TPOT_SECTION_EVENTS)
        return;
    ttft_tpot__write_events(s, w);
    for (i = 0; i < s->req.n_events; i++)
        if (!s->req.events[i].tokens && s->req.list[s->req.events[i].request].truncated)
            ttft_tpot__write_truncated(w, &s->req.list[s->req.events[i].request]);
    ttft_tpot__write_finished(s, w);
    ttft_tpot__write_folded(s, w);
    ttft_tpot__write_told(s, w);
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifndef TTFT_TPOT_NO_STDIO /* a trace is a file: its restore is read with its messages */

/* ---- Traces: restoring ----------------------------------------------------------------------- */

/* One trace being restored: where the tables stood (a refused read goes back there), and what its
   directives say, joined when the whole trace has been read. */
typedef struct ttft_tpot__serve_reading {
    unsigned old_n;           /* requests held before the read */
    size_t old_events;
    ttft_tpot__tally folded;  /* "# folded:" and "# folded_metric:" lines */
    int buckets;              /* "# buckets:": the bounds its folded buckets count among (TTFT_TPOT_BUCKETS_*) */
    int folded_lines;         /* a "# folded_metric:" line was read: "# buckets:" comes before */
    uint32_t metrics_read;    /* bit m: metric m's "# folded_metric:" line was read (one a trace) */
    uint64_t truncated;       /* "# truncated:" lines */
    unsigned long truncated_line, counts_line; /* the last of them, and of "# counts:" */
    unsigned long folded_line;                 /* the last "# folded:" */
    uint64_t dropped, refused, lost; /* "# counts:" requests_dropped, requests_refused, events_lost */
    uint64_t limit[2];        /* max_requests, max_request_events, as given (bit k of limits) */
    unsigned limits;
    uint32_t recent[256];     /* index slot + 1 of a request by a cheap hash of its id: those in flight
                                 come back every step */
    ttft_tpot__told_set told; /* "# told:" and "# told_hist:" lines */
    unsigned long told_line;  /* the last of them */
    unsigned long tokens_line[TTFT_TPOT_TOKENS_COUNT]; /* where "# folded_tokens:" of histogram k was read
                                                          (one a trace), or 0 */
} ttft_tpot__serve_reading;

/* What a refusal says, into item->err: what, then the first len bytes of arg (NULL: none), EPARSE. */
static int ttft_tpot__serve_refuse(ttft_tpot_serve_item *item, const char *what, const char *arg, size_t len)
{
    if (item->err && item->errlen)
        snprintf(item->err, item->errlen, "%s%.*s", what, arg ? (int)len : 0, arg ? arg : "");
    return TTFT_TPOT_EPARSE;
}

/* A growing collector's request tables (its config.grow), doubled where full: OK; EFULL (not growing,
   or at their limits); ENOMEM. A table moved to an allocation of its own is freed at serve_free. */
static int ttft_tpot__serve_grow(ttft_tpot_serve *s)
{
    ttft_tpot__request_table *q = &s->req;
    void *list, *index;
    size_t max, slots;
    if (!s->layer.grow)
        return TTFT_TPOT_EFULL;
    if (q->n == q->max) {
        if (q->max >= (1u << 24))
            return TTFT_TPOT_EFULL;
        max = q->max ? 2 * (size_t)q->max : 8;
        for (slots = 2; slots < 2 * max; slots <<= 1)
            ;
        list = TTFT_TPOT_MALLOC(max * sizeof *q->list, s->layer.alloc_user);
        index = TTFT_TPOT_MALLOC(slots * sizeof *q->index, s->layer.alloc_user);
        if (!list || !index) {
            if (list)
                TTFT_TPOT_FREE(list, s->layer.alloc_user);
            if (index)
                TTFT_TPOT_FREE(index, s->layer.alloc_user);
            return TTFT_TPOT_ENOMEM;
        }
        if (q->n)
            memcpy(list, q->list, q->n * sizeof *q->list);
        if (s->grown & 1u) {
            TTFT_TPOT_FREE(q->list, s->layer.alloc_user);
            TTFT_TPOT_FREE(q->index, s->layer.alloc_user);
        }
        q->list = (ttft_tpot_request *)list, q->index = (uint32_t *)index;
        q->max = (unsigned)max, q->mask = (uint32_t)slots - 1;
        s->grown |= 1u;
        ttft_tpot__request_reindex(s);
        memset(((ttft_tpot__serve_reading *)s->reading)->recent, 0, sizeof(uint32_t) * 256); /* slots moved */
    }
    if (q->n_events == q->max_events) {
        if (q->max_events >= UINT32_MAX)
            return TTFT_TPOT_EFULL;
        max = q->max_events ? (q->max_events < UINT32_MAX / 2 ? 2 * q->max_events : UINT32_MAX) : 64;
        if (!(list = TTFT_TPOT_MALLOC(max * sizeof *q->events, s->layer.alloc_user)))
            return TTFT_TPOT_ENOMEM;
        if (q->n_events)
            memcpy(list, q->events, q->n_events * sizeof *q->events);
        if (s->grown & 2u)
            TTFT_TPOT_FREE(q->events, s->layer.alloc_user);
        q->events = (ttft_tpot_request_event *)list, q->max_events = max;
        s->grown |= 2u;
    }
    return TTFT_TPOT_OK;
}

/* Whether id a equals b (n bytes): a compare of two words where the ids are 8 to 16 bytes long. */
static int ttft_tpot__same_id(const char *a, const char *b, size_t n)
{
    uint64_t a0, a1, b0, b1;
    if (n < 8 || n > 16)
        return memcmp(a, b, n) == 0;
    memcpy(&a0, a, 8), memcpy(&a1, a + n - 8, 8);
    memcpy(&b0, b, 8), memcpy(&b1, b + n - 8, 8);
    return a0 == b0 && a1 == b1;
}

/* The index slot of the request named id (ttft_tpot__request_slot): one seen lately (a cache in front
   of the keyed index, which a miss falls back on; an entry is checked against the id it names, so one
   left stale only misses). id: 1 to TTFT_TPOT_NAME_MAX - 1 bytes. */
static uint32_t ttft_tpot__request_recent(ttft_tpot_serve *s, const char *id, size_t len)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    uint64_t tail = 0;
    uint32_t *at, slot;
    memcpy(&tail, id + (len > 8 ? len - 8 : 0), len > 8 ? 8 : len); /* ids differ most at their end */
    at = &r->recent[((tail ^ len) * 0x9E3779B97F4A7C15u) >> 56];
    slot = *at - 1;
    if (*at && slot <= s->req.mask && s->req.index[slot]) {
        const char *have = s->req.list[(s->req.index[slot] & TTFT_TPOT__REQ_NUM) - 1].id;
        if (have[len] == '\0' && ttft_tpot__same_id(have, id, len))
            return slot;
    }
    slot = ttft_tpot__request_slot(s, id, len);
    *at = slot + 1;
    return slot;
}

/* The request of this trace that item names, or -1 (unknown, or of an earlier trace). */
static int ttft_tpot__restore_request(const ttft_tpot_serve *s, const ttft_tpot_serve_item *item)
{
    const ttft_tpot__serve_reading *r = (const ttft_tpot__serve_reading *)s->reading;
    int q = item->len > 0 && item->len < TTFT_TPOT_NAME_MAX ? ttft_tpot__request_find(s, item->id, item->len) : -1;
    return q >= (int)r->old_n ? q : -1;
}

/* "ID,submit,T,0,0,W" or "ID,token,T,0,K,W", checked as the calls check them; the request keeps its
   warmup flag. A growing collector makes room first. */
static int ttft_tpot__restore_event(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    int submit = item->point == TTFT_TPOT_POINT_SUBMIT, rc, q;
    ttft_tpot__request_ev e;
    if (item->tokens > UINT32_MAX || (submit ? item->tokens != 0 : item->tokens == 0))
        return ttft_tpot__serve_refuse(item, submit ? "a submit has 0 tokens" : "a token event has 1 token or more",
                                       NULL, 0);
    if ((s->req.n == s->req.max || s->req.n_events == s->req.max_events) &&
        ttft_tpot__serve_grow(s) == TTFT_TPOT_ENOMEM) /* first: growing moves the index */
        return TTFT_TPOT_ENOMEM;
    e.id = item->id, e.len = item->len, e.t = item->t_ns, e.tokens = (uint32_t)item->tokens;
    e.warmup = item->warmup, e.point = submit ? TTFT_TPOT_POINT_SUBMIT : TTFT_TPOT_POINT_LAST;
    e.slot = item->len > 0 && item->len < TTFT_TPOT_NAME_MAX && s->req.max ? ttft_tpot__request_recent(s, e.id, e.len)
                                                                            : UINT32_MAX;
    q = e.slot != UINT32_MAX ? (int)(s->req.index[e.slot] & TTFT_TPOT__REQ_NUM) - 1 : -1;
    if (!submit && q >= 0 && s->req.list[q].warmup != (item->warmup != 0))
        return ttft_tpot__serve_refuse(item, "warmup flag differs from the request's submit: ", item->id, item->len);
    rc = ttft_tpot__request_event(s, &e, &q);
    if (rc == TTFT_TPOT_ENAME)
        return ttft_tpot__serve_refuse(item, "invalid request id (1 to 63 bytes of UTF-8, no control characters): ",
                                       item->id, item->len);
    if (rc == TTFT_TPOT_EFULL || rc == TTFT_TPOT__ELOG)
        return ttft_tpot__serve_refuse(item, "more requests or request events than this collector holds "
                                             "(config.max_requests, max_request_events), or an event after "
                                             "its request's # truncated: line", NULL, 0);
    if (rc == TTFT_TPOT_EREQUEST)
        return ttft_tpot__serve_refuse(item, submit ? "second submit of request " : q < 0 ? "token for unknown request "
                                             : "token before its request's submit or previous token: ",
                                       item->id, item->len);
    return rc;
}

/* "ID,ROLE,T,0,0,W": mark item->point (a schedule, ...) of a request of this trace. */
static int ttft_tpot__restore_mark(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    const char *role, *after = "", *before = "";
    char what[160];
    int q = ttft_tpot__restore_request(s, item), k, p = item->point;
    if (p < 0 || p >= TTFT_TPOT_POINT_COUNT || ttft_tpot__points[p].set != TTFT_TPOT__SET_MARK)
        return TTFT_TPOT_EINVAL;
    role = ttft_tpot__points[p].role;
    if (q < 0) { /* not found, or of an earlier trace: a read that fails must undo it */
        snprintf(what, sizeof what, "%s of a request not submitted earlier in this trace: ", role);
        return ttft_tpot__serve_refuse(item, what, item->id, item->len);
    }
    if (s->req.list[q].warmup != (item->warmup != 0))
        return ttft_tpot__serve_refuse(item, "warmup flag differs from the request's submit: ", item->id, item->len);
    if (ttft_tpot__request_mark_set(s, q, p, item->t_ns) == TTFT_TPOT_OK)
        return TTFT_TPOT_OK;
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++) { /* the points it lies between, for the message */
        if (ttft_tpot__points[p].follows >> k & 1u)
            after = ttft_tpot__points[k].words;
        if (k != p && (ttft_tpot__points[k].follows >> p & 1u) && !*before)
            before = ttft_tpot__points[k].words;
    }
    snprintf(what, sizeof what, "second %s, or one before its request's %s or after its %s: ", role, after, before);
    return ttft_tpot__serve_refuse(item, what, item->id, item->len);
}

/* "# truncated: SUBMIT_NS,WARMUP,ID": a request that lost an event (made here when its submit was lost). */
static int ttft_tpot__restore_truncated(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    int q;
    if (item->len == 0 || item->len >= TTFT_TPOT_NAME_MAX ||
        ttft_tpot_name_hash(s->layer.c, item->id, item->len, NULL) != TTFT_TPOT_OK)
        return ttft_tpot__serve_refuse(item, "# truncated: invalid request id: ", item->id, item->len);
    q = ttft_tpot__request_find(s, item->id, item->len);
    if (q >= 0 && (unsigned)q < r->old_n)
        return ttft_tpot__serve_refuse(item, "# truncated: a request of an earlier trace: ", item->id, item->len);
    if (q >= 0 && (s->req.list[q].submit_ns != item->t_ns || s->req.list[q].warmup != (item->warmup != 0)))
        return ttft_tpot__serve_refuse(item, "# truncated: differs from the request's submit: ", item->id, item->len);
    if (q < 0 && s->req.n == s->req.max && ttft_tpot__serve_grow(s) == TTFT_TPOT_ENOMEM)
        return TTFT_TPOT_ENOMEM;
    if (q < 0 && s->req.n == s->req.max)
        return ttft_tpot__serve_refuse(item, "more requests than this collector holds (config.max_requests)", NULL, 0);
    if (q < 0)
        q = ttft_tpot__request_new(s, item->id, item->len, item->t_ns, item->warmup,
                                   ttft_tpot__request_slot(s, item->id, item->len));
    r->truncated += !s->req.list[q].truncated;
    r->truncated_line = item->line;
    s->req.list[q].truncated = 1;
    return TTFT_TPOT_OK;
}

/* "# finished: ID", "# finish_reason: REASON,ID" (after it), "# prompt_tokens: N,ID": what a request
   of this trace was told beside its events. */
static int ttft_tpot__restore_told(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    int q = ttft_tpot__restore_request(s, item);
    ttft_tpot_request *req = q >= 0 ? &s->req.list[q] : NULL;
    if (item->kind == TTFT_TPOT_SERVE_FINISHED) {
        if (!req)
            return ttft_tpot__serve_refuse(item, "# finished: a request not submitted earlier in this trace: ",
                                           item->id, item->len);
        s->req.done += !req->finished;
        req->finished = 1;
    } else if (item->kind == TTFT_TPOT_SERVE_FINISH_REASON) {
        if (item->reason <= TTFT_TPOT_FINISH_NONE || item->reason >= TTFT_TPOT_FINISH_COUNT)
            return ttft_tpot__serve_refuse(item, "# finish_reason: expected stop, length, abort, error or repetition, then ,ID",
                                           NULL, 0);
        if (!req || !req->finished || req->reason)
            return ttft_tpot__serve_refuse(item, "# finish_reason: a request not finished earlier in this trace, "
                                                 "or given its reason before: ", item->id, item->len);
        req->reason = (uint8_t)item->reason;
    } else {
        if (item->tokens == 0 || item->tokens > UINT32_MAX)
            return ttft_tpot__serve_refuse(item, "# prompt_tokens: expected N (1 to 4294967295),ID", NULL, 0);
        if (!req)
            return ttft_tpot__serve_refuse(item, "# prompt_tokens: a request not submitted earlier in this trace: ",
                                           item->id, item->len);
        req->prompt_tokens = (uint32_t)item->tokens; /* checked above */
    }
    return TTFT_TPOT_OK;
}

/* "# folded: REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,STOP,LENGTH,ABORT,ERROR[,REPETITION[,
   OTHER_TOKENS,OTHER_PROMPT_TOKENS]]": requests folded out of the recording layer's table
   (config.request_window); no count may pass 2^64 with what the layer counts already, and other
   tokens need other requests. */
static int ttft_tpot__restore_folded(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__tally *t = &((ttft_tpot__serve_reading *)s->reading)->folded;
    uint64_t *to[12], *live[12], *v = item->v; /* live: the layer's finished tally, which the read adds to */
    int k;
    to[0] = &t->requests, to[1] = &t->tokens, to[2] = &t->prompt_tokens, to[3] = &t->truncated;
    to[4] = &t->unmeasured;
    for (k = 0; k < 5; k++) /* STOP, LENGTH, ABORT, ERROR, REPETITION */
        to[5 + k] = &t->reasons[TTFT_TPOT_FINISH_STOP + k];
    to[10] = &t->other_tokens, to[11] = &t->other_prompt;
    for (k = 0; k < 12; k++) {
        live[k] = (uint64_t *)((char *)&s->finished + ((char *)to[k] - (char *)t));
        if (*to[k] > UINT64_MAX - *live[k] || v[k] > UINT64_MAX - *to[k] - *live[k])
            break;
    }
    if (k < 12 || v[5] > v[0] || v[6] > v[0] - v[5] || v[9] > v[0] - v[5] - v[6] ||
        ((v[10] || v[11]) && !(v[3] || v[4] || v[7] || v[8])))
        return ttft_tpot__serve_refuse(item, "# folded: expected REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,"
                                             "STOP,LENGTH,ABORT,ERROR[,REPETITION[,OTHER_TOKENS,OTHER_PROMPT_TOKENS]] "
                                             "(STOP + LENGTH + REPETITION at most REQUESTS; other tokens of "
                                             "other requests)", NULL, 0);
    for (k = 0; k < 12; k++)
        *to[k] += v[k];
    t->reasons[TTFT_TPOT_FINISH_NONE] += v[0] - v[5] - v[6] - v[9];
    ((ttft_tpot__serve_reading *)s->reading)->folded_line = item->line;
    return TTFT_TPOT_OK;
}

/* Bucket i of metric m among the bounds of set (TTFT_TPOT_BUCKETS_*) as a bucket of the layer's: its
   index there, or SIZE_MAX when the layer's bucket would not hold all of it (a bound of set's is not
   one of the layer's). */
static size_t ttft_tpot__bucket_in(const ttft_tpot_serve *s, int m, int set, size_t i)
{
    int t = ttft_tpot__metrics[m].le;
    uint64_t hi = ttft_tpot__les[set][t].ns[i], lo = i ? ttft_tpot__les[set][t].ns[i - 1] : 0;
    size_t b = ttft_tpot__bucket_of(s, m, hi, 1);
    return (b ? ttft_tpot__les[s->buckets][t].ns[b - 1] : 0) <= lo ? b : SIZE_MAX;
}

/* The values metric m can have among the folded requests of t: one a request, or (ITL) one a gap
   between two token events, so at most the tokens past each request's first. */
static uint64_t ttft_tpot__folded_room(const ttft_tpot__tally *t, int m)
{
    if (ttft_tpot__metrics[m].rule != TTFT_TPOT__RULE_GAPS)
        return t->requests;
    return t->tokens > t->requests ? t->tokens - t->requests : 0;
}

/* Whether a folded metric's sum (128 bits, in ns or, per token, 1/1024 ns) lies where its values can:
   each counted in bucket k between bound k - 1 and bound k, those past the last bound above it (no
   limit above then). Told in doubles, within a part in 1e9: what it refuses is a sum no values in
   those buckets could make. */
static int ttft_tpot__folded_sum_ok(const ttft_tpot_serve_item *item, int set, int m, uint64_t total)
{
    const uint64_t *ns = ttft_tpot__les[set][ttft_tpot__metrics[m].le].ns;
    size_t last = ttft_tpot__les[set][ttft_tpot__metrics[m].le].n - 1, k;
    double unit = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN ? 1024.0 : 1.0;
    double sum = (double)item->v[1] * 18446744073709551616.0 + (double)item->v[2];
    double lo = (double)(item->v[0] - total) * (double)ns[last], hi = 0;
    for (k = 0; k < item->n; k++) {
        lo += (double)item->count[k] * (item->bucket[k] ? (double)ns[item->bucket[k] - 1] : 0.0);
        hi += (double)item->count[k] * (double)ns[item->bucket[k]];
    }
    return sum >= lo * unit * (1 - 1e-9) && (item->v[0] > total || sum <= hi * unit * (1 + 1e-9));
}

/* "# folded_metric: KEY,COUNT,SUM_HI,SUM_LO,I:C ...": a request metric of the folded requests, its
   buckets ascending (indexes among the bounds of the trace's set), each within its bounds, at most
   COUNT values in them; once a trace, after the "# folded:" line that counts the requests it can
   have values of, and with a sum its buckets can hold. */
static int ttft_tpot__restore_folded_metric(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    ttft_tpot__tally *t = &r->folded;
    uint64_t b[TTFT_TPOT_BUCKETS_MAX] = {0}, total = 0, n = item->v[0], hi = item->v[1], lo = item->v[2];
    int m = item->metric, coarse = 0;
    size_t k, at, le;
    if (m < 0 || m >= TTFT_TPOT_METRIC_COUNT)
        return ttft_tpot__serve_refuse(item, "# folded_metric: unknown metric", NULL, 0);
    le = ttft_tpot__les[r->buckets][ttft_tpot__metrics[m].le].n;
    for (k = 0; k < item->n && k <= TTFT_TPOT_BUCKETS_MAX; k++) {
        if (k == TTFT_TPOT_BUCKETS_MAX || item->bucket[k] >= le || item->count[k] == 0 ||
            (k && item->bucket[k] <= item->bucket[k - 1]) || item->count[k] > UINT64_MAX - 1 - total)
            break;
        total += item->count[k];
        if ((at = ttft_tpot__bucket_in(s, m, r->buckets, (size_t)item->bucket[k])) == SIZE_MAX)
            coarse = 1;
        else if (at < ttft_tpot__les[s->buckets][ttft_tpot__metrics[m].le].n)
            b[at] += item->count[k];
    }
    if (k < item->n || total > n || t->count[m] > UINT64_MAX - s->finished.count[m] ||
        n > UINT64_MAX - t->count[m] - s->finished.count[m] || t->sum_hi[m] > UINT64_MAX - 1 - s->finished.sum_hi[m] ||
        hi > UINT64_MAX - 1 - t->sum_hi[m] - s->finished.sum_hi[m])
        return ttft_tpot__serve_refuse(item, "# folded_metric: expected KEY,COUNT,SUM_HI,SUM_LO,I:C ... with at most "
                                             "COUNT values in the buckets, ascending", NULL, 0);
    if (r->metrics_read >> m & 1u)
        return ttft_tpot__serve_refuse(item, "# folded_metric: a second line for ", ttft_tpot__metrics[m].json,
                                       strlen(ttft_tpot__metrics[m].json));
    if (n > ttft_tpot__folded_room(t, m))
        return ttft_tpot__serve_refuse(item, "# folded_metric: more values than the folded requests of the # folded: "
                                             "lines before it can have: ", ttft_tpot__metrics[m].json,
                                       strlen(ttft_tpot__metrics[m].json));
    if (!ttft_tpot__folded_sum_ok(item, r->buckets, m, total))
        return ttft_tpot__serve_refuse(item, "# folded_metric: a sum no values in its buckets can make: ",
                                       ttft_tpot__metrics[m].json, strlen(ttft_tpot__metrics[m].json));
    if (coarse)
        return ttft_tpot__serve_refuse(item, "# folded_metric: the trace's buckets are vLLM's bounds, coarser than "
                                             "this collector's (read it with config.buckets vllm, --buckets vllm): ",
                                       ttft_tpot__metrics[m].json, strlen(ttft_tpot__metrics[m].json));
    r->metrics_read |= 1u << m;
    for (k = 0; k < TTFT_TPOT_BUCKETS_MAX; k++)
        t->bucket[m][k] += b[k];
    r->folded_lines = 1;
    t->count[m] += n;
    t->sum_lo[m] += lo;
    t->sum_hi[m] += hi + (t->sum_lo[m] < lo);
    return TTFT_TPOT_OK;
}

/* A token histogram's line into *h (head: its directive, key: its name, for the messages): its buckets
   ascending, at most COUNT values in them, with a sum they can make (a value in bucket b is at most
   bound b and above bound b - 1, one past the last above it; in doubles, within a part in 1e9). OK, or
   EPARSE. */
static int ttft_tpot__token_item(ttft_tpot_serve_item *item, const char *head, const char *key, int scale,
                                 ttft_tpot_token_hist *h)
{
    char what[128];
    uint64_t total = 0;
    double lo = 0, hi = 0, sum = (double)item->v[1];
    size_t k;
    memset(h, 0, sizeof *h);
    for (k = 0; k < item->n; k++) {
        uint64_t b = item->bucket[k], c = item->count[k];
        if (b >= TTFT_TPOT_TOKEN_BOUNDS || !ttft_tpot__scale_bound(scale, (unsigned)b) || !c || (k && b <= item->bucket[k - 1]) || c > item->v[0] - total) {
            snprintf(what, sizeof what, "# %s: expected KEY,COUNT,SUM,I:C ... with at most COUNT values in the "
                     "buckets, ascending", head);
            return ttft_tpot__serve_refuse(item, what, NULL, 0);
        }
        total += c;
        lo += (double)c * (double)(b ? ttft_tpot__scale_bound(scale, (unsigned)b - 1) : 0);
        hi += (double)c * (double)ttft_tpot__scale_bound(scale, (unsigned)b);
        h->bucket[b] = c;
    }
    lo += (double)(item->v[0] - total) *
          (double)ttft_tpot__scale_bound(scale, scale == 2 ? 6u : scale ? 12u : TTFT_TPOT_TOKEN_BOUNDS - 1u);
    if (sum < lo * (1 - 1e-9) || (total == item->v[0] && sum > hi * (1 + 1e-9))) {
        snprintf(what, sizeof what, "# %s: a sum no values in its buckets can make: ", head);
        return ttft_tpot__serve_refuse(item, what, key, strlen(key));
    }
    h->count = item->v[0], h->sum = item->v[1];
    return TTFT_TPOT_OK;
}

/* "# folded_tokens: KEY,COUNT,SUM,I:C ...": a token histogram of the folded requests
   (ttft_tpot__token_item), once a trace. Its COUNT and SUM are checked against "# folded:" when the
   whole trace is read. */
static int ttft_tpot__restore_folded_tokens(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    ttft_tpot_token_hist h;
    const char *key;
    int rc;
    if (item->metric < 0 || item->metric >= TTFT_TPOT_TOKENS_COUNT)
        return TTFT_TPOT_EINVAL;
    key = ttft_tpot__token_hists[item->metric].name;
    if ((rc = ttft_tpot__token_item(item, "folded_tokens", key, 0, &h)) != TTFT_TPOT_OK)
        return rc;
    if (r->tokens_line[item->metric])
        return ttft_tpot__serve_refuse(item, "# folded_tokens: a second line for ", key, strlen(key));
    r->folded.tok[item->metric] = h;
    r->tokens_line[item->metric] = item->line;
    return TTFT_TPOT_OK;
}

/* "# told_hist: KEY,COUNT,SUM,I:C ...": a histogram the recording layer was told
   (ttft_tpot__token_item), once a trace, joined at the end. */
static int ttft_tpot__restore_told_hist(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    ttft_tpot_token_hist h;
    const char *key;
    int rc, k = item->metric;
    if (k < 0 || k >= TTFT_TPOT_TOLD_COUNT)
        return TTFT_TPOT_EINVAL;
    key = ttft_tpot__told[k].key;
    if (ttft_tpot__told[k].kind < TTFT_TPOT_TOLD_TOKENS)
        return ttft_tpot__serve_refuse(item, "# told_hist: not a histogram (# told: KEY,VALUE): ", key, strlen(key));
    if ((rc = ttft_tpot__token_item(item, "told_hist", key, ttft_tpot__told_scale(ttft_tpot__told[k].kind),
                                    &h)) != TTFT_TPOT_OK)
        return rc;
    if (r->told.any >> k & 1u)
        return ttft_tpot__serve_refuse(item, "# told_hist: a second line for ", key, strlen(key));
    r->told.hist[k] = h;
    r->told.any |= 1u << k;
    r->told_line = item->line;
    return TTFT_TPOT_OK;
}

/* Whether the folded token histograms disagree with "# folded:": the generation one counts every
   folded request and sums their tokens; the prompt one counts at most that many and sums their prompt
   tokens (a trace without them, as 0.3 wrote, has neither). The line that says too much, what it
   says into what; 0 where they agree. */
static unsigned long ttft_tpot__tokens_disagree(const ttft_tpot__serve_reading *r, char *what, size_t cap)
{
    const ttft_tpot__tally *t = &r->folded;
    const ttft_tpot_token_hist *p = &t->tok[TTFT_TPOT_TOKENS_PROMPT], *g = &t->tok[TTFT_TPOT_TOKENS_GENERATION];
    unsigned long at_p = r->tokens_line[TTFT_TPOT_TOKENS_PROMPT], at_g = r->tokens_line[TTFT_TPOT_TOKENS_GENERATION];
    const char *pre = "# folded_tokens: request_";
    if (at_p && p->count > t->requests) {
        snprintf(what, cap, "%sprompt_tokens counts %llu values, more than the %llu # folded: requests", pre,
                 (unsigned long long)p->count, (unsigned long long)t->requests);
        return at_p;
    }
    if (at_p && !at_g) {
        snprintf(what, cap, "%sprompt_tokens without a request_generation_tokens line", pre);
        return at_p;
    }
    if (at_g && g->count != t->requests) {
        snprintf(what, cap, "%sgeneration_tokens counts %llu values, not the %llu # folded: requests", pre,
                 (unsigned long long)g->count, (unsigned long long)t->requests);
        return at_g;
    }
    if (at_g && g->sum != t->tokens) {
        snprintf(what, cap, "%sgeneration_tokens sums %llu, not the %llu # folded: tokens", pre,
                 (unsigned long long)g->sum, (unsigned long long)t->tokens);
        return at_g;
    }
    if (at_g && p->sum != t->prompt_tokens) {
        snprintf(what, cap, "%sprompt_tokens sums %llu, not the %llu # folded: prompt tokens", pre,
                 (unsigned long long)p->sum, (unsigned long long)t->prompt_tokens);
        return at_p ? at_p : at_g;
    }
    return 0;
}

/* "# buckets: NAME": the bounds the folded buckets after it count among. */
static int ttft_tpot__restore_buckets(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    if (item->set < TTFT_TPOT_BUCKETS_FINE || item->set > TTFT_TPOT_BUCKETS_VLLM_0_3)
        return TTFT_TPOT_EINVAL;
    if (r->folded_lines)
        return ttft_tpot__serve_refuse(item, "# buckets: after a # folded_metric: line (it names their bounds)", NULL, 0);
    r->buckets = item->set;
    return TTFT_TPOT_OK;
}

/* Whether the trace's directives agree with its records: no more truncated requests than events lost,
   and the dropped requests hold the refused and the truncated ones. The message goes into the
   collector's item, at the line that says too much. */
/* *acc + v, or 0 when it would pass 2^64 - 1. */
static int ttft_tpot__add_fits(uint64_t *acc, uint64_t v)
{
    return v <= UINT64_MAX - *acc ? (*acc += v, 1) : 0;
}

/* "# told: KEY,VALUE": what the recording layer was told, joined at the end (a counter's total, a
   gauge's last value; a histogram comes in "# told_hist:"). */
static int ttft_tpot__restore_told_value(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    if (item->metric < 0 || item->metric >= TTFT_TPOT_TOLD_COUNT)
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot__told[item->metric].kind >= TTFT_TPOT_TOLD_TOKENS)
        return ttft_tpot__serve_refuse(item, "# told: a histogram's values come in # told_hist: lines: ",
                                       ttft_tpot__told[item->metric].key, strlen(ttft_tpot__told[item->metric].key));
    if ((ttft_tpot__told[item->metric].kind == TTFT_TPOT_TOLD_FRACTION && item->tokens > 1000000000u) ||
        ttft_tpot__told_take(&r->told, item->metric, item->tokens) != TTFT_TPOT_OK)
        return ttft_tpot__serve_refuse(item, "# told: a fraction past 1, or a counter past 2^64 - 1: ",
                                       ttft_tpot__told[item->metric].key, strlen(ttft_tpot__told[item->metric].key));
    r->told_line = item->line;
    return TTFT_TPOT_OK;
}


/* Whether the trace's folded counts, beside the layer's finished ones (the folded among them) and every
   request held,
   stay below 2^64 in each total a writer adds them into: requests (request_success_total, by reason
   too), tokens and prompt tokens. */
static int ttft_tpot__folded_fit(const ttft_tpot_serve *s, const ttft_tpot__serve_reading *r)
{
    uint64_t held[3 + TTFT_TPOT_FINISH_COUNT] = {0}, acc;
    const ttft_tpot__tally *t[2] = {&s->finished, &r->folded}; /* s->finished holds s->folded's too */
    unsigned q;
    int k, i, ok = 1;
    held[0] = s->req.n;
    for (q = 0; q < s->req.n; q++) {
        ok &= ttft_tpot__add_fits(&held[1], s->req.list[q].tokens);
        ok &= ttft_tpot__add_fits(&held[2], s->req.list[q].prompt_tokens);
    }
    for (k = 0; ok && k < 3 + TTFT_TPOT_FINISH_COUNT; k++)
        for (i = 0, acc = held[k]; ok && i < 2; i++)
            ok = ttft_tpot__add_fits(&acc, k == 0 ? t[i]->requests : k == 1 ? t[i]->tokens : k == 2 ? t[i]->prompt_tokens
                                                                                                : t[i]->reasons[k - 3]);
    return ok;
}

static int ttft_tpot__serve_check(const ttft_tpot_serve *s, const ttft_tpot__serve_reading *r,
                                  ttft_tpot_restore_item *item)
{
    char what[200];
    unsigned long at;
    if (!ttft_tpot__folded_fit(s, r)) {
        snprintf(what, sizeof what, "# folded: its counts beside the requests held pass 2^64 - 1 "
                 "(request_success_total or a token counter would wrap)");
        item->line = r->folded_line ? r->folded_line : r->counts_line;
    } else if ((at = ttft_tpot__tokens_disagree(r, what, sizeof what)) != 0) {
        item->line = at;
    } else if (!ttft_tpot__told_fits(&s->told, &r->told)) {
        snprintf(what, sizeof what, "# told: a counter beside the collector's passes 2^64 - 1");
        item->line = r->told_line;
    } else if (r->truncated > r->lost) {
        snprintf(what, sizeof what, "# truncated: %llu truncated requests, more than the %llu events the trace lost "
                 "(# counts: events_lost)", (unsigned long long)r->truncated, (unsigned long long)r->lost);
        item->line = r->truncated_line;
    } else if (r->truncated > r->dropped || r->refused > r->dropped - r->truncated) {
        snprintf(what, sizeof what, "# counts: requests_dropped=%llu is less than the truncated requests and "
                 "requests_refused (%.0f)", (unsigned long long)r->dropped, (double)r->truncated + (double)r->refused);
        item->line = r->counts_line;
    } else {
        return TTFT_TPOT_OK;
    }
    if (item->err && item->errlen)
        snprintf(item->err, item->errlen, "%s", what);
    return TTFT_TPOT_EPARSE;
}

/* The whole trace was read: its losses, limits and folded requests join the layer, and its finished
   requests are counted live. */
static void ttft_tpot__serve_commit(ttft_tpot_serve *s, const ttft_tpot__serve_reading *r)
{
    unsigned k;
    s->req.dropped += r->dropped;
    s->req.refused += r->refused;
    s->req.events_lost += r->lost;
    for (k = 0; k < 2; k++) /* the recording layer's limits, for the warnings: the first known */
        if ((r->limits & ~s->full_known) >> k & 1u) {
            s->full_at[k] = r->limit[k];
            s->full_known |= 1u << k;
        }
    for (k = r->old_n; k < s->req.n && !s->no_live; k++)
        if (s->req.list[k].finished)
            ttft_tpot__fold(s, &s->finished, k);
    ttft_tpot__tally_add(&s->folded, &r->folded);
    ttft_tpot__tally_add(&s->finished, &r->folded);
    if (r->folded.requests && !r->tokens_line[TTFT_TPOT_TOKENS_GENERATION])
        s->tokens_unknown = 3u; /* folded requests without their token counts: the histograms leave out */
    ttft_tpot__told_join(&s->told, &r->told); /* fits: checked */
}

/* The collector's items: BEGIN (a reading of the layer's), COUNTS (its keys), COMMIT (checked, then
   joined) and ROLLBACK (back to BEGIN). */
static int ttft_tpot__serve_restore_hook(void *state, ttft_tpot_restore_item *item)
{
    ttft_tpot_serve *s = (ttft_tpot_serve *)state;
    ttft_tpot__serve_reading *r = (ttft_tpot__serve_reading *)s->reading;
    int rc = TTFT_TPOT_OK;
    if (item->kind == TTFT_TPOT_RESTORE_BEGIN) {
        if (!(r = (ttft_tpot__serve_reading *)TTFT_TPOT_MALLOC(sizeof *r, s->layer.alloc_user)))
            return TTFT_TPOT_ENOMEM;
        memset(r, 0, sizeof *r);
        r->old_n = s->req.n, r->old_events = s->req.n_events; /* its folded buckets: fine, but for a "# buckets:" line */
        s->reading = r;
        return TTFT_TPOT_OK;
    }
    if (!r)
        return TTFT_TPOT_OK;
    if (item->kind == TTFT_TPOT_RESTORE_COUNTS) {
        r->dropped += item->v[TTFT_TPOT_COUNT_requests_dropped];
        r->refused += item->v[TTFT_TPOT_COUNT_requests_refused];
        r->lost += item->v[TTFT_TPOT_COUNT_events_lost];
        if ((item->given >> TTFT_TPOT_COUNT_max_requests & 1u) && !(r->limits & 1u))
            r->limit[0] = item->v[TTFT_TPOT_COUNT_max_requests], r->limits |= 1u;
        if ((item->given >> TTFT_TPOT_COUNT_max_request_events & 1u) && !(r->limits & 2u))
            r->limit[1] = item->v[TTFT_TPOT_COUNT_max_request_events], r->limits |= 2u;
        r->counts_line = item->line;
        return TTFT_TPOT_OK;
    }
    if (item->kind == TTFT_TPOT_RESTORE_COMMIT && (rc = ttft_tpot__serve_check(s, r, item)) == TTFT_TPOT_OK)
        ttft_tpot__serve_commit(s, r);
    else if (item->kind == TTFT_TPOT_RESTORE_COMMIT || item->kind == TTFT_TPOT_RESTORE_ROLLBACK)
        ttft_tpot__requests_rollback(s, r->old_n, r->old_events);
    else
        return TTFT_TPOT_OK;
    if (rc != TTFT_TPOT_OK) /* the collector rolls back and tells us: nothing more to undo then */
        return rc;
    TTFT_TPOT_FREE(r, s->layer.alloc_user);
    s->reading = NULL;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_serve_restore(ttft_tpot_serve *s, ttft_tpot_serve_item *item)
{
    if (!s || !item || !s->reading)
        return TTFT_TPOT_EINVAL;
    switch (item->kind) {
    case TTFT_TPOT_SERVE_EVENT:
        return item->point == TTFT_TPOT_POINT_SUBMIT || item->point == TTFT_TPOT_POINT_LAST
                   ? ttft_tpot__restore_event(s, item) : TTFT_TPOT_EINVAL;
    case TTFT_TPOT_SERVE_MARK:
        return ttft_tpot__restore_mark(s, item);
    case TTFT_TPOT_SERVE_TRUNCATED:
        return ttft_tpot__restore_truncated(s, item);
    case TTFT_TPOT_SERVE_FINISHED:
    case TTFT_TPOT_SERVE_FINISH_REASON:
    case TTFT_TPOT_SERVE_PROMPT_TOKENS:
        return ttft_tpot__restore_told(s, item);
    case TTFT_TPOT_SERVE_FOLDED:
        return ttft_tpot__restore_folded(s, item);
    case TTFT_TPOT_SERVE_FOLDED_METRIC:
        return ttft_tpot__restore_folded_metric(s, item);
    case TTFT_TPOT_SERVE_BUCKETS:
        return ttft_tpot__restore_buckets(s, item);
    case TTFT_TPOT_SERVE_TOLD:
        return ttft_tpot__restore_told_value(s, item);
    case TTFT_TPOT_SERVE_FOLDED_TOKENS:
        return ttft_tpot__restore_folded_tokens(s, item);
    case TTFT_TPOT_SERVE_TOLD_HIST:
        return ttft_tpot__restore_told_hist(s, item);
    default:
        return TTFT_TPOT_EINVAL;
    }
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- The layer: its hooks -------------------------------------------------------------------- */

/* A clear: the requests, their events and what the tables lost go; the live exposition's counters go on. */
static void ttft_tpot__serve_clear(void *state)
{
    ttft_tpot_serve *s = (ttft_tpot_serve *)state;
    s->refused_cleared += s->req.refused;
    s->dropped_cleared += s->req.dropped;
    ttft_tpot__made(s, 0, s->made_cleared); /* the live token counters never fall */
    memset(&s->folded, 0, sizeof s->folded);
    s->tokens_unknown &= ~1u; /* the report's interval starts again; the live counts go on */
    ttft_tpot__requests_clear(s);
    s->rejected = 0;
    memset(s->full_at, 0, sizeof s->full_at);
    s->full_known = 0;
}

/* Whether dst's tables have room for src's requests and events, with reqs requests and events of
   dst's gone. */
static int ttft_tpot__merge_fits(const ttft_tpot_serve *dst, const ttft_tpot_serve *src, unsigned reqs, size_t events)
{
    return src->req.n <= dst->req.max - (dst->req.n - reqs) &&
           src->req.n_events <= dst->req.max_events - (dst->req.n_events - events);
}

/* A merge of src's requests: planned (the same bucket bounds, new ids only, room for all, where need
   be once dst's finished requests are folded away, as a submit makes room: OK, EINVAL, EREQUEST,
   EFULL; nothing changed, as the merge may yet be refused), then done (the folding first). */
static int ttft_tpot__serve_merge(void *state, const void *from, int plan)
{
    ttft_tpot_serve *dst = (ttft_tpot_serve *)state;
    const ttft_tpot_serve *src = (const ttft_tpot_serve *)from;
    unsigned p, k;
    size_t e;
    if (plan) {
        if (dst->buckets != src->buckets) /* counts kept in other bounds cannot be added */
            return TTFT_TPOT_EINVAL;
        if (!ttft_tpot__told_fits(&dst->told, &src->told)) /* nor counters past 2^64 - 1 */
            return TTFT_TPOT_EINVAL;
        for (p = 0; p < src->req.n; p++)
            if (ttft_tpot__request_find(dst, src->req.list[p].id, strlen(src->req.list[p].id)) >= 0)
                return TTFT_TPOT_EREQUEST;
        if (ttft_tpot__merge_fits(dst, src, 0, 0))
            return TTFT_TPOT_OK;
        ttft_tpot__fold_room(dst, &p, &e);
        return dst->req.max && ttft_tpot__merge_fits(dst, src, p, e) ? TTFT_TPOT_OK : TTFT_TPOT_EFULL;
    }
    if (!ttft_tpot__merge_fits(dst, src, 0, 0))
        (void)ttft_tpot__fold_away(dst); /* every figure keeps them; the report says how many */
    ttft_tpot__requests_merge(dst, src);
    dst->rejected += src->rejected;
    ttft_tpot__told_join(&dst->told, &src->told); /* counters add; a gauge src was told is src's */
    for (k = 0; k < 2; k++)
        if ((src->full_known & ~dst->full_known) >> k & 1u) {
            dst->full_at[k] = src->full_at[k];
            dst->full_known |= 1u << k;
        }
    return TTFT_TPOT_OK;
}

/* Its figures for model m: m->layer, and whether they have something to report and lead the text. */
static int ttft_tpot__serve_compute(void *state, ttft_tpot_model *m)
{
    const ttft_tpot_serve *s = (const ttft_tpot_serve *)state;
    ttft_tpot_serve_model *f = (ttft_tpot_serve_model *)TTFT_TPOT_MALLOC(sizeof *f, s->layer.alloc_user);
    int rc;
    if (!f)
        return TTFT_TPOT_ENOMEM;
    memset(f, 0, sizeof *f);
    m->layer = f;
    if ((rc = ttft_tpot__serve_figures_of(s, f, m->skipped)) != TTFT_TPOT_OK)
        return rc; /* the collector frees m, and f with it */
    m->layer_report = (f->has_requests ? (unsigned)TTFT_TPOT_LAYER_SEEN : 0u) |
                      (f->has_requests && f->requests.n > 0 ? (unsigned)TTFT_TPOT_LAYER_LEADS : 0u);
    return TTFT_TPOT_OK;
}

static void ttft_tpot__serve_model_free(void *state, ttft_tpot_model *m)
{
    const ttft_tpot_serve *s = (const ttft_tpot_serve *)state;
    ttft_tpot_serve_model *f = (ttft_tpot_serve_model *)m->layer;
    if (f->slices)
        TTFT_TPOT_FREE(f->slices, s->layer.alloc_user);
    TTFT_TPOT_FREE(f, s->layer.alloc_user);
    m->layer = NULL;
}

/* What it lost, for the collector's reports and its trace's "# counts:" line. */
static void ttft_tpot__serve_counts(const void *state, ttft_tpot_layer_counts *k)
{
    const ttft_tpot_serve *s = (const ttft_tpot_serve *)state;
    k->rejected = s->rejected;
    k->requests_dropped = s->req.dropped;
    k->requests_refused = s->req.refused;
    k->events_lost = s->req.events_lost;
    k->max_requests = s->full_known & 1u ? s->full_at[0] : s->req.max;
    k->max_request_events = s->full_known & 2u ? s->full_at[1] : s->req.max_events;
}

/* ---- The layer: attaching and reading -------------------------------------------------------- */

/* Label key="value" (config.model_name: at most 127 bytes; engine: 31) after s->model_label, its '\\' and
   '"' escaped: OK, or EINVAL (too long, not UTF-8, a newline or a brace). "": none. */
static int ttft_tpot__model_label(ttft_tpot_serve *s, const char *key, const char *name, size_t most)
{
    size_t i, k, n = strlen(s->model_label), len = strlen(name);
    if (len > most)
        return TTFT_TPOT_EINVAL;
    if (len == 0) /* none */
        return TTFT_TPOT_OK;
    if (n)
        s->model_label[n++] = ',';
    memcpy(s->model_label + n, key, strlen(key)); /* the labels' room holds both at their longest */
    n += strlen(key);
    s->model_label[n++] = '=';
    s->model_label[n++] = '"';
    for (i = 0; i < len; i += k) {
        k = name[i] == '\n' || name[i] == '{' || name[i] == '}' ? 0
            : ttft_tpot__utf8_at((const unsigned char *)name + i, len - i);
        if (k == 0) {
            s->model_label[0] = '\0';
            return TTFT_TPOT_EINVAL;
        }
        if (name[i] == '\\' || name[i] == '"')
            s->model_label[n++] = '\\';
        memcpy(s->model_label + n, name + i, k);
        n += k;
    }
    s->model_label[n++] = '"';
    s->model_label[n] = '\0';
    return TTFT_TPOT_OK;
}

/* An engine step the collector timed (a prefill or decode span as it ends: ttft_tpot_layer.sample), but
   in a warmup section: its tokens, prompt and generated, for vLLM's iteration_tokens_total; with
   config.num_speculative_tokens k, a decode span given its sequences also counts vLLM's
   spec_decode_*: a draft and k draft tokens a sequence, and the tokens past each sequence's one
   accepted (0 where every draft was rejected). A step of more than k + 1 tokens a sequence cannot be
   spec decoding with k: it counts there not at all, and as rejected. A total past 2^64 - 1 stays. */
static void ttft_tpot__serve_sample(void *state, const ttft_tpot_layer_sample *x)
{
    ttft_tpot_serve *s = (ttft_tpot_serve *)state;
    if (s->layer.warmup)
        return;
    (void)ttft_tpot__told_take(&s->told, TTFT_TPOT_TOLD_ITERATION_TOKENS, x->prompt + x->tokens);
    if (!s->spec_k || !x->sequences || x->role != TTFT_TPOT_ROLE_DECODE)
        return;
    if (x->tokens - x->sequences > (uint64_t)x->sequences * s->spec_k) { /* tokens >= sequences: checked */
        s->rejected += s->layer.refusal;
        return;
    }
    (void)ttft_tpot__told_take(&s->told, TTFT_TPOT_TOLD_SPEC_DECODE_DRAFTS, x->sequences);
    (void)ttft_tpot__told_take(&s->told, TTFT_TPOT_TOLD_SPEC_DECODE_DRAFT_TOKENS, (uint64_t)x->sequences * s->spec_k);
    (void)ttft_tpot__told_take(&s->told, TTFT_TPOT_TOLD_SPEC_DECODE_ACCEPTED_TOKENS, x->tokens - x->sequences);
}

/* The tables cfg asks for, in one allocation: the requests, their events, then the index. */
static int ttft_tpot__serve_tables(ttft_tpot_serve *s, const ttft_tpot_serve_config *cfg)
{
    size_t requests = cfg ? cfg->max_requests : 0, events, slots = 2;
    unsigned char *mem;
    if (requests > (1u << 24))
        return TTFT_TPOT_EINVAL;
    /* 4096 events a request by default: a long generation fits; 64 KiB a request of address space,
       touched only as events arrive */
    events = !requests ? 0 : cfg->max_request_events ? cfg->max_request_events
             : (uint64_t)requests * 4096 < UINT32_MAX ? requests * 4096 : UINT32_MAX;
    if ((uint64_t)events > UINT32_MAX)
        return TTFT_TPOT_EINVAL;
    if (!requests)
        return TTFT_TPOT_OK;
    while (slots < 2 * requests)
        slots <<= 1;
    mem = (unsigned char *)TTFT_TPOT_MALLOC(requests * sizeof *s->req.list + events * sizeof *s->req.events +
                                                slots * sizeof *s->req.index, s->layer.alloc_user);
    if (!mem)
        return TTFT_TPOT_ENOMEM;
    s->owned = mem;
    s->req.list = (ttft_tpot_request *)(void *)mem;
    s->req.events = (ttft_tpot_request_event *)(void *)(s->req.list + requests);
    s->req.index = (uint32_t *)(void *)(s->req.events + events);
    s->req.max = (unsigned)requests, s->req.max_events = events, s->req.mask = (uint32_t)slots - 1;
    memset(s->req.index, 0, slots * sizeof *s->req.index);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_serve_attach(ttft_tpot_serve *s, ttft_tpot *c, const ttft_tpot_serve_config *cfg)
{
    int rc;
    if (!s)
        return TTFT_TPOT_EINVAL;
    memset(s, 0, sizeof *s);
    if (!c || (cfg && cfg->buckets != TTFT_TPOT_BUCKETS_FINE && cfg->buckets != TTFT_TPOT_BUCKETS_VLLM) ||
        (cfg && cfg->model_name && ttft_tpot__model_label(s, "model_name", cfg->model_name, 127) != TTFT_TPOT_OK) ||
        (cfg && cfg->engine && ttft_tpot__model_label(s, "engine", cfg->engine, 31) != TTFT_TPOT_OK)) {
        memset(s, 0, sizeof *s); /* a label made before the one refused goes too */
        return TTFT_TPOT_EINVAL;
    }
    s->layer.name = "serve";
    s->layer.state = s;
    s->layer.clear = ttft_tpot__serve_clear;
    s->layer.merge = ttft_tpot__serve_merge;
    s->layer.compute = ttft_tpot__serve_compute;
    s->layer.model_free = ttft_tpot__serve_model_free;
    s->layer.counts = ttft_tpot__serve_counts;
    s->layer.sample = ttft_tpot__serve_sample;
#ifndef TTFT_TPOT_NO_STDIO
    s->layer.text = ttft_tpot__serve_text;
    s->layer.json = ttft_tpot__serve_json;
    s->layer.trace = ttft_tpot__serve_trace;
#endif
#ifndef TTFT_TPOT_NO_STDIO
    s->layer.restore = ttft_tpot__serve_restore_hook;
#endif
    if ((rc = ttft_tpot_attach(c, &s->layer)) != TTFT_TPOT_OK) { /* first: it gives the allocator */
        memset(s, 0, sizeof *s);
        return rc;
    }
    if ((rc = ttft_tpot__serve_tables(s, cfg)) != TTFT_TPOT_OK) {
        ttft_tpot_attach(c, NULL);
        memset(s, 0, sizeof *s);
        return rc;
    }
    s->owner = c;
    s->request_window = cfg ? cfg->request_window : 0;
    s->slice_ns = cfg ? cfg->slice_ns : 0;
    s->buckets = cfg ? cfg->buckets : TTFT_TPOT_BUCKETS_FINE;
    s->max_model_len = cfg ? cfg->max_model_len : 0;
    s->no_live = cfg ? cfg->no_live != 0 : 0;
    s->spec_k = cfg ? cfg->num_speculative_tokens : 0;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF void ttft_tpot_serve_free(ttft_tpot_serve *s)
{
    if (!s)
        return;
    if (s->layer.c && s->layer.c == s->owner && s->owner->layer == &s->layer)
        ttft_tpot_attach(s->owner, NULL); /* the collector it was attached to */
    if (s->reading)
        TTFT_TPOT_FREE(s->reading, s->layer.alloc_user);
    if (s->grown & 1u) {
        TTFT_TPOT_FREE(s->req.list, s->layer.alloc_user);
        TTFT_TPOT_FREE(s->req.index, s->layer.alloc_user);
    }
    if (s->grown & 2u)
        TTFT_TPOT_FREE(s->req.events, s->layer.alloc_user);
    if (s->owned)
        TTFT_TPOT_FREE(s->owned, s->layer.alloc_user);
    memset(s, 0, sizeof *s);
}

TTFT_TPOT_DEF ttft_tpot_serve *ttft_tpot_serve_of(const ttft_tpot *c)
{
    return c && c->layer && c->layer->name && strcmp(c->layer->name, "serve") == 0 ? (ttft_tpot_serve *)c->layer->state
                                                                                 : NULL;
}

TTFT_TPOT_DEF const ttft_tpot_serve_model *ttft_tpot_serve_figures(const ttft_tpot_model *m)
{
    return m && m->layer && !(m->skipped & TTFT_TPOT_SKIP_LAYER) && ttft_tpot_serve_of(m->collector)
               ? (const ttft_tpot_serve_model *)m->layer : NULL;
}

TTFT_TPOT_DEF int ttft_tpot_requests_summary(const ttft_tpot_serve *s, ttft_tpot_requests *out)
{
    int rc;
    if (!s || !out)
        return TTFT_TPOT_EINVAL;
    rc = ttft_tpot__requests_of(s, out);
    ttft_tpot__folded_figures(s, out);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_metric_values(const ttft_tpot_serve *s, int metric, uint64_t *out, size_t cap, size_t *n)
{
    uint64_t *x, *last;
    if (!s || !n || metric < 0 || metric >= TTFT_TPOT_METRIC_COUNT)
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot__request_work(s, &x, &last) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    *n = ttft_tpot__request_set(s, metric, 0, 1, x, last);
    if (out)
        memcpy(out, x, (*n < cap ? *n : cap) * sizeof *out);
    TTFT_TPOT_FREE(x, s->layer.alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_event_at(const ttft_tpot_serve *s, size_t i, ttft_tpot_request_event *out,
                                             size_t *n)
{
    if (s && n)
        *n = s->req.n_events;
    if (!s || !out || i >= s->req.n_events)
        return TTFT_TPOT_EINVAL;
    *out = s->req.events[i];
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_values_of(const ttft_tpot_serve *s, const ttft_tpot_request *q,
                                              ttft_tpot_request_values *out)
{
    int m, k;
    if (!s || !q || !out)
        return TTFT_TPOT_EINVAL;
    memset(out, 0, sizeof *out);
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (!ttft_tpot__has_metric(q, m))
            continue;
        out->has |= 1u << m;
        out->ns[m] = ttft_tpot__span_ns(q, m);
        out->over[m] = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN ? q->tokens - 1 : 1;
    }
    out->measured = ttft_tpot__measured(q);
    for (k = 0; k < 3; k++) /* as goodput counts them */
        out->slo[k] = q->token_events ? ttft_tpot__slo_met(s, q, k) : -1;
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
