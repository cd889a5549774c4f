/* hydrofmu native runtime, the load FMU (see hfn_load.h). */
#include "hfn_load.h"

#include <math.h>
#include <string.h>

#include "hfn_conv.h"
#include "hfn_linalg.h"
#include "hfn_outputs.h"
#include "hfn_tunables.h"
#include "hfn_waves.h"

#define NQ(md) (6u * (md)->load_nb)

size_t hfn_load_state_size(const hfn_model *md) {
    return md->load ? 2 + 3 * (size_t)NQ(md) + md->m : 0;
}

/* work: k1..k4, the stage state, the advanced state, its derivative (7 n); the stage's
 * input vector and the Hermite pose and velocity (m + 1 + 2 nq); a gap (m + 1); the current
 * (or the seed's) motion rows (3 nq); then zeros, never written (3 nq + m + n + 1); the
 * Hermite pose and velocity of a history sample (2 nq); the convolution's state saved
 * while the outputs read it advanced (hfn_conv_state_size). */
#define ROWS(md) (7 * (size_t)(md)->n + 2 * ((size_t)(md)->m + 1) + 2 * (size_t)NQ(md))
#define ZEROS(md) (ROWS(md) + 3 * (size_t)NQ(md))
#define SAMPLE(md) (ZEROS(md) + 3 * (size_t)NQ(md) + (md)->m + (md)->n + 1)
#define SAVED(md) (SAMPLE(md) + 2 * (size_t)NQ(md))
/* time_scheme = "exact": the step its blocks are for, the blocks [Phi | Psi_0..Psi_5]
 * (n x 7 n), the polynomial's forcing b (6 x n); the exponential's matrix, result and work
 * (8 (7 n)^2) and its pivots (7 n ints, in doubles never read as such) */
#define EXACT(md) (SAVED(md) + hfn_conv_state_size(md))
#define TERMS 6
#define BIG(md) ((size_t)(TERMS + 1) * (md)->n)
static size_t exact_size(const hfn_model *md) {
    return md->load_exact ? 1 + BIG(md) * md->n + TERMS * (size_t)md->n + 8 * BIG(md) * BIG(md)
                                + BIG(md) : 0;
}
size_t hfn_load_work_size(const hfn_model *md) {
    return md->load ? EXACT(md) + exact_size(md) : 0;
}

/* Advance the part states (ADV_STATES) and push the radiation history (ADV_CONV). */
enum { ADV_STATES = 1, ADV_CONV = 2 };

/* The convolution's part of the dynamic state (position, history, grid sums: one run of
 * the block) saved into the work, or restored from it. */
static void conv_keep(instance *c, int restore) {
    const hfn_model *md = &c->md;
    double *saved = c->load_work + SAVED(md);
    size_t size = hfn_conv_state_size(md) * sizeof(double);
    if (!size) return;
    if (restore) memcpy(c->d.conv_pos, saved, size);
    else memcpy(saved, c->d.conv_pos, size);
}

int hfn_load_consistent(const hfn_model *md, const double *load) {
    if (!md->load) return 1;
    return (load[0] == 0.0 || load[0] == 1.0) && isfinite(load[1]);
}

/* The motion rows (q, v, a), 3 x nq, of an input vector u. */
static void motion_rows(const hfn_model *md, const double *u, double *rows) {
    uint32_t b, i, nq = NQ(md);
    for (b = 0; b < md->load_nb; b++)
        for (i = 0; i < 6; i++) {
            rows[6 * b + i] = u[18 * b + i];
            rows[nq + 6 * b + i] = u[18 * b + 6 + i];
            rows[2 * nq + 6 * b + i] = u[18 * b + 12 + i];
        }
}

/* The quintic Hermite motion through s0 and s1 (rows q, v, a) over h at tau: q and v
 * (runtime/loads/model.py hermite_motion, term by term). */
