/* backend.c - see backend.h. */
#include "backend.h"

#include "kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_PREFILL, MODE_DECODE, N_MODES };
enum { W_QKV, W_O, W_13, W_2, N_MATS }; /* q,k,v fused; gate and up fused */

typedef struct layer {
    float *raw[N_MATS]; /* checkpoint layout: [out][in] */
    float *rms_att, *rms_ffn;
    packed pk[N_MODES][N_MATS]; /* built on the first dispatch in each mode */
} layer;

/* Activations of one dispatch, sized for its number of rows. */
typedef struct scratch {
    int rows;
    float *x, *xn, *qkv, *att, *tmp, *gu, *h, *scores;
} scratch;

struct backend {
    backend_config cfg;
    int head_dim;
    float *emb, *rms_final, *wout;
    packed out_pk[N_MODES];
    layer *layers;
    float *rope_cs;        /* [max_seq][head_dim/2][cos, sin] */
    float *kc, *vc;        /* [layers][max_batch][max_seq][dim], allocated on the first prefill */
    scratch sc[N_MODES];
    int mode, batch, len, rows; /* the current dispatch: batch sequences, rows in all */
    int *pos;                   /* per sequence: positions filled */
    int *row_seq, *row_pos, *last_row;
    int row_cap;
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* n floats uniform in [-scale, scale) */
static float *random_floats(size_t n, float scale, uint64_t *seed)
{
    float *v = (float *)malloc(n * sizeof *v);
    size_t i;
    if (!v)
        return NULL;
    for (i = 0; i < n; i++)
        v[i] = scale * ((float)(splitmix(seed) >> 40) / 8388608.0f - 1.0f);
    return v;
}

static float *ones_ish(size_t n, uint64_t *seed)
{
    float *v = random_floats(n, 0.1f, seed);
    size_t i;
    for (i = 0; v && i < n; i++)
        v[i] += 1.0f;
    return v;
}

backend *backend_create(const backend_config *cfg, char *err, size_t errlen)
{
    backend *b;
    uint64_t seed = cfg->seed;
    int l, p, i, d = cfg->dim, hd;
    if (cfg->n_heads < 1 || d % cfg->n_heads != 0 || (d / cfg->n_heads) % 2 != 0) {
        snprintf(err, errlen, "--dim %d must be a multiple of --heads %d with an even head size", d, cfg->n_heads);
        return NULL;
    }
    b = (backend *)calloc(1, sizeof *b);
    if (!b)
        goto oom;
    b->cfg = *cfg;
    b->head_dim = hd = d / cfg->n_heads;
    b->layers = (layer *)calloc((size_t)cfg->n_layers, sizeof *b->layers);
    b->pos = (int *)calloc((size_t)cfg->max_batch, sizeof(int));
    b->last_row = (int *)calloc((size_t)cfg->max_batch, sizeof(int));
    if (!b->layers || !b->pos || !b->last_row)
        goto oom;
    b->emb = random_floats((size_t)cfg->vocab * (size_t)d, 1.0f, &seed);
    b->wout = random_floats((size_t)cfg->vocab * (size_t)d, sqrtf(3.0f / (float)d), &seed);
    b->rms_final = ones_ish((size_t)d, &seed);
    if (!b->emb || !b->wout || !b->rms_final)
        goto oom;
    for (l = 0; l < cfg->n_layers; l++) {
        layer *ly = &b->layers[l];
        ly->raw[W_QKV] = random_floats((size_t)3 * (size_t)d * (size_t)d, sqrtf(3.0f / (float)d), &seed);
        ly->raw[W_O] = random_floats((size_t)d * (size_t)d, sqrtf(3.0f / (float)d), &seed);
        ly->raw[W_13] = random_floats((size_t)2 * (size_t)cfg->hidden * (size_t)d, sqrtf(3.0f / (float)d), &seed);
        ly->raw[W_2] = random_floats((size_t)d * (size_t)cfg->hidden, sqrtf(3.0f / (float)cfg->hidden), &seed);
        ly->rms_att = ones_ish((size_t)d, &seed);
        ly->rms_ffn = ones_ish((size_t)d, &seed);
        for (i = 0; i < N_MATS; i++)
            if (!ly->raw[i])
                goto oom;
        if (!ly->rms_att || !ly->rms_ffn)
            goto oom;
    }
    b->rope_cs = (float *)malloc(sizeof(float) * (size_t)cfg->max_seq * (size_t)hd);
    if (!b->rope_cs)
        goto oom;
    for (p = 0; p < cfg->max_seq; p++)
        for (i = 0; i < hd / 2; i++) {
            double angle = p * pow(10000.0, -2.0 * i / hd);
            b->rope_cs[(size_t)p * (size_t)hd + 2 * (size_t)i] = (float)cos(angle);
            b->rope_cs[(size_t)p * (size_t)hd + 2 * (size_t)i + 1] = (float)sin(angle);
        }
    return b;
oom:
    snprintf(err, errlen, "out of memory creating the model");
    backend_destroy(b);
    return NULL;
}

static void scratch_free(scratch *s)
{
    free(s->x);
    free(s->xn);
    free(s->qkv);
    free(s->att);
    free(s->tmp);
    free(s->gu);
    free(s->h);
    free(s->scores);
    memset(s, 0, sizeof *s);
}

void backend_destroy(backend *b)
{
    int l, m, i;
    if (!b)
        return;
    for (l = 0; b->layers && l < b->cfg.n_layers; l++) {
        for (i = 0; i < N_MATS; i++) {
            free(b->layers[l].raw[i]);
            for (m = 0; m < N_MODES; m++)
                packed_free(&b->layers[l].pk[m][i]);
        }
        free(b->layers[l].rms_att);
        free(b->layers[l].rms_ffn);
    }
    for (m = 0; m < N_MODES; m++) {
        packed_free(&b->out_pk[m]);
        scratch_free(&b->sc[m]);
    }
    free(b->layers);
    free(b->emb);
    free(b->wout);
    free(b->rms_final);
    free(b->rope_cs);
    free(b->kc);
    free(b->vc);
    free(b->pos);
    free(b->row_seq);
    free(b->row_pos);
    free(b->last_row);
    free(b);
}

/* calloc does not touch pages; an accelerator's first use of a buffer does: so do we (memset). */
static float *touched(size_t n)
{
    float *v = (float *)malloc(n * sizeof *v);
    if (v)
        memset(v, 0, n * sizeof *v);
    return v;
}

/* The scratch of the current mode, grown (first use, or more rows than before) to rows. */
static int ensure_scratch(backend *b, int rows)
{
    scratch *s = &b->sc[b->mode];
    size_t r = (size_t)rows, d = (size_t)b->cfg.dim, hid = (size_t)b->cfg.hidden;
    int *rs, *rp;
    if (s->rows >= rows)
        return 0;
    scratch_free(s);
    s->x = touched(r * d);
    s->xn = touched(r * d);
    s->qkv = touched(r * 3 * d);
    s->att = touched(r * d);
    s->tmp = touched(r * d);
    s->gu = touched(r * 2 * hid);
    s->h = touched(r * hid);
    s->scores = touched((size_t)b->cfg.max_seq);
    if (rows > b->row_cap) { /* row maps are shared by both modes: they only grow */
        rs = (int *)realloc(b->row_seq, r * sizeof(int));
        if (rs)
            b->row_seq = rs;
        rp = (int *)realloc(b->row_pos, r * sizeof(int));
        if (rp)
            b->row_pos = rp;
        if (!rs || !rp)
            return -1;
        b->row_cap = rows;
    }
    if (!s->x || !s->xn || !s->qkv || !s->att || !s->tmp || !s->gu || !s->h || !s->scores) {
        scratch_free(s);
        return -1;
    }
    s->rows = rows;
    return 0;
}

static void embed_rows(backend *b, const int *tokens)
{
    scratch *s = &b->sc[b->mode];
    size_t d = (size_t)b->cfg.dim;
    int r;
    for (r = 0; r < b->rows; r++) {
        int t = tokens[r];
        t = t < 0 ? 0 : t >= b->cfg.vocab ? b->cfg.vocab - 1 : t;
        memcpy(s->x + (size_t)r * d, b->emb + (size_t)t * d, d * sizeof(float));
    }
}

static int slots_ok(const backend *b, int n, const int *slots)
{
    int i;
    if (n < 1 || n > b->cfg.max_batch)
        return 0;
    for (i = 0; i < n; i++)
        if (slots[i] < 0 || slots[i] >= b->cfg.max_batch)
            return 0;
    return 1;
}

int backend_prefill_begin(backend *b, int n, const int *slots, const int *tokens, int len)
{
    int s, i;
    if (!slots_ok(b, n, slots) || len < 1 || len > b->cfg.max_seq)
        return -1;
    if (!b->kc) { /* the KV cache: allocated and first touched on the first prefill */
        size_t sz = (size_t)b->cfg.n_layers * (size_t)b->cfg.max_batch * (size_t)b->cfg.max_seq * (size_t)b->cfg.dim;
        b->kc = touched(sz);
        b->vc = touched(sz);
        if (!b->kc || !b->vc)
            return -1;
    }
    b->mode = MODE_PREFILL;
    b->batch = n;
    b->len = len;
    b->rows = n * len;
    if (ensure_scratch(b, b->rows) != 0)
        return -1;
    for (s = 0; s < n; s++) {
        for (i = 0; i < len; i++) {
            b->row_seq[s * len + i] = slots[s];
            b->row_pos[s * len + i] = i;
        }
        b->last_row[s] = s * len + len - 1;
        b->pos[slots[s]] = len;
    }
    embed_rows(b, tokens);
    return 0;
}

int backend_decode_begin(backend *b, int n, const int *slots, const int *tokens)
{
    int s;
    if (!b->kc || !slots_ok(b, n, slots))
        return -1;
    for (s = 0; s < n; s++)
        if (b->pos[slots[s]] < 1 || b->pos[slots[s]] >= b->cfg.max_seq)
            return -1; /* never prefilled, or full */
    b->mode = MODE_DECODE;
    b->batch = n;
    b->rows = n;
    if (ensure_scratch(b, b->rows) != 0)
        return -1;
    for (s = 0; s < n; s++) {
        b->row_seq[s] = slots[s];
        b->row_pos[s] = b->pos[slots[s]]++;
        b->last_row[s] = s;
    }
    embed_rows(b, tokens);
    return 0;
}

/* The weights of the current mode, packed on their first dispatch. */
static int ensure_packed(backend *b, layer *ly)
{
    static const int nr[N_MODES] = {PANEL_PREFILL, PANEL_DECODE};
    int d = b->cfg.dim, hid = b->cfg.hidden, m = b->mode;
    if (ly->pk[m][W_QKV].data)
        return 0;
    if (pack_weights(&ly->pk[m][W_QKV], ly->raw[W_QKV], 3 * d, d, nr[m]) ||
        pack_weights(&ly->pk[m][W_O], ly->raw[W_O], d, d, nr[m]) ||
        pack_weights(&ly->pk[m][W_13], ly->raw[W_13], 2 * hid, d, nr[m]) ||
        pack_weights(&ly->pk[m][W_2], ly->raw[W_2], d, hid, nr[m]))
        return -1;
    return 0;
}

int backend_layer(backend *b, int l)
{
    layer *ly;
    scratch *s;
    int d = b->cfg.dim, hid = b->cfg.hidden, hd = b->head_dim, nh = b->cfg.n_heads, r, i;
    size_t plane = (size_t)b->cfg.max_seq * (size_t)d;
    if (l < 0 || l >= b->cfg.n_layers || b->rows < 1)
        return -1;
    ly = &b->layers[l];
    s = &b->sc[b->mode];
    if (ensure_packed(b, ly) != 0)
        return -1;
    for (r = 0; r < b->rows; r++)
        rmsnorm(s->xn + (size_t)r * (size_t)d, s->x + (size_t)r * (size_t)d, ly->rms_att, d);
    matmul(s->xn, d, b->rows, &ly->pk[b->mode][W_QKV], s->qkv, 3 * d);
    for (r = 0; r < b->rows; r++) { /* rotate q and k, append k and v to the sequence's cache */
        float *q = s->qkv + (size_t)r * 3 * (size_t)d, *k = q + d, *v = q + 2 * d;
        size_t at = ((size_t)l * (size_t)b->cfg.max_batch + (size_t)b->row_seq[r]) * plane;
        const float *cs = b->rope_cs + (size_t)b->row_pos[r] * (size_t)hd;
        rope(q, nh, hd, cs);
        rope(k, nh, hd, cs);
        memcpy(b->kc + at + (size_t)b->row_pos[r] * (size_t)d, k, (size_t)d * sizeof(float));
        memcpy(b->vc + at + (size_t)b->row_pos[r] * (size_t)d, v, (size_t)d * sizeof(float));
    }
    for (r = 0; r < b->rows; r++) {
        size_t at = ((size_t)l * (size_t)b->cfg.max_batch + (size_t)b->row_seq[r]) * plane;
        attention(s->att + (size_t)r * (size_t)d, s->qkv + (size_t)r * 3 * (size_t)d, b->kc + at, b->vc + at,
                  b->row_pos[r], nh, hd, s->scores);
    }
    matmul(s->att, d, b->rows, &ly->pk[b->mode][W_O], s->tmp, d);
    for (i = 0; i < b->rows * d; i++)
        s->x[i] += s->tmp[i];
    for (r = 0; r < b->rows; r++)
        rmsnorm(s->xn + (size_t)r * (size_t)d, s->x + (size_t)r * (size_t)d, ly->rms_ffn, d);
    matmul(s->xn, d, b->rows, &ly->pk[b->mode][W_13], s->gu, 2 * hid);
    for (r = 0; r < b->rows; r++) {
        const float *g = s->gu + (size_t)r * 2 * (size_t)hid;
        swiglu(s->h + (size_t)r * (size_t)hid, g, g + hid, hid);
    }
    matmul(s->h, hid, b->rows, &ly->pk[b->mode][W_2], s->tmp, d);
    for (i = 0; i < b->rows * d; i++)
        s->x[i] += s->tmp[i];
    return 0;
}

int backend_head(backend *b, float *logits)
{
    static const int nr[N_MODES] = {PANEL_PREFILL, PANEL_DECODE};
    scratch *s = &b->sc[b->mode];
    int d = b->cfg.dim, q;
    if (b->rows < 1)
        return -1;
    if (!b->out_pk[b->mode].data &&
        pack_weights(&b->out_pk[b->mode], b->wout, b->cfg.vocab, d, nr[b->mode]) != 0)
        return -1;
    for (q = 0; q < b->batch; q++) /* the last row of each sequence, gathered into xn */
        rmsnorm(s->xn + (size_t)q * (size_t)d, s->x + (size_t)b->last_row[q] * (size_t)d, b->rms_final, d);
    matmul(s->xn, d, b->batch, &b->out_pk[b->mode], logits, b->cfg.vocab);
    return 0;
}

const backend_config *backend_cfg(const backend *b)
{
    return &b->cfg;
}

uint64_t backend_params(const backend *b)
{
    uint64_t d = (uint64_t)b->cfg.dim, h = (uint64_t)b->cfg.hidden;
    return (uint64_t)b->cfg.n_layers * (4 * d * d + 3 * d * h + 2 * d) + 2 * (uint64_t)b->cfg.vocab * d + d;
}

double backend_prefill_flops(const backend *b, int batch, int len)
{
    double d = b->cfg.dim, h = b->cfg.hidden, rows = (double)batch * len;
    double per_layer = 2.0 * rows * (4.0 * d * d + 3.0 * d * h) /* matrix products */
                       + 4.0 * d * batch * (double)len * (len + 1) / 2.0; /* QK^T and AV, causal */
    return b->cfg.n_layers * per_layer + 2.0 * batch * d * b->cfg.vocab;
}

double backend_decode_weight_bytes(const backend *b)
{
    int d = b->cfg.dim, hid = b->cfg.hidden, nr = PANEL_DECODE;
    packed shape[N_MATS + 1] = {{NULL, 3 * d, d, nr}, {NULL, d, d, nr}, {NULL, 2 * hid, d, nr},
                                {NULL, d, hid, nr}, {NULL, b->cfg.vocab, d, nr}};
    double per_layer = 0;
    int i;
    for (i = 0; i < N_MATS; i++)
        per_layer += (double)packed_bytes(&shape[i]);
    return b->cfg.n_layers * per_layer + (double)packed_bytes(&shape[N_MATS]);
}
