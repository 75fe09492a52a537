/* kernels.c - see kernels.h. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#define PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#else
#define PARALLEL_FOR
#endif

int pack_weights(packed *p, const float *w, int n, int k, int nr)
{
    int panels = (n + nr - 1) / nr, pi;
    p->data = (float *)malloc(sizeof(float) * (size_t)panels * (size_t)nr * (size_t)k);
    if (!p->data)
        return -1;
    p->n = n;
    p->k = k;
    p->nr = nr;
    PARALLEL_FOR
    for (pi = 0; pi < panels; pi++) {
        float *dst = p->data + (size_t)pi * (size_t)nr * (size_t)k;
        int kk, j;
        for (kk = 0; kk < k; kk++)
            for (j = 0; j < nr; j++) {
                int row = pi * nr + j;
                dst[(size_t)kk * (size_t)nr + (size_t)j] = row < n ? w[(size_t)row * (size_t)k + (size_t)kk] : 0.0f;
            }
    }
    return 0;
}

void packed_free(packed *p)
{
    free(p->data);
    memset(p, 0, sizeof *p);
}

size_t packed_bytes(const packed *p)
{
    return sizeof(float) * (size_t)((p->n + p->nr - 1) / p->nr) * (size_t)p->nr * (size_t)p->k;
}

enum { MR = 4 }; /* rows of x per register tile */

/* One panel of NR outputs against up to MR rows of x. NR is a constant at each call site, so the
   inner loop over j becomes vector instructions and acc stays in registers (NR = 16). */
static inline void panel_tile(const float *x, int ldx, int rows, const float *panel, int k, int nr,
                              float *y, int ldy, int nvalid)
{
    float acc[MR][PANEL_DECODE];
    int i, j, kk;
    for (i = 0; i < MR; i++)
        for (j = 0; j < nr; j++)
            acc[i][j] = 0.0f;
    if (rows == MR) {
        for (kk = 0; kk < k; kk++) {
            const float *wk = panel + (size_t)kk * (size_t)nr;
            float x0 = x[kk], x1 = x[ldx + kk], x2 = x[2 * ldx + kk], x3 = x[3 * ldx + kk];
            for (j = 0; j < nr; j++) {
                acc[0][j] += x0 * wk[j];
                acc[1][j] += x1 * wk[j];
                acc[2][j] += x2 * wk[j];
                acc[3][j] += x3 * wk[j];
            }
        }
    } else {
        for (kk = 0; kk < k; kk++) {
            const float *wk = panel + (size_t)kk * (size_t)nr;
            for (i = 0; i < rows; i++) {
                float xi = x[(size_t)i * (size_t)ldx + (size_t)kk];
                for (j = 0; j < nr; j++)
                    acc[i][j] += xi * wk[j];
            }
        }
    }
    for (i = 0; i < rows; i++)
        for (j = 0; j < nvalid; j++)
            y[(size_t)i * (size_t)ldy + (size_t)j] = acc[i][j];
}

static void matmul_nr(const float *x, int ldx, int rows, const packed *w, float *y, int ldy, int nr)
{
    int panels = (w->n + nr - 1) / nr, pi;
    PARALLEL_FOR
    for (pi = 0; pi < panels; pi++) {
        const float *panel = w->data + (size_t)pi * (size_t)nr * (size_t)w->k;
        int nvalid = w->n - pi * nr < nr ? w->n - pi * nr : nr, r;
        for (r = 0; r < rows; r += MR) /* the panel stays in cache while the rows go by */
            panel_tile(x + (size_t)r * (size_t)ldx, ldx, rows - r < MR ? rows - r : MR, panel, w->k, nr,
                       y + (size_t)r * (size_t)ldy + (size_t)pi * (size_t)nr, ldy, nvalid);
    }
}

void matmul(const float *x, int ldx, int rows, const packed *w, float *y, int ldy)
{
    if (w->nr == PANEL_PREFILL)
        matmul_nr(x, ldx, rows, w, y, ldy, PANEL_PREFILL);
    else
        matmul_nr(x, ldx, rows, w, y, ldy, PANEL_DECODE);
}

void matmul_ref(const float *x, int rows, const float *w, int n, int k, float *y)
{
    int m, j, kk;
    for (m = 0; m < rows; m++)
        for (j = 0; j < n; j++) {
            double s = 0.0;
            for (kk = 0; kk < k; kk++)
                s += (double)x[(size_t)m * (size_t)k + (size_t)kk] * (double)w[(size_t)j * (size_t)k + (size_t)kk];
            y[(size_t)m * (size_t)n + (size_t)j] = (float)s;
        }
}

void rmsnorm(float *out, const float *x, const float *weight, int dim)
{
    float ss = 0.0f, scale;
    int i;
    for (i = 0; i < dim; i++)
        ss += x[i] * x[i];
    scale = 1.0f / sqrtf(ss / (float)dim + 1e-5f);
    for (i = 0; i < dim; i++)
        out[i] = x[i] * scale * weight[i];
}

void rope(float *v, int n_heads, int head_dim, const float *cs)
{
    int h, i;
    for (h = 0; h < n_heads; h++) {
        float *hv = v + (size_t)h * (size_t)head_dim;
        for (i = 0; i < head_dim / 2; i++) {
            float c = cs[2 * i], s = cs[2 * i + 1], a = hv[2 * i], b = hv[2 * i + 1];
            hv[2 * i] = a * c - b * s;
            hv[2 * i + 1] = a * s + b * c;
        }
    }
}

void attention(float *out, const float *q, const float *kc, const float *vc, int pos, int n_heads,
               int head_dim, float *scores)
{
    int dim = n_heads * head_dim, h, t, i;
    float scale = 1.0f / sqrtf((float)head_dim);
    for (h = 0; h < n_heads; h++) {
        const float *qh = q + (size_t)h * (size_t)head_dim;
        float *oh = out + (size_t)h * (size_t)head_dim, mx = -INFINITY, sum = 0.0f;
        for (t = 0; t <= pos; t++) {
            const float *kt = kc + (size_t)t * (size_t)dim + (size_t)h * (size_t)head_dim;
            float s = 0.0f;
            for (i = 0; i < head_dim; i++)
                s += qh[i] * kt[i];
            scores[t] = s * scale;
            mx = scores[t] > mx ? scores[t] : mx;
        }
        for (t = 0; t <= pos; t++) {
            scores[t] = expf(scores[t] - mx);
            sum += scores[t];
        }
        for (i = 0; i < head_dim; i++)
            oh[i] = 0.0f;
        for (t = 0; t <= pos; t++) {
            const float *vt = vc + (size_t)t * (size_t)dim + (size_t)h * (size_t)head_dim;
            float p = scores[t] / sum;
            for (i = 0; i < head_dim; i++)
                oh[i] += p * vt[i];
        }
    }
}

void swiglu(float *h, const float *g, const float *u, int n)
{
    int i;
    for (i = 0; i < n; i++)
        h[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}