static void hermite(uint32_t nq, double h, const double *s0, const double *s1, double tau,
                    double *q, double *v) {
    double s = tau / h, s2 = s * s, s3 = pow(s, 3), s4 = pow(s, 4), s5 = pow(s, 5);
    double h00 = 1 - 10 * s3 + 15 * s4 - 6 * s5, h10 = s - 6 * s3 + 8 * s4 - 3 * s5;
    double h20 = 0.5 * (s2 - 3 * s3 + 3 * s4 - s5), h01 = 10 * s3 - 15 * s4 + 6 * s5;
    double h11 = -4 * s3 + 7 * s4 - 3 * s5, h21 = 0.5 * (s3 - 2 * s4 + s5);
    double d00 = (-30 * s2 + 60 * s3 - 30 * s4) / h, d10 = 1 - 18 * s2 + 32 * s3 - 15 * s4;
    double d20 = 0.5 * h * (2 * s - 9 * s2 + 12 * s3 - 5 * s4);
    double d11 = -12 * s2 + 28 * s3 - 15 * s4, d21 = 0.5 * h * (3 * s2 - 8 * s3 + 5 * s4);
    uint32_t i;
    for (i = 0; i < nq; i++) {
        double q0 = s0[i], v0 = s0[nq + i], a0 = s0[2 * nq + i];
        double q1 = s1[i], v1 = s1[nq + i], a1 = s1[2 * nq + i];
        q[i] = h00 * q0 + h * h10 * v0 + h * h * h20 * a0 + h01 * q1 + h * h11 * v1
               + h * h * h21 * a1;
        v[i] = d00 * q0 + d10 * v0 + d20 * a0 - d00 * q1 + d11 * v1 + d21 * a1;
    }
}

typedef struct {
    const double *s0, *s1, *held; /* motion rows at both ends; the held inputs (m) */
    double h;                     /* the step from the committed sample */
    int homogeneous;              /* 1: without G's constant column (a derivative) */
} motion_path;

/* dx = F x + G [u(tau); 1]: the held inputs with the pose and velocity of the Hermite
 * motion (the parts read no acceleration). */
static void state_rate(instance *c, const motion_path *mp, double tau, const double *x,
                       double *dx) {
    const hfn_model *md = &c->md;
    uint32_t i, j, b, n = md->n, m = md->m, nq = NQ(md);
    double *w = c->load_work + 7 * (size_t)n, *q = w + m + 1, *v = q + nq;
    hermite(nq, mp->h, mp->s0, mp->s1, tau, q, v);
    memcpy(w, mp->held, m * sizeof(double));
    for (b = 0; b < md->load_nb; b++)
        for (i = 0; i < 6; i++) {
            w[18 * b + i] = q[6 * b + i];
            w[18 * b + 6 + i] = v[6 * b + i];
            w[18 * b + 12 + i] = 0.0;
        }
    w[m] = mp->homogeneous ? 0.0 : 1.0;
    for (i = 0; i < n; i++) {
        const double *f = md->F + (size_t)i * n, *g = md->G + (size_t)i * (m + 1);
        double s = 0.0;
        for (j = 0; j < n; j++) s += f[j] * x[j];
        for (j = 0; j <= m; j++) s += g[j] * w[j];
        dx[i] = s;
    }
}

/* Monomial coefficients (s^0..s^5) of the quintic Hermite basis, one row per datum q0,
 * h v0, h^2 a0, q1, h v1, h^2 a1 (runtime/loads/exact.py HERMITE). */
static const double HERMITE[6][TERMS] = {
    {1.0, 0.0, 0.0, -10.0, 15.0, -6.0}, {0.0, 1.0, 0.0, -6.0, 8.0, -3.0},
    {0.0, 0.0, 0.5, -1.5, 1.5, -0.5},   {0.0, 0.0, 0.0, 10.0, -15.0, 6.0},
    {0.0, 0.0, 0.0, -4.0, 7.0, -3.0},   {0.0, 0.0, 0.0, 0.5, -1.0, 0.5}};

/* [e^{F h} | Psi_0 | ... | Psi_5] for the step h (ExactStates.phi_blocks): the first block
 * row of the exponential of [F h, I, 0..; 0, 0, I, ..; ...], Psi_k = h k! phi_{k+1};
 * cached for the last h. 0, or -1 when the exponential fails. */
static int exact_blocks(instance *c, double h) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, i, j, k;
    size_t big = BIG(md);
    double *at = c->load_work + EXACT(md), *blocks = at + 1;
    double *w = blocks + big * n + TERMS * (size_t)n, *e = w + big * big, *work = e + big * big;
    int *ipiv = (int *)(void *)(work + 6 * big * big);
    double fact = 1.0;
    if (at[0] == h && h > 0.0) return 0;
    at[0] = 0.0;
    memset(w, 0, big * big * sizeof(double));
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) w[i * big + j] = md->F[(size_t)i * n + j] * h;
    for (k = 0; k < TERMS; k++)
        for (i = 0; i < n; i++) w[(k * n + i) * big + (k + 1) * n + i] = 1.0;
    if (hfn_expm((int)big, w, e, work, ipiv) != 0) return -1;
    for (i = 0; i < n; i++)
        for (j = 0; j < big; j++) blocks[i * big + j] = e[i * big + j];
    for (k = 0; k < TERMS; k++) {
        if (k) fact *= (double)k;
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) blocks[i * big + (k + 1) * n + j] *= h * fact;
    }
    at[0] = h;
    return 0;
}

