/* devq.h - an asynchronous device for the example driver: a queue of commands served by a device
   thread, in order, the way a GPU stream or an NPU queue serves launches. The host enqueues and
   returns at once; devq_sync waits until the queue is empty. The device has a clock of its own: the
   host's monotonic clock plus an offset, read in ticks (512 ns: a CUDA event's resolution), and an
   event is stamped on that clock when the device reaches it, as cudaEventRecord's is. */
#ifndef DEVQ_H
#define DEVQ_H

#include <stdint.h>

typedef struct devq devq;

/* A kernel: runs on the device thread; nonzero fails the queue (devq_sync returns it). */
typedef int (*devq_fn)(void *ctx, int arg);

/* A device whose clock reads host + offset_ns, rounded down to tick_ns. NULL when out of memory. */
devq *devq_create(uint64_t offset_ns, uint64_t tick_ns);
void devq_destroy(devq *q); /* waits for the queue to drain */

/* Enqueue fn(ctx, arg); returns at once (or when the queue is full, once there is room). */
void devq_launch(devq *q, devq_fn fn, void *ctx, int arg);

/* Enqueue an event: returns its number (0, 1, ... since the last devq_sync), whose time is set when
   the device reaches it. */
unsigned devq_event(devq *q);

/* Wait until every command enqueued so far has run: 0, or the first failing kernel's code. Event
   numbers start again from 0 afterwards, so read their times before the next devq_event. */
int devq_sync(devq *q);

/* Event ev's time on the device clock (valid after the devq_sync that follows it). */
uint64_t devq_event_time(const devq *q, unsigned ev);

/* The device clock now. */
uint64_t devq_now(const devq *q);

#endif
