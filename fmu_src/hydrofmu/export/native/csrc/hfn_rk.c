/* hydrofmu native runtime, the Runge-Kutta mode (see hfn_rk.h and hfn_model.h). */
#include "hfn_rk.h"

#include <math.h>
#include <string.h>

#include "hfn_bodies.h"
#include "hfn_catenary.h"
#include "hfn_conv.h"
#include "hfn_drift.h"
#include "hfn_lines.h"
#include "hfn_panels.h"
#include "hfn_semi.h"
#include "hfn_waves.h"

double hfn_rk_grid_time(const instance *c) { return *c->d.t0 + *c->d.grid_index * c->md.dt; }

/* How far a time may be from a grid time and still be it (Simulator.grid_tolerance). */
static double rk_grid_tolerance(const instance *c, double t) {
    double at = fabs(t), ulp = nextafter(at, INFINITY) - at, dt = c->md.dt;
    return fmin(0.25 * dt, fmax(1e-9 * dt, ulp * fmax(8.0, (t - *c->d.t0) / dt)));
}

/* out[i] = sum_{j < count} KW[i, from + j] h[j] (four independent sums per row). */
static void rk_fir(const instance *c, const double *h, uint32_t from, uint32_t count,
                   double *out) {
    uint32_t i, j, nk = c->md.nk;
    for (i = 0; i < c->md.nq; i++) {
        const double *kw = c->md.KW + (size_t)i * nk + from;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        if (!c->md.kw_used[i]) { out[i] = 0.0; continue; } /* a DOF the wave does not excite */
        for (j = 0; j + 4 <= count; j += 4) {
            s0 += kw[j] * h[j]; s1 += kw[j + 1] * h[j + 1];
            s2 += kw[j + 2] * h[j + 2]; s3 += kw[j + 3] * h[j + 3];
        }
        for (; j < count; j++) s0 += kw[j] * h[j];
        out[i] = (s0 + s1) + (s2 + s3);
    }
}

static const double *rk_view(const instance *c) { return c->d.hist + (size_t)*c->d.hist_pos; }

/* The elevation input at the newest grid time: a new sample (push) or a better value for
 * the same instant (overwrite); the FIRs on the grid and one sample later follow. */
void hfn_rk_record(instance *c, double v, int push) {
    uint32_t i, nk = c->md.nk;
    size_t pos;
    if (!c->md.has_input) return;
    if (push) *c->d.hist_pos = (double)(((uint32_t)*c->d.hist_pos + nk - 1u) % nk);
    pos = (size_t)*c->d.hist_pos;
    c->d.hist[pos] = v;
    c->d.hist[pos + nk] = v;
    if (push) /* the new grid FIR is the last one-sample-later FIR at this input */
        for (i = 0; i < c->md.nq; i++)
            c->d.fgrid[i] = c->md.KW[(size_t)i * nk] * v + c->d.tail[i];
    else
        rk_fir(c, rk_view(c), 0, nk, c->d.fgrid);
    rk_fir(c, rk_view(c), 1, nk - 1, c->d.tail);
}

void hfn_rk_start(instance *c) {
    const hfn_model *md = &c->md;
    memset(c->d.hist, 0, 2 * (size_t)md->nk * sizeof(double));
    memset(c->d.fgrid, 0, md->nq * sizeof(double));
    memset(c->d.tail, 0, md->nq * sizeof(double));
    *c->d.hist_pos = 0.0;
    *c->d.grid_index = 0.0;
    *c->d.rk_time = *c->d.t0;
    if (md->has_input) hfn_rk_record(c, c->d.u[md->in_index], 1); /* calm sea before t0 */
    if (md->has_conv) hfn_conv_start(c); /* at rest before t0 */
}

/* The excitation by the elevation input at s after the newest grid time, input u held:
 * linear between the grid FIR and the one a sample later. */
static void rk_excitation(const instance *c, double s, double u, double *out) {
    uint32_t i, nk = c->md.nk;
    double a;
    if (s <= 0.0) { memcpy(out, c->d.fgrid, c->md.nq * sizeof(double)); return; }
    a = s / c->md.dt;
    for (i = 0; i < c->md.nq; i++)
        out[i] = (1.0 - a) * c->d.fgrid[i] + a * (c->md.KW[(size_t)i * nk] * u + c->d.tail[i]);
}

