/* ranks.h - ttft_tpot_report --ranks: the traces of the tensor-parallel ranks of one model. A step
   waits for its slowest rank, so pooling the ranks' samples is the wrong statistic: the k-th steady
   decode step of every rank (call order) is one step of the model, and its time is the maximum over
   the ranks. Replicas (data parallel) are pooled as before: they serve requests side by side. */
#ifndef RANKS_H
#define RANKS_H

#include "ttft_tpot_tools.h"

#include <stdio.h>

#define RANKS_MAX 256

typedef struct ranks_figures {
    int n;                         /* ranks */
    uint64_t steps;                /* steps lined up: the fewest steady decode steps a rank has */
    uint64_t unmatched;            /* steps of the other ranks past those: left out */
    ttft_tpot_stats rank[RANKS_MAX]; /* each rank's own steady decode steps */
    ttft_tpot_stats tpot;          /* the steps' maxima over the ranks */
    ttft_tpot_stats spread;        /* the steps' max - min: how far the slowest rank is ahead of the fastest */
    uint64_t slowest[RANKS_MAX];   /* steps each rank was the slowest (a tie: the lowest rank) */
} ranks_figures;

/* The figures of n ranks' collectors (each read whole, every decode step stored) into *f: 0; -1 when
   memory runs out; -2 when a rank has no steady decode step, or keeps some in a histogram. */
int ranks_compute(const ttft_tpot *const *c, int n, ranks_figures *f);

/* The text: a row a rank, then the model's step. names: the ranks' traces. */
void ranks_text(FILE *out, const ranks_figures *f, const char *const *names);

/* rank 0's report with the ranks' figures: its text then ranks_text, or its JSON object with the
   "ranks" object added (ranks_json). OK, ENOMEM, or the writer's error. */
int ranks_report(FILE *out, const ttft_tpot *rank0, const ranks_figures *f, const char *const *names, int json);

/* The JSON object "ranks":{"n":N,"steps":M,"unmatched":K,"tpot":STATS,"slowest":[...],"spread":STATS,
   "per_rank":[STATS,...]} (STATS as the report's "tpot", in ms), written as a key and its value. */
void ranks_json(FILE *out, const ranks_figures *f);

#endif
