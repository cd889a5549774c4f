/* hydrofmu native runtime, the radiation force by convolution (see hfn_conv.h). */
#include "hfn_conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Work layout (c->conv_work): f[nq] the force, v[nc] the stage velocity, vn[nc] the step
 * start's velocity. */
size_t hfn_conv_state_size(const hfn_model *md) {
    if (!md->has_conv) return 0;
    return 1 + 2 * (size_t)md->conv_nc * md->conv_nk + 2 * (size_t)md->nq;
}

int hfn_conv_alloc(instance *c) {
    const hfn_model *md = &c->md;
    c->conv_work = (double *)calloc((size_t)md->nq + 2 * (size_t)md->conv_nc + 1,
                                    sizeof(double));
    return c->conv_work ? 0 : -1;
}

/* The velocities of the history columns at state y into v (nc); in the load FMU y is the
 * DOF velocities (nq), its inputs. */
static void column_velocities(const instance *c, const double *y, double *v) {
    const hfn_model *md = &c->md;
    uint32_t ci, j, n = md->n;
    if (md->load) {
        for (ci = 0; ci < md->conv_nc; ci++) v[ci] = y[md->conv_dof[ci]];
        return;
    }
    for (ci = 0; ci < md->conv_nc; ci++) {
        const double *row = md->V + (size_t)md->conv_dof[ci] * n;
        double s = 0.0;
        for (j = 0; j < n; j++) s += row[j] * y[j];
        v[ci] = s;
    }
}

static size_t ring_pos(const instance *c) { return (size_t)*c->d.conv_pos; }

/* G_0 = sum_i K[i] v_i and G_1 = sum_i K[i + 1] v_i over the history (four partial sums). */
static void grid_sums(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t p, i, nk = md->conv_nk, nq = md->nq;
    size_t pos = ring_pos(c), stride = 2 * (size_t)nk;
    double *g0 = c->d.conv_g, *g1 = c->d.conv_g + nq;
    memset(c->d.conv_g, 0, 2 * (size_t)nq * sizeof(double));
    for (p = 0; p < md->conv_np; p++) {
        const double *k = md->conv_K + (size_t)p * (nk + 2u);
        const double *h = c->d.conv_hist + md->conv_col[p] * stride + pos;
        double a0 = 0.0, a1 = 0.0, b0 = 0.0, b1 = 0.0;
        for (i = 0; i + 2 <= nk; i += 2) {
            a0 += k[i] * h[i]; a1 += k[i + 1] * h[i + 1];
            b0 += k[i + 1] * h[i]; b1 += k[i + 2] * h[i + 1];
        }
        for (; i < nk; i++) { a0 += k[i] * h[i]; b0 += k[i + 1] * h[i]; }
        g0[md->conv_row[p]] += a0 + a1;
        g1[md->conv_row[p]] += b0 + b1;
    }
}

void hfn_conv_record(instance *c, const double *y, int sums) {
    const hfn_model *md = &c->md;
    uint32_t ci, nk = md->conv_nk;
    size_t pos, stride = 2 * (size_t)nk;
    double *v = c->conv_work + md->nq;
    if (!md->has_conv) return;
    pos = (ring_pos(c) + nk - 1u) % nk;
    *c->d.conv_pos = (double)pos;
    column_velocities(c, y, v);
    for (ci = 0; ci < md->conv_nc; ci++) {
        c->d.conv_hist[ci * stride + pos] = v[ci];
        c->d.conv_hist[ci * stride + pos + nk] = v[ci];
    }
    if (sums) grid_sums(c);
}

void hfn_conv_push(instance *c, const double *y) { hfn_conv_record(c, y, 1); }

void hfn_conv_restart(instance *c, const double *y) {
    const hfn_model *md = &c->md;
    if (!md->has_conv) return;
    memset(c->d.conv_hist, 0, 2 * (size_t)md->conv_nc * md->conv_nk * sizeof(double));
    *c->d.conv_pos = 0.0;
    hfn_conv_push(c, y);
}

void hfn_conv_start(instance *c) { hfn_conv_restart(c, c->d.x); }

void hfn_conv_step_start(instance *c, double sn, const double *y) {
    c->conv_sn = sn;
    column_velocities(c, y, c->conv_work + c->md.nq + c->md.conv_nc);
}

/* K(tau) of one entry's samples k by linear interpolation (0 beyond the kernel). */
static double kernel_at(const hfn_model *md, const double *k, double tau) {
    double x = tau / md->conv_dt, a;
    uint32_t i;
    if (!(x > -1.0 && x < (double)md->conv_nk)) return 0.0;
    i = (uint32_t)(int)x; /* truncation, as Python's int(): 0 for a round-off below 0 */
    a = x - (double)i;
    return (1.0 - a) * k[i] + a * k[i + 1];
}

const double *hfn_conv_force(instance *c, double s, const double *y) {
    const hfn_model *md = &c->md;
    uint32_t p, r, nq = md->nq, nk2 = md->conv_nk + 2u;
    double dt = md->conv_dt, a = s / dt, sn = c->conv_sn;
    double *f = c->conv_work, *v = f + nq, *vn = v + md->conv_nc;
    const double *g0 = c->d.conv_g, *g1 = g0 + nq;
    size_t pos = ring_pos(c), stride = 2 * (size_t)md->conv_nk;
    column_velocities(c, y, v);
    for (r = 0; r < nq; r++) f[r] = -dt * ((1.0 - a) * g0[r] + a * g1[r]);
    if (fabs(sn) <= 1e-9 * dt) { /* the step started on the grid: vn is v_0 */
        double ck = -(0.5 * s - 0.5 * dt), cv = -0.5 * s;
        for (p = 0; p < md->conv_np; p++) {
            const double *k = md->conv_K + (size_t)p * nk2;
            uint32_t ci = md->conv_col[p];
            double v0 = c->d.conv_hist[ci * stride + pos];
            f[md->conv_row[p]] += ck * kernel_at(md, k, s) * v0 + cv * k[0] * v[ci];
        }
    } else {
        for (p = 0; p < md->conv_np; p++) {
            const double *k = md->conv_K + (size_t)p * nk2;
            uint32_t ci = md->conv_col[p];
            double v0 = c->d.conv_hist[ci * stride + pos];
            double ks = kernel_at(md, k, s), km = kernel_at(md, k, s - sn);
            f[md->conv_row[p]] -= -0.5 * dt * (ks * v0)
                                  + 0.5 * (s - sn) * (k[0] * v[ci] + km * vn[ci])
                                  + 0.5 * sn * (km * vn[ci] + ks * v0);
        }
    }
    return f;
}

void hfn_conv_outputs_at(instance *c, double s, const double *y, double *out) {
    const hfn_model *md = &c->md;
    const double *f;
    uint32_t i, j;
    hfn_conv_step_start(c, s, y); /* the outputs' context: sn = s, vn = v */
    f = hfn_conv_force(c, s, y);
    for (i = 0; i < md->nout; i++) {
        double sum = 0.0;
        for (j = md->oc_ptr[i]; j < md->oc_ptr[i + 1]; j++) sum += md->oc_val[j] * f[md->oc_idx[j]];
        out[i] += sum;
    }
}

void hfn_conv_outputs(instance *c, double s) { hfn_conv_outputs_at(c, s, c->d.x, c->d.out); }

int hfn_conv_consistent(const hfn_model *md, const dyn_view *v) {
    double pos;
    if (!md->has_conv) return 1;
    pos = *v->conv_pos;
    return pos >= 0.0 && pos < (double)md->conv_nk && pos == floor(pos);
}
