/* devq.c - the asynchronous device of the example driver (devq.h): a ring of commands, a mutex and
   two condition variables, one device thread. */
#include "devq.h"

#include "ttft_tpot.h"

#include <pthread.h>
#include <stdlib.h>

enum { DEVQ_RING = 1024, DEVQ_EVENTS = 4096 };

typedef struct devq_cmd {
    devq_fn fn; /* NULL: an event */
    void *ctx;
    int arg;
} devq_cmd;

struct devq {
    pthread_mutex_t mu;
    pthread_cond_t work, idle; /* work: a command came (or quit); idle: one finished */
    pthread_t thread;
    devq_cmd ring[DEVQ_RING];
    unsigned head, tail;       /* ring[head, tail) waits; both count up, modulo DEVQ_RING */
    int busy, quit, failed;
    unsigned events;           /* events enqueued since the last sync */
    uint64_t offset, tick;
    uint64_t stamp[DEVQ_EVENTS];
};

uint64_t devq_now(const devq *q)
{
    uint64_t t = ttft_tpot_clock_now(NULL) + q->offset; /* the platform clock, as the host's */
    return t - t % q->tick;
}

static void *devq_main(void *arg)
{
    devq *q = (devq *)arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        devq_cmd cmd;
        int rc = 0;
        while (q->head == q->tail && !q->quit)
            pthread_cond_wait(&q->work, &q->mu);
        if (q->head == q->tail)
            break;
        cmd = q->ring[q->head % DEVQ_RING];
        q->busy = 1;
        pthread_mutex_unlock(&q->mu);
        if (cmd.fn)
            rc = cmd.fn(cmd.ctx, cmd.arg);
        else /* an event: stamped when the device reaches it */
            q->stamp[cmd.arg] = devq_now(q);
        pthread_mutex_lock(&q->mu);
        q->head++;
        q->busy = 0;
        if (rc && !q->failed)
            q->failed = rc;
        pthread_cond_broadcast(&q->idle);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

devq *devq_create(uint64_t offset_ns, uint64_t tick_ns)
{
    devq *q = (devq *)calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->offset = offset_ns;
    q->tick = tick_ns ? tick_ns : 1;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->idle, NULL);
    if (pthread_create(&q->thread, NULL, devq_main, q) != 0) {
        free(q);
        return NULL;
    }
    return q;
}

void devq_destroy(devq *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->quit = 1;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->idle);
    free(q);
}

void devq_launch(devq *q, devq_fn fn, void *ctx, int arg)
{
    pthread_mutex_lock(&q->mu);
    while (q->tail - q->head == DEVQ_RING) /* full: a launch blocks, as a full stream does */
        pthread_cond_wait(&q->idle, &q->mu);
    q->ring[q->tail % DEVQ_RING].fn = fn;
    q->ring[q->tail % DEVQ_RING].ctx = ctx;
    q->ring[q->tail % DEVQ_RING].arg = arg;
    q->tail++;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
}

unsigned devq_event(devq *q)
{
    unsigned ev = q->events++ % DEVQ_EVENTS; /* only the host counts events */
    devq_launch(q, NULL, NULL, (int)ev); /* a command without a kernel: an event */
    return ev;
}

int devq_sync(devq *q)
{
    int rc;
    pthread_mutex_lock(&q->mu);
    while (q->head != q->tail || q->busy)
        pthread_cond_wait(&q->idle, &q->mu);
    rc = q->failed;
    q->failed = 0;
    q->events = 0;
    pthread_mutex_unlock(&q->mu);
    return rc;
}

uint64_t devq_event_time(const devq *q, unsigned ev)
{
    return q->stamp[ev % DEVQ_EVENTS];
}
