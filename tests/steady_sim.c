/* ttft_tpot_steady_sim - how often the report calls a decode series "no steady state", by simulation.
   Each series is 200 decode steps (or 40: a short series, 8 batches) of 3 ms recorded through a collector (step 0 a cold 30 ms, flagged
   as every first call is), with noise of 1% sd from an AR(1) process (each step rho times the last
   deviation plus fresh normal noise, scaled so its sd stays 1%), optionally isolated spikes (each step
   3x with probability 1%) and a linear rise over the run. For each kind it prints the share of series
   where White's rule fires on the series as recorded (MSER-5's best cut in the second half: the
   report's verdict before it was checked), where it fires with the isolated spikes taken out, and
   where the report says no steady state (METRICS), and how many spikes it names per series. Flat
   series should rarely be called unsteady; rising ones should be.
     usage: ttft_tpot_steady_sim [SERIES_PER_ROW [SEED]]   (default 2000, 1) */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h" /* the core alone: recording, the model and its MSER-5 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 200
#define BASE_NS 3000000.0

static uint64_t rng_state;

/* A uniform double in (0, 1): splitmix64. */
static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal (Box-Muller; one of the pair). */
static double normal(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

typedef struct {
    const char *name;
    double rise;  /* over the run, as a fraction of the base */
    int spikes;   /* 3x steps with probability 1% */
    int steps;    /* 0: STEPS */
} kind;

typedef struct {
    unsigned raw, white, unsteady;
    double named, injected;
} tally;

/* A sample of ns, one token, its duration measured elsewhere. */
static void record(ttft_tpot *c, int phase, uint64_t ns)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, 1);
    (void)ttft_tpot_span_end(&s);
}

/* One series of kind k with AR(1) coefficient rho, recorded and reported; its verdicts added to t. */
static void one_series(const kind *k, double rho, tally *t)
{
    ttft_tpot c;
    ttft_tpot_model m;
    double e = normal(), scale = sqrt(1.0 - rho * rho);
    double sum[STEPS / 5] = {0};
    uint64_t raw;
    int d, i, steps = k->steps ? k->steps : STEPS;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        exit(1);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < steps; i++) {
        double v = BASE_NS * (1.0 + 0.01 * e + k->rise * i / (steps - 1));
        if (i == 0)
            v = 10 * BASE_NS;
        else if (k->spikes && uniform() < 0.01) {
            v *= 3;
            t->injected++;
        }
        record(&c, d, (uint64_t)(v + 0.5));
        sum[i / 5] += (double)(uint64_t)(v + 0.5);
        e = rho * e + scale * normal();
    }
    ttft_tpot__mser5_cuts(sum, (uint64_t)steps / 5, &raw); /* the library's own MSER-5, on the series as recorded */
    t->raw += raw != 0;
    if (ttft_tpot_model_compute(&c, NULL, &m) != TTFT_TPOT_OK)
        exit(1);
    t->white += m.phase[0].steady_state.white_cut != 0;
    t->unsteady += m.phase[0].steady_state.drift != 0;
    t->named += (double)m.phase[0].steady_state.spikes;
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&c);
}

int main(int argc, char **argv)
{
    static const kind kinds[] = {{"flat", 0, 0, 0},       {"flat, spikes", 0, 1, 0}, {"rise 2%", 0.02, 0, 0},
                                 {"rise 5%", 0.05, 0, 0}, {"rise 10%", 0.10, 0, 0},  {"rise 10%, spikes", 0.10, 1, 0},
                                 {"flat, 40 steps", 0, 0, 40}, {"rise 5%, 40 steps", 0.05, 0, 40},
                                 {"rise 10%, 40 steps", 0.10, 0, 40}};
    static const double rhos[] = {0, 0.5, 0.9};
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2000, j, r, s;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    if (n == 0)
        return 2;
    printf("%u series of %d steps a row (or as named): 3 ms, noise sd 1%% (AR(1)), spikes 3x at 1%% of steps\n", n,
           STEPS);
    printf("%-18s %4s  %12s  %18s  %15s  %16s\n", "series", "rho", "White's rule", "without spikes",
           "no steady state", "spikes named");
    for (j = 0; j < sizeof kinds / sizeof *kinds; j++)
        for (r = 0; r < sizeof rhos / sizeof *rhos; r++) {
            tally t = {0, 0, 0, 0, 0};
            char named[32];
            for (s = 0; s < n; s++)
                one_series(&kinds[j], rhos[r], &t);
            if (kinds[j].spikes)
                snprintf(named, sizeof named, "%.2f (of %.2f)", t.named / n, t.injected / n);
            else
                snprintf(named, sizeof named, "%.2f", t.named / n);
            printf("%-18s %4.1f  %11.1f%%  %17.1f%%  %14.1f%%  %16s\n", kinds[j].name, rhos[r], 100.0 * t.raw / n,
                   100.0 * t.white / n, 100.0 * t.unsteady / n, named);
        }
    return 0;
}
