/* hydrofmu native runtime, the exact stepper (see hfn_exact.h). */
#include "hfn_exact.h"

#include <math.h>
#include <string.h>

#include "hfn_linalg.h"
#include "hfn_waves.h"

/* x_p at the current phasors for segment seg (0: ramp, 1: steady) into xp. */
static void particular(instance *c, int seg, double *xp) {
    const hfn_model *md = &c->md;
    const double *pre = c->d.p_re, *pim = c->d.p_im;
    const double *const *xc = c->cur_xc;
    uint32_t q, a, n = md->n, na = md->nact, k = md->k;
    double scale = *c->d.scale;
    for (a = 0; a < n; a++) xp[a] = 0.0;
    if (seg == 1 || !md->has_ramp) {
        for (a = 0; a < na; a++)
            xp[md->act[a]] = scale * hfn_re_dot(xc[0] + (size_t)a * k, xc[1] + (size_t)a * k,
                                            pre, pim, k);
    } else {
        /* p, p r, p conj(r) */
        double rr = c->d.r[0], ri = c->d.r[1];
        double *p3 = c->p3;
        int s;
        for (q = 0; q < k; q++) {
            p3[q] = pre[q]; p3[k + q] = pim[q];
            p3[2 * k + q] = pre[q] * rr - pim[q] * ri; p3[3 * k + q] = pre[q] * ri + pim[q] * rr;
            p3[4 * k + q] = pre[q] * rr + pim[q] * ri; p3[5 * k + q] = pim[q] * rr - pre[q] * ri;
        }
        for (a = 0; a < na; a++) {
            double sum = 0.0;
            for (s = 0; s < 3; s++)
                sum += hfn_re_dot(xc[2 + 2 * s] + (size_t)a * k, xc[3 + 2 * s] + (size_t)a * k,
                              p3 + 2 * (size_t)s * k, p3 + (2 * (size_t)s + 1) * k, k);
            xp[md->act[a]] = scale * sum;
        }
    }
}

/* The fused [Phi | Gamma] of a step length (cached; the precomputed one when it matches). */
static const double *matrices(instance *c, double h) {
    double hq;
    if (h == c->cache_h) return c->cur_fused;
    hq = hfn_quantized_step(h);
    if (hq == hfn_quantized_step(c->md.h0) && c->tun_at_build) {
        c->cur_fused = c->md.fused0;
    } else if (hq == c->cache_hq && c->cur_fused == c->fused) {
        /* same quantized length as the computed one */
    } else {
        if (hfn_discretize((int)c->md.n, (int)c->md.m + 1, c->cur_F, c->cur_G, hq, c->fused,
                           c->dwork, c->ipiv) != 0)
            return NULL;
        c->cache_hq = hq;
        c->cur_fused = c->fused;
    }
    c->cache_h = h;
    return c->cur_fused;
}

/* xnew <- xp1 + fused [x - xp0; u; 1]. */
static void propagate(instance *c, const double *x, const double *fused, const double *xp0,
                      const double *xp1) {
    const hfn_model *md = &c->md;
    uint32_t i, j, n = md->n, nz = md->nz;
    double *w = c->w;
    for (i = 0; i < n; i++) w[i] = x[i] - xp0[i];
    for (i = 0; i < md->m; i++) w[n + i] = c->d.u[i];
    w[nz - 1] = 1.0;
    /* Eight rows at a time: eight independent sums (each row's own order is kept). */
    for (i = 0; i + 8 <= n; i += 8) {
        const double *r = fused + (size_t)i * nz;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
        for (j = 0; j < nz; j++) {
            double wj = w[j];
            s0 += r[j] * wj; s1 += r[nz + j] * wj; s2 += r[2 * nz + j] * wj;
            s3 += r[3 * nz + j] * wj; s4 += r[4 * nz + j] * wj; s5 += r[5 * nz + j] * wj;
            s6 += r[6 * nz + j] * wj; s7 += r[7 * nz + j] * wj;
        }
        c->xnew[i] = xp1[i] + s0; c->xnew[i + 1] = xp1[i + 1] + s1;
        c->xnew[i + 2] = xp1[i + 2] + s2; c->xnew[i + 3] = xp1[i + 3] + s3;
        c->xnew[i + 4] = xp1[i + 4] + s4; c->xnew[i + 5] = xp1[i + 5] + s5;
        c->xnew[i + 6] = xp1[i + 6] + s6; c->xnew[i + 7] = xp1[i + 7] + s7;
    }
    for (; i < n; i++) {
        const double *row = fused + (size_t)i * nz;
        double s = 0.0;
        for (j = 0; j < nz; j++) s += row[j] * w[j];
        c->xnew[i] = xp1[i] + s;
    }
}