/* The states h after x0 exactly along the Hermite motion of mp (held inputs, constant
 * unless homogeneous) into xa (ExactStates.step); 0, or -1 (the exponential failed). */
static int exact_states(instance *c, const motion_path *mp, double h, const double *x0,
                        double *xa) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, m = md->m, nq = NQ(md), i, j, k, r, b;
    size_t big = BIG(md);
    double *blocks = c->load_work + EXACT(md) + 1, *bk = blocks + big * n;
    if (exact_blocks(c, h) != 0) return -1;
    memset(bk, 0, TERMS * (size_t)n * sizeof(double));
    for (b = 0; b < md->load_nb; b++)
        for (i = 0; i < 6; i++) {
            uint32_t d = 6 * b + i;
            double data[6], qk[TERMS], vk;
            data[0] = mp->s0[d]; data[1] = h * mp->s0[nq + d]; data[2] = h * h * mp->s0[2 * nq + d];
            data[3] = mp->s1[d]; data[4] = h * mp->s1[nq + d]; data[5] = h * h * mp->s1[2 * nq + d];
            for (k = 0; k < TERMS; k++) {
                qk[k] = 0.0;
                for (j = 0; j < 6; j++) qk[k] += HERMITE[j][k] * data[j];
            }
            for (k = 0; k < TERMS; k++) {
                vk = k + 1 < TERMS ? (double)(k + 1) * qk[k + 1] / h : 0.0;
                for (r = 0; r < n; r++) {
                    const double *g = md->G + (size_t)r * (m + 1);
                    bk[(size_t)k * n + r] += g[18 * b + i] * qk[k] + g[18 * b + 6 + i] * vk;
                }
            }
        }
    for (r = 0; r < n; r++) { /* the held inputs and the constant */
        const double *g = md->G + (size_t)r * (m + 1);
        double s = mp->homogeneous ? 0.0 : g[m];
        for (j = 18 * md->load_nb; j < m; j++) s += g[j] * mp->held[j];
        bk[r] += s;
    }
    for (r = 0; r < n; r++) {
        const double *row = blocks + (size_t)r * big;
        double s = 0.0;
        for (j = 0; j < n; j++) s += row[j] * x0[j];
        for (k = 0; k < TERMS; k++)
            for (j = 0; j < n; j++) s += row[(k + 1) * n + j] * bk[(size_t)k * n + j];
        xa[r] = s;
    }
    return 0;
}

/* out += OG [g; 0] with the drag g = -BQ v |v| at the DOF velocities v (nq), or its
 * derivative -2 BQ |v| dv along dv when dv is given. */
static void drag_outputs(const instance *c, const double *v, const double *dv, double *out) {
    const hfn_model *md = &c->md;
    uint32_t i, j;
    for (i = 0; i < md->nout; i++) {
        double s = 0.0;
        for (j = md->og_ptr[i]; j < md->og_ptr[i + 1]; j++) {
            uint32_t d = md->og_idx[j];
            if (d >= md->nq) continue; /* the excitation's columns: none here */
            s += md->og_val[j] * (dv ? -2.0 * md->BQ[d] * fabs(v[d]) * dv[d]
                                     : -md->BQ[d] * v[d] * fabs(v[d]));
        }
        out[i] += s;
    }
}

/* The most internal steps one call may take: the Integer parameter
 * max_internal_steps_per_call when the model has it (every build declares it), as the
 * Runge-Kutta mode counts them. */
static double step_limit(const instance *c) {
    return c->step_limit_index >= 0 ? (double)c->par_i[c->step_limit_index] : 1e7;
}

/* The states from the committed sample (x0 there) to t: one RK4 step per internal step
 * along the Hermite motion (LoadModel._rk4), into xa (what & ADV_STATES); the velocities at
 * the grid times after the sample pushed into the radiation history, the Hermite motion's
 * inside, the end's at t (what & ADV_CONV; the history is changed, the caller keeps it);
 * 0, or -1 when t is not a whole number of internal steps after it (nothing changed), -2
 * when the exact step's exponential fails (time_scheme = "exact": the states exactly over
 * the whole step, exact_states). */