/* The elevation at s after the newest grid time: the input received preview s before. */
double hfn_rk_elevation(const instance *c, double s, double u) {
    const double *h = rk_view(c);
    double x = c->md.preview_steps - s / c->md.dt, a;
    uint32_t i;
    if (x < 0.0) { a = fmin(1.0, -x); return (1.0 - a) * h[0] + a * u; }
    if (!(x < (double)(c->md.nk - 1u))) return h[c->md.nk - 1u];
    i = (uint32_t)x;
    a = x - (double)i;
    return (1.0 - a) * h[i] + a * h[i + 1];
}

/* The DOF forces of the drag (rk_gd) and of the elevation input (rk_ge) at (t, s, y). */
void hfn_rk_forces(instance *c, double t, double s, const double *y) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nq = md->nq;
    if (md->has_drag) {
        for (i = 0; i < nq; i++) {
            const double *row = md->V + (size_t)i * n;
            double v = 0.0;
            for (j = 0; j < n; j++) v += row[j] * y[j];
            c->rk_v[i] = v;
        }
        for (i = 0; i < nq; i++) {
            const double *row = md->BL + (size_t)i * nq;
            double f = 0.0, v = c->rk_v[i];
            if (md->drift && md->drift->current) v -= md->drift->current[i]; /* v - U */
            for (j = 0; j < nq; j++) f += row[j] * c->rk_v[j];
            c->rk_gd[i] = -f - md->BQ[i] * v * fabs(v);
        }
    }
    if (md->has_input) {
        double rw = hfn_half_cosine(t - *c->d.t0, md->wave_ramp);
        rk_excitation(c, s, c->d.u[md->in_index], c->rk_ge);
        for (i = 0; i < nq; i++) c->rk_ge[i] *= rw;
    }
}

/* dy = F y + G [u; 1] + ramp Re(sum X_k p_k) + EG (g_drag + g_exc) at (t, s, y, p). */
static void rk_deriv(instance *c, double t, double s, const double *y, const double *pre,
                     const double *pim, double *dy) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nq = md->nq, na = md->nact;
    if (md->bodies) { /* hfn_bodies.c: large rotations, the force form */
        hfn_bodies_deriv(md->bodies, md->panels, t, *c->d.t0, *c->d.scale,
                         hfn_half_cosine(t - *c->d.t0, md->ramp_time) * *c->d.scale, c->d.u,
                         y, pre, pim, dy);
        return;
    }
    if (c->cur_F == md->F) { /* F's nonzeros by row */
        for (i = 0; i < n; i++) {
            double sum = 0.0;
            for (j = md->f_ptr[i]; j < md->f_ptr[i + 1]; j++)
                sum += md->f_val[j] * y[md->f_idx[j]];
            dy[i] = sum + c->rk_b[i];
        }
    } else { /* rebuilt for the tunable parameters' values */
        for (i = 0; i < n; i++) {
            const double *row = c->cur_F + (size_t)i * n;
            double sum = 0.0;
            for (j = 0; j < n; j++) sum += row[j] * y[j];
            dy[i] = sum + c->rk_b[i];
        }
    }
    if (md->k) {
        double rf = hfn_half_cosine(t - *c->d.t0, md->ramp_time) * *c->d.scale;
        if (rf != 0.0)
            for (i = 0; i < na; i++)
                dy[md->act[i]] += rf * hfn_re_dot(c->cur_xc[0] + (size_t)i * md->k,
                                              c->cur_xc[1] + (size_t)i * md->k, pre, pim, md->k);
    }
    if (md->has_drag || md->has_input || md->has_conv || md->lines || md->drift || md->cat ||
        md->panels) {
        if (md->has_drag || md->has_input) hfn_rk_forces(c, t, s, y);
        for (i = 0; i < nq; i++)
            c->rk_g[i] = (md->has_drag ? c->rk_gd[i] : 0.0) + (md->has_input ? c->rk_ge[i] : 0.0);
        if (md->drift) hfn_drift_add(md->drift, t, *c->d.t0, *c->d.scale, c->rk_g);
        if (md->has_conv) {
            const double *fc = hfn_conv_force(c, s, y);
            for (i = 0; i < nq; i++) c->rk_g[i] += fc[i];
        }
        if (md->lines) hfn_lines_deriv(md->lines, y, dy, c->rk_g); /* hfn_lines.c */
        if (md->cat) hfn_cat_deriv(md->cat, y, c->rk_g); /* hfn_catenary.c */
        if (md->panels) /* hfn_panels.c: nonlinear hydrostatics and Froude-Krylov */
            hfn_panels_forces(md->panels, y, t, *c->d.t0, *c->d.scale, c->rk_g);
        for (i = 0; i < n; i++) {
            const double *row = md->EG + (size_t)i * nq;
            double f = 0.0;
            for (j = 0; j < nq; j++) f += row[j] * c->rk_g[j];
            dy[i] += f;
        }
    }
}

