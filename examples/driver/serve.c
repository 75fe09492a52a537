/* serve.c - the driver's serving mode: requests arrive as a Poisson process, wait for a free slot,
   are prefilled as soon as one is free (prefill first, as vLLM schedules), then decode together in
   one batch that grows and shrinks as requests come and go (continuous batching). Each request's
   lifecycle goes to the collector: its submit at its arrival time, so queueing counts in its TTFT,
   its schedule when its prefill begins (TTFT = queue time + prefill), and every token as it is
   produced; decode batches are reported a row a batch size. A batch size not seen before is a warmup step (graph capture
   on an accelerator): decode and prefill spans carry the batch size as their shape key. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#endif
#include "driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct request {
    uint64_t arrive_ns; /* after the start of serving */
    int slot;           /* -1: not (or no longer) in the batch */
    int produced, next;
    int first[8]; /* the first tokens, printed when the request is done */
    char id[64];
} request;

typedef struct server {
    driver *g;
    request *req;
    int n, *slot_req; /* the request in each slot, -1 free */
    int finished;
    uint64_t t0;
    ttft_tpot_publisher *pub; /* --prometheus-every: the live exposition, published at next_pub */
    FILE *log;                /* --request-log, or NULL */
    uint64_t next_pub;
} server;

/* --request-log: the request's points as the collector holds them, before it may fold away. */
static void log_request(server *s, const char *id)
{
    ttft_tpot_request q;
    if (s->log && ttft_tpot_request_get(&s->g->srv, id, &q) == TTFT_TPOT_OK)
        fprintf(s->log, "%s,%llu,%llu,%llu,%llu\n", id, (unsigned long long)q.submit_ns,
                (unsigned long long)q.first_ns, (unsigned long long)q.last_ns, (unsigned long long)q.tokens);
}

static void take_token(server *s, int r, int token)
{
    request *q = &s->req[r];
    if (q->produced < 8)
        q->first[q->produced] = token;
    q->produced++;
    q->next = token;
    ttft_tpot_request_tokens(&s->g->srv, q->id, TTFT_TPOT_NOW, 1);
    if (q->produced == s->g->o.max_new_tokens) { /* done: the slot is free for the next request */
        int k;
        /* its token limit reached: a live exposition counts it from now on */
        ttft_tpot_request_finish(&s->g->srv, q->id, TTFT_TPOT_FINISH_LENGTH);
        /* its parameters, as vLLM observes them at its finish: max_tokens, n (one sequence), and the
           most tokens of its sequences */
        ttft_tpot_serve_tell(&s->g->srv, TTFT_TPOT_TOLD_PARAMS_MAX_TOKENS, (double)s->g->o.max_new_tokens);
        ttft_tpot_serve_tell(&s->g->srv, TTFT_TPOT_TOLD_PARAMS_N, 1);
        ttft_tpot_serve_tell(&s->g->srv, TTFT_TPOT_TOLD_MAX_NUM_GENERATION_TOKENS, (double)q->produced);
        ttft_tpot_serve_tell(&s->g->srv, TTFT_TPOT_TOLD_REQUEST_NUM_PREEMPTIONS, 0); /* never preempted */
        log_request(s, q->id);
        printf("%s: %d tokens:", q->id, q->produced);
        for (k = 0; k < q->produced && k < 8; k++)
            printf(" %d", q->first[k]);
        printf(q->produced > 8 ? " ...\n" : "\n");
        s->slot_req[q->slot] = -1;
        q->slot = -1;
        s->finished++;
    }
}

/* --prometheus-every: publish the live exposition when its time has come (force: now). 0, or -2 after a
   message. */
static int publish(server *s, int force)
{
    const options *o = &s->g->o;
    uint64_t now = ttft_tpot_clock_now(&s->g->tp);
    int rc;
    if (!s->pub || (!force && now < s->next_pub))
        return 0;
    s->next_pub = now + (uint64_t)(o->prometheus_every * 1e9);
    rc = ttft_tpot_publish_file(&s->g->srv, s->pub, o->prometheus, o->prom_prefix, o->prom_labels);
    if (rc == TTFT_TPOT_OK)
        return 0;
    fprintf(stderr, "generate: --prometheus-every: writing %s failed: %s\n", o->prometheus, ttft_tpot_strerror(rc));
    return -2;
}

/* Prefill the requests waiting from *admit on, as many as there are free slots, in one dispatch. */
static int prefill_new(server *s, int *admit, int arrived)
{
    driver *g = s->g;
    int slots[256], who[256], n = 0, i, rc, len = (int)g->o.prompt_len;
    for (i = 0; i < (int)g->o.batch && *admit < arrived; i++)
        if (s->slot_req[i] < 0) {
            request *q = &s->req[*admit];
            /* each request its own prompt */
            make_prompt(g, g->o.seed * 1000003u + (uint64_t)*admit, g->prompt + (size_t)n * (size_t)len, (size_t)len);
            q->slot = i;
            s->slot_req[i] = *admit;
            slots[n] = i;
            who[n++] = (*admit)++;
        }
    if (n == 0)
        return 0;
    for (i = 0; i < n; i++) /* scheduled: their wait in the queue ends, their prefill begins */
        ttft_tpot_request_mark(&g->srv, s->req[who[i]].id, TTFT_TPOT_POINT_SCHEDULE, TTFT_TPOT_NOW);
    rc = dispatch(g, 1, n, slots, NULL); /* its span counts the step's tokens (iteration_tokens_total) */
    for (i = 0; rc == 0 && i < n; i++)
        take_token(s, who[i], g->next[i]);
    return rc;
}