static int advance(instance *c, const motion_path *mp0, const double *x0, double t,
                   double *xa, int what) {
    const hfn_model *md = &c->md;
    const double *load = c->d.load;
    uint32_t n = what & ADV_STATES ? md->n : 0u, i, nq = NQ(md);
    int conv = (what & ADV_CONV) && md->has_conv;
    double *k1 = c->load_work, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *y = k4 + n;
    double *sq = c->load_work + SAMPLE(md), *sv = sq + nq;
    double kk, h, t_last = load[1];
    long k, j;
    motion_path mp = *mp0;
    memcpy(xa, x0, md->n * sizeof(double));
    if (load[0] == 0.0) { /* no sample committed: the parts at rest, the history from now */
        if (conv) hfn_conv_restart(c, mp0->s1 + nq);
        return 0;
    }
    if (!n && !conv) return 0;
    kk = (t - t_last) / md->load_dt;
    /* at most the step limit (a restored state's times are any finite numbers) */
    if (!(kk >= 0.5 && kk <= step_limit(c))) return -1;
    k = lround(kk);
    if (!(k >= 1 && fabs(kk - (double)k) <= 1e-6)) return -1;
    h = t - t_last;
    mp.h = h;
    for (j = 1; j <= k; j++) {
        double ta = (double)(j - 1) * h / (double)k, tb = (double)j * h / (double)k;
        double hh = tb - ta;
        if (conv) { /* the sample at tb: the Hermite motion's inside, the end's at t */
            if (j < k) hermite(nq, h, mp.s0, mp.s1, tb, sq, sv);
            hfn_conv_record(c, j < k ? sv : mp.s1 + nq, j == k);
        }
        if (!n) continue;
        if (md->load_exact) { /* exact over the whole step (its linear parts' commits read
                               * no state) */
            if (j == k && exact_states(c, &mp, h, x0, xa) != 0) return -2;
            continue;
        }
        state_rate(c, &mp, ta, xa, k1);
        for (i = 0; i < n; i++) y[i] = xa[i] + hh / 2 * k1[i];
        state_rate(c, &mp, ta + hh / 2, y, k2);
        for (i = 0; i < n; i++) y[i] = xa[i] + hh / 2 * k2[i];
        state_rate(c, &mp, ta + hh / 2, y, k3);
        for (i = 0; i < n; i++) y[i] = xa[i] + hh * k3[i];
        state_rate(c, &mp, tb, y, k4);
        for (i = 0; i < n; i++)
            xa[i] = xa[i] + hh / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    return 0;
}

/* The motion path from the committed sample to the current inputs. */
static void current_path(instance *c, motion_path *mp, double *rows) {
    const double *load = c->d.load;
    motion_rows(&c->md, c->d.u, rows);
    mp->s0 = load + 2;
    mp->s1 = rows;
    mp->held = load + 2 + 3 * (size_t)NQ(&c->md);
    mp->h = 0.0;
    mp->homogeneous = 0;
}

void hfn_load_outputs(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, i, j;
    double *xa = c->load_work + 5 * (size_t)n;
    double *rows = c->load_work + ROWS(md), *out = c->d.out, rf;
    motion_path mp;
    current_path(c, &mp, rows);
    conv_keep(c, 0); /* the history is advanced to now for the outputs only */
    if (advance(c, &mp, c->d.x, *c->d.time, xa, ADV_STATES | ADV_CONV) != 0) {
        conv_keep(c, 1);
        return; /* off the grid: kept */
    }
    hfn_tunables_current(c, 0);
    for (i = 0; i < md->nout; i++) {
        double s = 0.0;
        for (j = c->cur_c_ptr[i]; j < c->cur_c_ptr[i + 1]; j++) {
            uint32_t col = c->cur_c_idx[j];
            double w = col < n ? xa[col] : col < n + md->m ? c->d.u[col - n] : 1.0;
            s += c->cur_c_val[j] * w;
        }
        out[i] = s;
    }
    rf = hfn_ramp_factor(c, *c->d.time) * *c->d.scale;
    if (rf != 0.0)
        for (i = 0; i < md->nh; i++)
            out[md->hrows[i]] += rf * hfn_re_dot(md->h_re + (size_t)i * md->k,
                                                 md->h_im + (size_t)i * md->k, c->d.p_re,
                                                 c->d.p_im, md->k);
    if (md->has_conv) hfn_conv_outputs_at(c, 0.0, rows + NQ(md), out); /* on the grid */
    if (md->has_drag) drag_outputs(c, rows + NQ(md), NULL, out);
    conv_keep(c, 1);
    *c->d.dirty = 0.0;
}

fmi2Status hfn_load_step(instance *c, double t, double h) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, nq = NQ(md);
    double *xa = c->load_work + 5 * (size_t)n, *load = c->d.load;
    double *rows = c->load_work + ROWS(md);
    double kk = h / md->load_dt;
    int adv;
    motion_path mp;
    if (kk > step_limit(c)) {
        hfn_log(c, fmi2Discard, "logStatusDiscard", "fmi2DoStep refused before any work: a "
                "step of %.17g s takes %.3g internal steps of %.17g s, above the limit "
                "max_internal_steps_per_call = %.17g; take shorter communication steps or "
                "raise the parameter", h, kk, md->load_dt, step_limit(c));
        return fmi2Discard;
    }
    if (!(fabs(kk - round(kk)) <= 1e-6 && round(kk) >= 1.0)) {
        REFUSE(c, "fmi2DoStep refused: communication step %.17g s is not a whole number of "
               "max_internal_step = %.17g s (the grid of the part states); use a multiple "
               "of it, or set max_internal_step to the communication step", h, md->load_dt);
        return fmi2Error;
    }
    current_path(c, &mp, rows);
    adv = advance(c, &mp, c->d.x, *c->d.time, xa, ADV_STATES | ADV_CONV);
    if (adv == -2) {
        REFUSE(c, "fmi2DoStep refused: the matrix exponential of the exact step from %.17g s "
               "to %.17g s failed (time_scheme = 'exact'); take shorter steps",
               load[1], *c->d.time);
        return fmi2Error;
    }
    if (adv != 0) {
        REFUSE(c, "fmi2DoStep refused: the FMU's time %.17g s is not a whole number of "
               "max_internal_step = %.17g s after its last step (%.17g s)", *c->d.time,
               md->load_dt, load[1]);
        return fmi2Error;
    }
    memcpy(c->d.x, xa, n * sizeof(double));
    memcpy(load + 2, rows, 3 * (size_t)nq * sizeof(double));
    memcpy(load + 2 + 3 * (size_t)nq, c->d.u, md->m * sizeof(double));
    load[1] = *c->d.time;
    load[0] = 1.0;
    *c->d.time = t + h;
    hfn_phasors_at(c, *c->d.time);
    hfn_compute_outputs(c);
    return fmi2OK;
}