/* The stage state y + h sum_j A[st, j] k_j into rk_y (the zero coefficients left out, the
 * sum in the order of j, as the Python step sums it); y itself for a stage without one. */
static const double *stage_state(instance *c, uint32_t st, double h) {
    const hfn_model *md = &c->md;
    const double *a = md->tab_a + (size_t)st * md->stages, *y = c->d.x;
    uint32_t i, j, n = md->n;
    int first = 1;
    for (j = 0; j < st; j++) {
        const double *kj = c->rk_k[j];
        if (a[j] == 0.0) continue;
        if (first) for (i = 0; i < n; i++) c->rk_y[i] = a[j] * kj[i];
        else for (i = 0; i < n; i++) c->rk_y[i] += a[j] * kj[i];
        first = 0;
    }
    if (first) return y;
    for (i = 0; i < n; i++) c->rk_y[i] = y[i] + h * c->rk_y[i];
    return c->rk_y;
}

/* One step of the explicit Runge-Kutta tableau (A, B, C) from (t, x) by h into xnew; the
 * phasors at t + h into pe. */
static void rk_step(instance *c, double t, double h, double t_grid) {
    const hfn_model *md = &c->md;
    uint32_t i, j, q, st, n = md->n, ns = md->stages;
    size_t k1 = (size_t)md->k + 1;
    const double *y = c->d.x;
    double **k = c->rk_k;
    int first = 1;
    /* The phasors turn by the step; a grid step is dt itself (the float differences of the
     * grid times t0 + j dt differ from it by their rounding only): one rotation for all. */
    double hr = fabs(h - md->dt) <= 1e-9 * md->dt ? md->dt : h;
    if (hr != c->rot_h) {
        for (q = 0; q < md->k; q++) hfn_cos_sin(md->omega[q] * hr, &c->rot_re[q], &c->rot_im[q]);
        c->rot_h = hr;
    }
    if (hr != c->rot2_h) { /* each stage's rotation, by C[st] h */
        for (st = 0; st < ns; st++) {
            double *rre = c->rk_stage + 4 * st * k1, *rim = rre + k1;
            for (q = 0; q < md->k; q++)
                hfn_cos_sin(md->omega[q] * (md->tab_c[st] * hr), &rre[q], &rim[q]);
        }
        c->rot2_h = hr;
    }
    for (q = 0; q < md->k; q++) {
        double a = c->d.p_re[q], b = c->d.p_im[q];
        c->pe_re[q] = a * c->rot_re[q] - b * c->rot_im[q];
        c->pe_im[q] = a * c->rot_im[q] + b * c->rot_re[q];
    }
    if (md->lines && md->lines->si_n) { /* semi-implicit: the phasors at t + h/2 too */
        if (hr != c->rh_h) {
            for (q = 0; q < md->k; q++)
                hfn_cos_sin(md->omega[q] * (0.5 * hr), &c->rh_re[q], &c->rh_im[q]);
            c->rh_h = hr;
        }
        for (q = 0; q < md->k; q++) {
            double a = c->d.p_re[q], b = c->d.p_im[q];
            c->pm_re[q] = a * c->rh_re[q] - b * c->rh_im[q];
            c->pm_im[q] = a * c->rh_im[q] + b * c->rh_re[q];
        }
        hfn_si_step(c, t, h, t_grid, rk_deriv);
        return;
    }
    if (md->has_conv) hfn_conv_step_start(c, t - t_grid, y);
    for (st = 0; st < ns; st++) {
        double ts = t + md->tab_c[st] * h;
        const double *pr = c->d.p_re, *pim = c->d.p_im;
        if (md->tab_c[st] != 0.0) { /* the phasors at the stage's time */
            double *rre = c->rk_stage + 4 * st * k1, *rim = rre + k1;
            double *sre = rim + k1, *sim = sre + k1;
            for (q = 0; q < md->k; q++) {
                double a = c->d.p_re[q], b = c->d.p_im[q];
                sre[q] = a * rre[q] - b * rim[q];
                sim[q] = a * rim[q] + b * rre[q];
            }
            pr = sre; pim = sim;
        }
        rk_deriv(c, ts, ts - t_grid, stage_state(c, st, h), pr, pim, k[st]);
    }
    for (j = 0; j < ns; j++) { /* x + h sum_j B_j k_j */
        double b = md->tab_b[j];
        if (b == 0.0) continue;
        if (first) for (i = 0; i < n; i++) c->xnew[i] = b * k[j][i];
        else for (i = 0; i < n; i++) c->xnew[i] += b * k[j][i];
        first = 0;
    }
    if (first) memcpy(c->xnew, y, n * sizeof(double));
    else for (i = 0; i < n; i++) c->xnew[i] = y[i] + h * c->xnew[i];
}