/* One decode step of every request in the batch. */
static int decode_batch(server *s, int *stepped)
{
    driver *g = s->g;
    int slots[256], who[256], toks[256], n = 0, i, rc;
    for (i = 0; i < (int)g->o.batch; i++)
        if (s->slot_req[i] >= 0) {
            slots[n] = i;
            who[n] = s->slot_req[i];
            toks[n++] = s->req[s->slot_req[i]].next;
        }
    *stepped = n > 0;
    if (n == 0)
        return 0;
    rc = dispatch(g, 0, n, slots, toks);
    for (i = 0; rc == 0 && i < n; i++)
        take_token(s, who[i], g->next[i]);
    return rc;
}

/* Wait for the next arrival: the server is idle, as a real one is between requests. */
static void wait_until(const driver *g, uint64_t t)
{
    uint64_t now = ttft_tpot_clock_now(&g->tp);
    if (t > now) {
        struct timespec ts;
        uint64_t d = t - now < 1000000000u ? t - now : 999999999u;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)d;
        nanosleep(&ts, NULL);
    }
}

int serve_requests(driver *g)
{
    server s;
    uint64_t rng = g->o.seed ^ 0xa77u, t = 0;
    int i, arrived = 0, admit = 0, rc = 0, stepped;
    unsigned cap = driver_max_requests(&g->o); /* the requests the collector holds in flight */
    memset(&s, 0, sizeof s);
    s.g = g;
    s.n = (int)g->o.requests;
    s.req = (request *)calloc((size_t)s.n, sizeof *s.req);
    s.slot_req = (int *)malloc((size_t)g->o.batch * sizeof *s.slot_req);
    s.pub = g->o.prometheus_every > 0 ? (ttft_tpot_publisher *)calloc(1, sizeof *s.pub) : NULL;
    if (!s.req || !s.slot_req || (g->o.prometheus_every > 0 && !s.pub)) {
        free(s.req);
        free(s.slot_req);
        free(s.pub);
        return -1;
    }
    if (g->o.request_log && !(s.log = fopen(g->o.request_log, "w"))) {
        fprintf(stderr, "generate: --request-log: cannot write %s\n", g->o.request_log);
        rc = -2;
    }
    if (s.log)
        fputs("id,submit_ns,first_token_ns,last_token_ns,tokens\n", s.log);
    for (i = 0; i < (int)g->o.batch; i++)
        s.slot_req[i] = -1;
    for (i = 0; i < s.n; i++) { /* Poisson arrivals: exponential gaps of mean 1/rate, from the seed */
        if (g->o.arrival_rate > 0) {
            double u;
            u = ((double)(driver_rand(&rng) >> 11) + 1.0) / 9007199254740993.0; /* in (0, 1] */
            t += (uint64_t)(-log(u) / g->o.arrival_rate * 1e9);
        }
        s.req[i].arrive_ns = t;
        s.req[i].slot = -1;
        snprintf(s.req[i].id, sizeof s.req[i].id, "%s%d", g->o.id_prefix ? g->o.id_prefix : "req-", i);
    }
    s.t0 = ttft_tpot_clock_now(&g->tp);
    rc = rc ? rc : publish(&s, 1); /* every series from 0, before the first request: increase() sees them all */
    while (s.finished < s.n && rc == 0) {
        uint64_t now = ttft_tpot_clock_now(&g->tp) - s.t0;
        /* submitted at the time it arrived, once the collector's table has room for it in flight: a server
           that falls behind queues its requests here, their wait still in their TTFT, none refused */
        while (arrived < s.n && s.req[arrived].arrive_ns <= now && (unsigned)(arrived - s.finished) < cap) {
            ttft_tpot_request_mark(&g->srv, s.req[arrived].id, TTFT_TPOT_POINT_SUBMIT, s.t0 + s.req[arrived].arrive_ns);
            ttft_tpot_request_prompt(&g->srv, s.req[arrived].id, (uint64_t)g->o.prompt_len); /* prompt_tokens_total */
            ttft_tpot_request_cached(&g->srv, s.req[arrived].id, 0); /* no prefix cache: every prompt token computed */
            arrived++;
        }
        if (admit < arrived) {
            int before = admit;
            rc = prefill_new(&s, &admit, arrived);
            if (admit > before)
                continue; /* prefill first: new requests get their first token before the batch steps */
        }
        rc = rc ? rc : decode_batch(&s, &stepped);
        rc = rc ? rc : publish(&s, 0);
        if (rc == 0 && !stepped && arrived < s.n) { /* idle until the next arrival, or the next publication */
            uint64_t wake = s.t0 + s.req[arrived].arrive_ns;
            wait_until(g, s.pub && s.next_pub < wake ? s.next_pub : wake);
        }
    }
    rc = rc ? rc : publish(&s, 1); /* the last: every request finished */
    if (s.log && (fclose(s.log) != 0) && rc == 0) {
        fprintf(stderr, "generate: --request-log: writing %s failed\n", g->o.request_log);
        rc = -2;
    }
    free(s.req);
    free(s.slot_req);
    free(s.pub);
    return rc;
}