const double *hfn_load_state_derivative(instance *c, const double *du) {
    const hfn_model *md = &c->md;
    double *dxa = c->load_work + 6 * (size_t)md->n, *rows = c->load_work + ROWS(md);
    const double *zeros = c->load_work + ZEROS(md);
    motion_path mp;
    /* the states are linear in the end motion: the path from rest (no state, no motion,
     * no held input, no constant) to the seed's motion */
    motion_rows(md, du, rows);
    mp.s0 = zeros;
    mp.s1 = rows;
    mp.held = zeros;
    mp.h = 0.0;
    mp.homogeneous = 1;
    if (advance(c, &mp, zeros, *c->d.time, dxa, ADV_STATES) != 0) return NULL;
    return dxa;
}

void hfn_load_derivative_terms(instance *c, const double *du, double *dy) {
    const hfn_model *md = &c->md;
    double *dxa = c->load_work + 6 * (size_t)md->n, *rows = c->load_work + ROWS(md);
    const double *zeros = c->load_work + ZEROS(md);
    motion_path mp;
    if (md->has_drag) { /* at the current velocity inputs, along the seed's */
        double *v = c->load_work + SAMPLE(md), *dv = v + NQ(md);
        motion_rows(md, c->d.u, rows);
        memcpy(v, rows + NQ(md), NQ(md) * sizeof(double));
        motion_rows(md, du, rows);
        memcpy(dv, rows + NQ(md), NQ(md) * sizeof(double));
        drag_outputs(c, v, dv, dy);
    }
    if (!md->has_conv) return;
    /* the force is linear in the history: the seed's history from rest (nothing before the
     * committed sample), the path from rest to the seed's motion */
    conv_keep(c, 0);
    memset(c->d.conv_pos, 0, hfn_conv_state_size(md) * sizeof(double));
    motion_rows(md, du, rows);
    mp.s0 = zeros;
    mp.s1 = rows;
    mp.held = zeros;
    mp.h = 0.0;
    mp.homogeneous = 1;
    if (advance(c, &mp, zeros, *c->d.time, dxa, ADV_CONV) == 0)
        hfn_conv_outputs_at(c, 0.0, rows + NQ(md), dy);
    conv_keep(c, 1);
}