/* rk_b = G [u; 1]: the held inputs' share of x' over the communication step. */
static void held_inputs(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i;
    for (i = 0; i < md->n; i++)
        c->rk_b[i] = c->cur_G[(size_t)i * (md->m + 1) + md->m];
    for (i = 0; i < md->n; i++) {
        const double *row = c->cur_G + (size_t)i * (md->m + 1);
        uint32_t j;
        double sum = 0.0;
        for (j = 0; j < md->m; j++) sum += row[j] * c->d.u[j];
        c->rk_b[i] += sum;
    }
}

int hfn_rk_advance(instance *c, double t_end, double *t_fail, double *h_fail, double *norm) {
    const hfn_model *md = &c->md;
    double eps = rk_grid_tolerance(c, t_end), time = *c->d.rk_time;
    uint32_t i;
    held_inputs(c);
    if (fabs(time - hfn_rk_grid_time(c)) <= eps) { /* on the grid: step from the grid time */
        time = hfn_rk_grid_time(c);
        if (md->has_input) hfn_rk_record(c, c->d.u[md->in_index], 0);
    }
    while (time < t_end - eps) {
        double t_grid = hfn_rk_grid_time(c), big = 0.0;
        double t_grid_next = *c->d.t0 + (*c->d.grid_index + 1.0) * md->dt;
        int on_grid = t_grid_next <= t_end + eps;
        double t_next = on_grid ? t_grid_next : t_end, h = t_next - time;
        if (!(h > 0.0)) { *t_fail = time; return -2; } /* time cannot advance: no hang */
        rk_step(c, time, h, t_grid);
        for (i = 0; i < md->n; i++) {
            double a = fabs(c->xnew[i]);
            if (!(a <= big)) big = a; /* NaN wins */
        }
        if (!(big <= md->div_limit)) { *t_fail = t_next; *h_fail = h; *norm = big; return -1; }
        memcpy(c->d.x, c->xnew, md->n * sizeof(double));
        memcpy(c->d.p_re, c->pe_re, md->k * sizeof(double));
        memcpy(c->d.p_im, c->pe_im, md->k * sizeof(double));
        time = t_next;
        if (on_grid) {
            *c->d.grid_index += 1.0;
            time = hfn_rk_grid_time(c);
            if (md->has_input) hfn_rk_record(c, c->d.u[md->in_index], 1);
            if (md->has_conv) hfn_conv_push(c, c->d.x);
        }
        *c->d.rot_count += 1.0;
        if (*c->d.rot_count >= RESYNC_STEPS) { hfn_phasors_at(c, time); *c->d.rot_count = 0.0; }
    }
    *c->d.rk_time = time;
    return 0;
}

