/* hydrofmu native runtime, the second-order wave loads and the current (see hfn_drift.h). */
#include "hfn_drift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hfn_waves.h"

/* Every entry finite. */
static int all_finite(const double *a, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

/* One body's products; 0, or -1 (the cursor marked bad). */
static int read_body(hfn_drift_model *dm, hfn_reader *r, hfn_drift_body *b) {
    size_t N = dm->N, i;
    b->dof0 = hfn_rd_u32(r); b->has_const = hfn_rd_u32(r); b->r = hfn_rd_u32(r);
    b->nt = hfn_rd_u32(r); b->has_sum = hfn_rd_u32(r);
    for (i = 0; i < 6; i++) b->c[i] = hfn_rd_f64(r);
    /* the rows: 6 N at most (Newman's 7 for N = 1); the terms: one per row pair at most */
    if (r->bad || (uint64_t)b->dof0 + 6u > dm->nq || b->has_const > 1u || b->has_sum > 1u ||
        b->r > 6u * dm->N + 1u || b->nt > 6u * dm->N + 6u || !all_finite(b->c, 6)) {
        r->bad = 1;
        return -1;
    }
    b->R_re = hfn_rd_array(r, (size_t)b->r * N);
    b->R_im = hfn_rd_array(r, (size_t)b->r * N);
    b->t_dof = hfn_rd_u32_array(r, b->nt);
    b->t_a = hfn_rd_u32_array(r, b->nt);
    b->t_b = hfn_rd_u32_array(r, b->nt);
    b->t_w = hfn_rd_array(r, b->nt);
    if (b->has_sum) {
        b->S_re = hfn_rd_array(r, 6 * N * N);
        b->S_im = hfn_rd_array(r, 6 * N * N);
    }
    if (r->bad) return -1;
    for (i = 0; i < b->nt; i++)
        if (b->t_dof[i] >= 6u || b->t_a[i] >= b->r || b->t_b[i] >= b->r) r->bad = 1;
    if (r->bad || !all_finite(b->R_re, (size_t)b->r * N) ||
        !all_finite(b->R_im, (size_t)b->r * N) || !all_finite(b->t_w, b->nt) ||
        (b->has_sum && (!all_finite(b->S_re, 6 * N * N) || !all_finite(b->S_im, 6 * N * N)))) {
        r->bad = 1;
        return -1;
    }
    return 0;
}

/* The drift bodies (nd > 0 read). */
static int read_drift(hfn_drift_model *dm, hfn_reader *r) {
    uint32_t i, rmax = 1;
    dm->N = hfn_rd_u32(r);
    dm->ramp_time = hfn_rd_f64(r);
    /* N >= 1 and each body's rows hold at least N doubles: N is bounded by the file */
    if (r->bad || dm->N == 0u || dm->N > 10000000u || !isfinite(dm->ramp_time) ||
        dm->nd > r->left / 68u || dm->nq == 0u) { /* a body: at least 68 bytes */
        r->bad = 1;
        return -1;
    }
    dm->omega = hfn_rd_array(r, dm->N);
    dm->OD = hfn_rd_array(r, (size_t)dm->nout * dm->nq);
    dm->bodies = (hfn_drift_body *)hfn_rd_alloc(r, dm->nd, sizeof(hfn_drift_body));
    if (r->bad || !all_finite(dm->omega, dm->N) ||
        !all_finite(dm->OD, (size_t)dm->nout * dm->nq)) {
        r->bad = 1;
        return -1;
    }
    for (i = 0; i < dm->nd; i++) {
        if (read_body(dm, r, &dm->bodies[i]) != 0) return -1;
        if (dm->bodies[i].r > rmax) rmax = dm->bodies[i].r;
    }
    dm->p_re = (double *)hfn_rd_alloc(r, dm->N, sizeof(double));
    dm->p_im = (double *)hfn_rd_alloc(r, dm->N, sizeof(double));
    dm->z_re = (double *)hfn_rd_alloc(r, rmax, sizeof(double));
    dm->z_im = (double *)hfn_rd_alloc(r, rmax, sizeof(double));
    dm->f = (double *)hfn_rd_alloc(r, 6 * (size_t)dm->nd, sizeof(double));
    dm->g = (double *)hfn_rd_alloc(r, dm->nq, sizeof(double));
    dm->last_t = NAN;
    return r->bad ? -1 : 0;
}

/* The lines' current tables, handed to the line kernel (hfn_lines.c). */
static int read_tables(hfn_drift_model *dm, hfn_reader *r, hfn_lines_model *lines) {
    uint32_t i, j;
    dm->ntables = hfn_rd_u32(r);
    if (r->bad || dm->ntables != (lines ? lines->nparts : 0u)) {
        if (dm->ntables) { r->bad = 1; return -1; } /* 0: still water everywhere */
        return 0;
    }
    dm->table_rows = (uint32_t *)hfn_rd_alloc(r, dm->ntables, sizeof(uint32_t));
    dm->table_z = (double **)hfn_rd_alloc(r, dm->ntables, sizeof(double *));
    dm->table_u = (double **)hfn_rd_alloc(r, dm->ntables, sizeof(double *));
    for (i = 0; i < dm->ntables && !r->bad; i++) {
        uint32_t rows = hfn_rd_u32(r);
        dm->table_rows[i] = rows;
        dm->table_z[i] = hfn_rd_array(r, rows);
        dm->table_u[i] = hfn_rd_array(r, 3 * (size_t)rows);
        if (r->bad || !all_finite(dm->table_z[i], rows) ||
            !all_finite(dm->table_u[i], 3 * (size_t)rows)) {
            r->bad = 1;
            break;
        }
        for (j = 0; j + 1 < rows; j++) /* ascending, as the kernel's search assumes */
            if (!(dm->table_z[i][j] < dm->table_z[i][j + 1])) r->bad = 1;
        if (!r->bad && rows)
            hfn_lines_set_current(lines, i, rows, dm->table_z[i], dm->table_u[i]);
    }
    return r->bad ? -1 : 0;
}

int hfn_drift_read(hfn_drift_model **out, hfn_reader *r, uint32_t nq, uint32_t nout,
                   uint32_t rk, hfn_lines_model *lines) {
    hfn_drift_model *dm;
    uint32_t nd, has_current;
    *out = NULL;
    nd = hfn_rd_u32(r);
    if (r->bad) return -1;
    dm = (hfn_drift_model *)calloc(1, sizeof *dm);
    if (!dm) { r->bad = 1; return -1; }
    *out = dm; /* freed by hfn_model_free, whatever happens below */
    dm->nd = nd; dm->nq = nq; dm->nout = nout;
    if (nd && (!rk || read_drift(dm, r) != 0)) { r->bad = 1; return -1; }
    has_current = hfn_rd_u32(r);
    if (r->bad || has_current > 1u || (has_current && !rk)) { r->bad = 1; return -1; }
    if (has_current) {
        dm->current = hfn_rd_array(r, nq);
        if (r->bad || !all_finite(dm->current, nq)) { r->bad = 1; return -1; }
    }
    if (read_tables(dm, r, lines) != 0) return -1;
    if (!dm->nd && !dm->current && !dm->ntables) { hfn_drift_free(dm); *out = NULL; }
    return 0;
}

void hfn_drift_free(hfn_drift_model *dm) {
    uint32_t i;
    if (!dm) return;
    if (dm->bodies)
        for (i = 0; i < dm->nd; i++) {
            hfn_drift_body *b = &dm->bodies[i];
            free(b->R_re); free(b->R_im); free(b->t_dof); free(b->t_a); free(b->t_b);
            free(b->t_w); free(b->S_re); free(b->S_im);
        }
    for (i = 0; i < dm->ntables; i++) {
        if (dm->table_z) free(dm->table_z[i]);
        if (dm->table_u) free(dm->table_u[i]);
    }
    free(dm->table_rows); free(dm->table_z); free(dm->table_u);
    free(dm->bodies); free(dm->omega); free(dm->OD); free(dm->current);
    free(dm->p_re); free(dm->p_im); free(dm->z_re); free(dm->z_im); free(dm->f); free(dm->g);
    free(dm);
}

/* One body's unramped load at the phasors p into f (6), term for term as DriftLoad.force. */
static void body_load(const hfn_drift_model *dm, const hfn_drift_body *b, double *f) {
    uint32_t i, j, d, N = dm->N;
    const double *pr = dm->p_re, *pi_ = dm->p_im;
    for (d = 0; d < 6; d++) f[d] = b->has_const ? b->c[d] : 0.0;
    for (i = 0; i < b->r; i++) { /* z = R p */
        const double *rr = b->R_re + (size_t)i * N, *ri = b->R_im + (size_t)i * N;
        double sr = 0.0, si = 0.0;
        for (j = 0; j < N; j++) {
            sr += rr[j] * pr[j] - ri[j] * pi_[j];
            si += rr[j] * pi_[j] + ri[j] * pr[j];
        }
        dm->z_re[i] = sr; dm->z_im[i] = si;
    }
    for (i = 0; i < b->nt; i++) { /* w Re(z_a conj(z_b)) */
        uint32_t a = b->t_a[i], c = b->t_b[i];
        f[b->t_dof[i]] += b->t_w[i] * (dm->z_re[a] * dm->z_re[c] + dm->z_im[a] * dm->z_im[c]);
    }
    if (b->has_sum) /* Re(sum_i p_i (S_d p)_i) */
        for (d = 0; d < 6; d++) {
            double total = 0.0;
            for (i = 0; i < N; i++) {
                size_t row = ((size_t)d * N + i) * N;
                const double *sr = b->S_re + row, *si = b->S_im + row;
                double zr = 0.0, zi = 0.0;
                for (j = 0; j < N; j++) {
                    zr += sr[j] * pr[j] - si[j] * pi_[j];
                    zi += sr[j] * pi_[j] + si[j] * pr[j];
                }
                total += zr * pr[i] - zi * pi_[i];
            }
            f[d] += total;
        }
}

/* dm->g (nq): the drift loads at t (the unramped ones cached by t). */
static void loads(hfn_drift_model *dm, double t, double t0, double scale) {
    uint32_t i, d;
    double rs = scale * hfn_half_cosine(t - t0, dm->ramp_time), factor = rs * rs;
    if (!(t == dm->last_t)) {
        for (i = 0; i < dm->N; i++) hfn_cos_sin(dm->omega[i] * t, &dm->p_re[i], &dm->p_im[i]);
        for (i = 0; i < dm->nd; i++) body_load(dm, &dm->bodies[i], dm->f + 6 * (size_t)i);
        dm->last_t = t;
    }
    memset(dm->g, 0, dm->nq * sizeof(double));
    if (factor == 0.0) return;
    for (i = 0; i < dm->nd; i++)
        for (d = 0; d < 6; d++)
            dm->g[dm->bodies[i].dof0 + d] += factor * dm->f[6 * (size_t)i + d];
}

void hfn_drift_add(hfn_drift_model *dm, double t, double t0, double scale, double *g) {
    uint32_t i;
    if (!dm->nd) return;
    loads(dm, t, t0, scale);
    for (i = 0; i < dm->nq; i++) g[i] += dm->g[i];
}

void hfn_drift_outputs(hfn_drift_model *dm, double t, double t0, double scale, double *out) {
    uint32_t i, j;
    if (!dm->nd) return;
    loads(dm, t, t0, scale);
    for (i = 0; i < dm->nout; i++) {
        const double *row = dm->OD + (size_t)i * dm->nq;
        double s = 0.0;
        for (j = 0; j < dm->nq; j++) s += row[j] * dm->g[j];
        out[i] += s;
    }
}