static void rotate(instance *c, double h) {
    uint32_t q;
    double rr, ri;
    if (h != c->rot_h) {
        for (q = 0; q < c->md.k; q++) hfn_cos_sin(c->md.omega[q] * h, &c->rot_re[q], &c->rot_im[q]);
        if (c->md.has_ramp)
            hfn_cos_sin(M_PI / c->md.ramp_time * h, &c->rot_ramp_re, &c->rot_ramp_im);
        c->rot_h = h;
    }
    for (q = 0; q < c->md.k; q++) {
        double a = c->d.p_re[q], b = c->d.p_im[q];
        c->d.p_re[q] = a * c->rot_re[q] - b * c->rot_im[q];
        c->d.p_im[q] = a * c->rot_im[q] + b * c->rot_re[q];
    }
    rr = c->d.r[0]; ri = c->d.r[1];
    c->d.r[0] = rr * c->rot_ramp_re - ri * c->rot_ramp_im;
    c->d.r[1] = rr * c->rot_ramp_im + ri * c->rot_ramp_re;
}

static int segment_of(const instance *c, double t) {
    if (c->md.has_ramp && c->md.k && t < *c->d.t0 + c->md.ramp_time) return 0;
    return 1;
}

/* A step within one segment: the phasors rotated (resynchronised every RESYNC_STEPS). */
static int step_in_segment(instance *c, double t, double t_end, int seg) {
    const hfn_model *md = &c->md;
    const double *fused = matrices(c, t_end - t);
    if (!fused) return -1;
    if (*c->d.xp_valid != 0.0 && *c->d.xp_seg == (double)seg) /* phasors: FMU time */
        memcpy(c->xp, c->d.xp, md->n * sizeof(double)); /* the last step's end */
    else
        particular(c, seg, c->xp);
    if (*c->d.rot_count + 1.0 >= RESYNC_STEPS) {
        hfn_phasors_at(c, t_end);
        *c->d.rot_count = 0.0;
    } else {
        rotate(c, t_end - t);
        *c->d.rot_count += 1.0;
    }
    particular(c, seg, c->xp1);
    c->end_seg = seg; c->xp1_t = t_end;
    propagate(c, c->d.x, fused, c->xp, c->xp1);
    return 0;
}

/* A step split where the segment ends (the end of the ramp): trigonometry for the phasors. */
static int step_across_segments(instance *c, double t, double t_end) {
    const hfn_model *md = &c->md;
    memcpy(c->xnew, c->d.x, md->n * sizeof(double));
    while (t < t_end) {
        double t_next, hs, seg_end;
        const double *fused;
        int seg = segment_of(c, t);
        seg_end = seg == 0 ? *c->d.t0 + md->ramp_time : INFINITY;
        t_next = seg_end > t ? (t_end < seg_end ? t_end : seg_end) : t_end;
        hs = t_next - t;
        if (hs <= 1e-12 * fmax(1.0, fabs(t_end))) { t = t_next; continue; }
        fused = matrices(c, hs);
        if (!fused) return -1;
        hfn_phasors_at(c, t);
        particular(c, seg, c->xp);
        hfn_phasors_at(c, t_next);
        particular(c, seg, c->xp1);
        c->end_seg = seg; c->xp1_t = t_next;
        memcpy(c->xtmp, c->xnew, md->n * sizeof(double));
        propagate(c, c->xtmp, fused, c->xp, c->xp1);
        t = t_next;
    }
    hfn_phasors_at(c, t_end);
    *c->d.rot_count = 0.0;
    return 0;
}

int hfn_exact_advance(instance *c, double t, double t_end) {
    int seg = segment_of(c, t);
    double seg_end = seg == 0 ? *c->d.t0 + c->md.ramp_time : INFINITY;
    c->xp1_t = NAN;
    if (t_end <= seg_end && t_end > t) return step_in_segment(c, t, t_end, seg);
    return step_across_segments(c, t, t_end);
}
