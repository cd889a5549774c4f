/* hydrofmu native runtime, the large-rotation bodies (see hfn_bodies.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hfn_internal.h"

/* The one rigid-body kernel (runtime/bodies/body_kernel.c, found through -I, as the panel
 * kernel; the FMU's sources/ carry it beside this file), its functions hidden here. */
#define HB_EXPORT HFN_HIDDEN
#include "body_kernel.c"

#include "hfn_bodies.h"
#include "hfn_reader.h"
#include "hfn_waves.h"

#define HFN_NONE 0xFFFFFFFFu

struct hfn_bodies_s {
    struct hb_model km;
    uint32_t nb, n, nr, groups, N, m, nout, k, nz, nw, quat_row, static_g, wave_g, nprod;
    uint32_t drag_g, drag_frame; /* the quadratic drag's group and frame (bq: NULL, none) */
    double *bq;
    int64_t *ints; /* kind, dof0, quat, frame, axis: 5 nb */
    double *geometry, *mass, *basis, *lhs0, *added, *work;
    double *force, *s_re, *s_im, *state, *out, *os_re, *os_im, *prod_c;
    uint32_t *prod_i;
    /* per evaluation (allocated once): */
    double *z, *zb, *chan, *fb, *tb, *rot, *d, *q, *v, *acc, *fc, *vr, *total, *turned;
};

void hfn_bodies_free(hfn_bodies_model *bm) {
    if (!bm) return;
    free(bm->ints); free(bm->geometry); free(bm->mass); free(bm->basis); free(bm->lhs0);
    free(bm->added); free(bm->work); free(bm->force); free(bm->s_re); free(bm->s_im);
    free(bm->state); free(bm->out); free(bm->os_re); free(bm->os_im); free(bm->prod_c);
    free(bm->prod_i); free(bm->z); free(bm->zb); free(bm->chan); free(bm->fb); free(bm->tb);
    free(bm->rot); free(bm->d); free(bm->q); free(bm->v); free(bm->acc); free(bm->fc);
    free(bm->vr); free(bm->total); free(bm->turned); free(bm->bq);
    free(bm);
}

static int all_finite(const double *a, size_t count) {
    size_t i;
    for (i = 0; i < count; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

static double *zeros(size_t count) { return (double *)calloc(count + 1, sizeof(double)); }

/* The section's indices in range (0) or not (-1). */
static int check_indices(const hfn_bodies_model *bm) {
    uint32_t i;
    uint64_t quats = 0;
    for (i = 0; i < bm->nb; i++) {
        const int64_t *e = bm->ints + 5 * (size_t)i;
        if (e[0] < HB_NONE || e[0] > HB_HINGE || e[1] < 0 || e[1] % 6 || e[1] + 6 > bm->n ||
            e[3] < 0 || e[3] > 1 || e[4] < 0 || e[4] > 2)
            return -1;
        if (e[0] == HB_FREE) {
            if (e[2] < 2 * (int64_t)bm->nr || e[2] + 4 > (int64_t)bm->N) return -1;
            quats++;
        } else if (e[2] != -1) {
            return -1;
        }
    }
    if (bm->quat_row != HFN_NONE && (uint64_t)bm->quat_row + 4u * bm->nb > bm->nout) return -1;
    if ((bm->static_g != HFN_NONE && bm->static_g >= bm->groups) ||
        (bm->wave_g != HFN_NONE && bm->wave_g >= bm->groups))
        return -1;
    for (i = 0; i < bm->nprod; i++)
        if (bm->prod_i[3 * i] >= bm->nout || bm->prod_i[3 * i + 1] >= bm->nout ||
            bm->prod_i[3 * i + 2] >= bm->nout || !isfinite(bm->prod_c[i]))
            return -1;
    return quats * 4u <= bm->N ? 0 : -1;
}

int hfn_bodies_read(hfn_bodies_model **out, struct hfn_reader_s *r, uint32_t N, uint32_t m,
                    uint32_t nout, uint32_t k, uint32_t nq, char *err, size_t err_size) {
    hfn_bodies_model *bm;
    uint32_t nb = hfn_rd_u32(r), head[6], i, *u;
    size_t n, nr, g, nz, nw;
    *out = NULL;
    if (r->bad) {
        snprintf(err, err_size, "resources/model.bin is corrupt (it ends before its bodies "
                 "section); rebuild the FMU with hydrofmu build");
        return -1;
    }
    if (nb == 0u) return 0;
    for (i = 0; i < 6; i++) head[i] = hfn_rd_u32(r);
    n = head[0]; nr = head[1]; g = head[2];
    /* sizes a model can have (and whose products below cannot wrap a size_t) */
    if (r->bad || nq == 0u || n != nq || nb > n / 6u || nr == 0u || nr > n || 2 * nr > N ||
        g == 0u || g > 64u || n > 65536u || N > (1u << 20) || m > (1u << 20) ||
        k > (1u << 20)) {
        snprintf(err, err_size, "resources/model.bin: %u large-rotation bodies of %u DOFs, %u "
                 "reduced coordinates, %u force groups for %u states and %u DOFs (the "
                 "Runge-Kutta mode steps them); rebuild the FMU with hydrofmu build",
                 (unsigned)nb, (unsigned)n, (unsigned)nr, (unsigned)g, (unsigned)N,
                 (unsigned)nq);
        return -1;
    }
    nz = 2 * n + N + m + 1;
    nw = (4 + g) * n + N + m + 1;
    bm = (hfn_bodies_model *)calloc(1, sizeof *bm);
    if (!bm) {
        snprintf(err, err_size, "out of memory reading the bodies section of model.bin");
        return -1;
    }
    bm->nb = nb; bm->n = (uint32_t)n; bm->nr = (uint32_t)nr; bm->groups = (uint32_t)g;
    bm->N = N; bm->m = m; bm->nout = nout; bm->k = k; bm->nz = (uint32_t)nz;
    bm->nw = (uint32_t)nw; bm->quat_row = head[3]; bm->static_g = head[4]; bm->wave_g = head[5];
    u = hfn_rd_u32_array(r, 5 * (size_t)nb);
    bm->ints = (int64_t *)calloc(5 * (size_t)nb + 1, sizeof(int64_t));
    if (u && bm->ints)
        for (i = 0; i < 5 * nb; i++) bm->ints[i] = u[i] == HFN_NONE ? -1 : (int64_t)u[i];
    free(u);
    bm->geometry = hfn_rd_array(r, 6 * (size_t)nb);
    bm->mass = hfn_rd_array(r, 36 * (size_t)nb);
    bm->basis = hfn_rd_array(r, n * nr);
    bm->lhs0 = hfn_rd_array(r, n * n);
    bm->added = hfn_rd_array(r, n * n);
    bm->force = hfn_rd_array(r, 2 * g * n * nz);
    bm->s_re = hfn_rd_array(r, 2 * g * n * k);
    bm->s_im = hfn_rd_array(r, 2 * g * n * k);
    bm->state = hfn_rd_array(r, 2 * (size_t)N * nz);
    bm->out = hfn_rd_array(r, (size_t)nout * nw);
    bm->os_re = hfn_rd_array(r, (size_t)nout * k);
    bm->os_im = hfn_rd_array(r, (size_t)nout * k);
    bm->nprod = hfn_rd_u32(r);
    if (!r->bad && bm->nprod <= nout) {
        bm->prod_i = (uint32_t *)calloc(3 * (size_t)bm->nprod + 1, sizeof(uint32_t));
        bm->prod_c = zeros(bm->nprod);
        if (!bm->prod_i || !bm->prod_c) r->bad = 1;
        for (i = 0; !r->bad && i < bm->nprod; i++) {
            bm->prod_i[3 * i] = hfn_rd_u32(r); bm->prod_i[3 * i + 1] = hfn_rd_u32(r);
            bm->prod_i[3 * i + 2] = hfn_rd_u32(r); bm->prod_c[i] = hfn_rd_f64(r);
        }
    } else {
        r->bad = 1;
    }
    if (!r->bad && hfn_rd_u32(r) == 1u) { /* the quadratic drag */
        bm->drag_g = hfn_rd_u32(r); bm->drag_frame = hfn_rd_u32(r);
        bm->bq = hfn_rd_array(r, n);
        if (!r->bad && (bm->drag_g >= g || bm->drag_frame > 1u || !all_finite(bm->bq, n)))
            r->bad = 1;
    }
    bm->work = zeros((size_t)hb_work_size((int64_t)n, (int64_t)nr));
    bm->z = zeros(nz); bm->zb = zeros(nz); bm->chan = zeros(g * n); bm->fb = zeros(n);
    bm->tb = zeros(n); bm->rot = zeros(9 * (size_t)nb); bm->d = zeros(36 * (size_t)nb);
    bm->q = zeros(n); bm->v = zeros(n); bm->acc = zeros(n); bm->fc = zeros(n);
    bm->vr = zeros(nr); bm->total = zeros(n); bm->turned = zeros(n * n);
    if (r->bad || !bm->ints || !bm->work || !bm->z || !bm->zb || !bm->chan || !bm->fb ||
        !bm->tb || !bm->rot || !bm->d || !bm->q || !bm->v || !bm->acc || !bm->fc || !bm->vr ||
        !bm->total || !bm->turned) {
        snprintf(err, err_size, "resources/model.bin is corrupt (its bodies section does not "
                 "fit the file); rebuild the FMU with hydrofmu build");
        hfn_bodies_free(bm);
        return -1;
    }
    if (check_indices(bm) != 0 || !all_finite(bm->geometry, 6 * (size_t)nb) ||
        !all_finite(bm->mass, 36 * (size_t)nb) || !all_finite(bm->basis, n * nr) ||
        !all_finite(bm->lhs0, n * n) || !all_finite(bm->added, n * n) ||
        !all_finite(bm->force, 2 * g * n * nz) || !all_finite(bm->s_re, 2 * g * n * k) ||
        !all_finite(bm->s_im, 2 * g * n * k) || !all_finite(bm->state, 2 * (size_t)N * nz) ||
        !all_finite(bm->out, (size_t)nout * nw) || !all_finite(bm->os_re, (size_t)nout * k) ||
        !all_finite(bm->os_im, (size_t)nout * k)) {
        snprintf(err, err_size, "resources/model.bin: the large-rotation bodies section has "
                 "an index out of range or a non-finite value; rebuild the FMU with hydrofmu "
                 "build");
        hfn_bodies_free(bm);
        return -1;
    }
    bm->km.n = (int64_t)n; bm->km.nr = (int64_t)nr; bm->km.nb = nb;
    bm->km.kind = bm->ints; /* strided: copied below into contiguous columns */
    {
        int64_t *cols = (int64_t *)calloc(5 * (size_t)nb + 1, sizeof(int64_t));
        if (!cols) {
            snprintf(err, err_size, "out of memory reading the bodies section of model.bin");
            hfn_bodies_free(bm);
            return -1;
        }
        for (i = 0; i < nb; i++) {
            uint32_t c;
            for (c = 0; c < 5; c++) cols[c * (size_t)nb + i] = bm->ints[5 * (size_t)i + c];
        }
        free(bm->ints);
        bm->ints = cols;
    }
    bm->km.kind = bm->ints; bm->km.dof0 = bm->ints + nb; bm->km.quat = bm->ints + 2 * nb;
    bm->km.frame = bm->ints + 3 * nb; bm->km.axis = bm->ints + 4 * nb;
    for (i = 0; i < nb; i++)
        if (bm->km.frame[i]) bm->km.any_frame = 1;
    bm->km.geometry = bm->geometry; bm->km.mass = bm->mass; bm->km.basis = bm->basis;
    bm->km.lhs0 = bm->lhs0; bm->km.added = bm->added; bm->km.work = bm->work;
    *out = bm;
    return 0;
}

/* a x (rows of width `width`, count rows) into out */
static void mat_vec(const double *a, const double *x, size_t rows, size_t width, double *out) {
    size_t i, j;
    for (i = 0; i < rows; i++) {
        const double *row = a + i * width;
        double s = 0.0;
        for (j = 0; j < width; j++) s += row[j] * x[j];
        out[i] = s;
    }
}

/* The pose, the channels' forces and the solve at (t, y): bm->q, v, chan, acc, fc, vr.
 * Returns 0, or the kernel's code. */
static int evaluate(hfn_bodies_model *bm, hfn_panels_model *pm, double t, double t0,
                    double dscale, double rf, const double *u, const double *y,
                    const double *pre, const double *pim) {
    size_t n = bm->n, nr = bm->nr, nz = bm->nz, g, i, k = bm->k;
    double *z = bm->z, *zb = bm->zb;
    int rc;
    mat_vec(bm->basis, y, n, nr, bm->fb); /* the linear coordinates q = T q_r, v = T v_r */
    mat_vec(bm->basis, y + nr, n, nr, bm->tb);
    rc = hb_poses(&bm->km, bm->fb, bm->tb, y, bm->q, bm->v, bm->rot, bm->d);
    if (rc != 0) return rc;
    memcpy(z, bm->q, n * sizeof *z);
    memcpy(z + n, bm->v, n * sizeof *z);
    memcpy(z + 2 * n, y, bm->N * sizeof *z);
    memcpy(z + 2 * n + bm->N, u, bm->m * sizeof *z);
    z[nz - 1] = 1.0;
    memcpy(zb, z, nz * sizeof *z);
    if (bm->km.any_frame) hb_turn(&bm->km, bm->rot, bm->v, zb + n, 1);
    for (g = 0; g < bm->groups; g++) {
        double *f = bm->chan + g * n;
        mat_vec(bm->force + g * n * nz, z, n, nz, f);
        mat_vec(bm->force + (bm->groups + g) * n * nz, zb, n, nz, bm->fb);
        if (rf != 0.0 && k)
            for (i = 0; i < n; i++) {
                f[i] += rf * hfn_re_dot(bm->s_re + (g * n + i) * k, bm->s_im + (g * n + i) * k,
                                        pre, pim, k);
                bm->fb[i] += rf * hfn_re_dot(bm->s_re + ((bm->groups + g) * n + i) * k,
                                             bm->s_im + ((bm->groups + g) * n + i) * k, pre,
                                             pim, k);
            }
        if (bm->km.any_frame) hb_turn(&bm->km, bm->rot, bm->fb, bm->fb, 0);
        for (i = 0; i < n; i++) f[i] += bm->fb[i];
    }
    if (bm->bq) { /* -B_q v |v| on the velocity the viscous part sees */
        const double *vv = (bm->drag_frame ? zb : z) + n;
        for (i = 0; i < n; i++) bm->fb[i] = -bm->bq[i] * vv[i] * fabs(vv[i]);
        if (bm->drag_frame && bm->km.any_frame) hb_turn(&bm->km, bm->rot, bm->fb, bm->fb, 0);
        for (i = 0; i < n; i++) bm->chan[bm->drag_g * n + i] += bm->fb[i];
    }
    if (pm && (bm->static_g != HFN_NONE || bm->wave_g != HFN_NONE)) {
        pm->q_true = bm->q; /* the panels at the true pose */
        hfn_panels_forces(pm, y, t, t0, dscale, NULL);
        pm->q_true = NULL;
        for (i = 0; i < n; i++) {
            if (bm->static_g != HFN_NONE) bm->chan[bm->static_g * n + i] += pm->g2[i];
            if (bm->wave_g != HFN_NONE) bm->chan[bm->wave_g * n + i] += pm->g2[n + i];
        }
    }
    for (i = 0; i < n; i++) {
        double s = 0.0;
        for (g = 0; g < bm->groups; g++) s += bm->chan[g * n + i];
        bm->total[i] = s;
    }
    return hb_solve(&bm->km, bm->rot, bm->d, bm->v, bm->total, bm->vr, bm->acc, bm->fc);
}

void hfn_bodies_deriv(hfn_bodies_model *bm, hfn_panels_model *pm, double t, double t0,
                      double dscale, double rf, const double *u, const double *y,
                      const double *pre, const double *pim, double *dy) {
    size_t i, nr = bm->nr, nz = bm->nz, N = bm->N;
    if (evaluate(bm, pm, t, t0, dscale, rf, u, y, pre, pim) != 0) {
        for (i = 0; i < N; i++) dy[i] = NAN; /* refused: the step diverges */
        return;
    }
    for (i = 0; i < nr; i++) { dy[i] = y[nr + i]; dy[nr + i] = bm->vr[i]; }
    for (i = 2 * nr; i < N; i++) {
        const double *a = bm->state + i * nz, *b = bm->state + (N + i) * nz;
        double s = 0.0, sb = 0.0;
        size_t j;
        for (j = 0; j < nz; j++) { s += a[j] * bm->z[j]; sb += b[j] * bm->zb[j]; }
        dy[i] = s + sb;
    }
    for (i = 0; i < bm->nb; i++)
        if (bm->km.kind[i] == HB_FREE)
            hb_quaternion_rate(y + bm->km.quat[i], bm->v + bm->km.dof0[i] + 3,
                               dy + bm->km.quat[i]);
}

void hfn_bodies_outputs(hfn_bodies_model *bm, hfn_panels_model *pm, double t, double t0,
                        double dscale, double rf, const double *u, const double *y,
                        const double *pre, const double *pim, double *out) {
    size_t i, j, n = bm->n, g = bm->groups, nw = bm->nw, k = bm->k;
    double *w = bm->turned; /* the turned added mass */
    if (evaluate(bm, pm, t, t0, dscale, rf, u, y, pre, pim) != 0) {
        for (i = 0; i < bm->nout; i++) out[i] = NAN;
        return;
    }
    /* out = O w, w = [q, v, a, -A a, channels (groups - 1), F_c, y, u, 1] (by blocks) */
    {
        const double *am = bm->added;
        if (bm->km.any_frame) { hb_turned_added_mass(&bm->km, bm->rot, w); am = w; }
        for (i = 0; i < n; i++) {
            double s = 0.0;
            for (j = 0; j < n; j++) s += am[i * n + j] * bm->acc[j];
            bm->fb[i] = -s;
        }
    }
    for (i = 0; i < bm->nout; i++) {
        const double *row = bm->out + i * nw;
        double s = 0.0;
        const double *blocks[4] = {bm->q, bm->v, bm->acc, bm->fb};
        size_t b, at = 0;
        for (b = 0; b < 4; b++, at += n)
            for (j = 0; j < n; j++) s += row[at + j] * blocks[b][j];
        for (j = 0; j < (g - 1) * n; j++) s += row[at + j] * bm->chan[j];
        at += (g - 1) * n;
        for (j = 0; j < n; j++) s += row[at + j] * bm->fc[j];
        at += n;
        for (j = 0; j < bm->N; j++) s += row[at + j] * y[j];
        at += bm->N;
        for (j = 0; j < bm->m; j++) s += row[at + j] * u[j];
        s += row[nw - 1];
        if (rf != 0.0 && k) s += rf * hfn_re_dot(bm->os_re + i * k, bm->os_im + i * k, pre, pim, k);
        out[i] = s;
    }
    if (bm->quat_row != HFN_NONE) hb_quaternions(&bm->km, y, bm->q, out + bm->quat_row);
    for (i = 0; i < bm->nprod; i++)
        out[bm->prod_i[3 * i]] = bm->prod_c[i] * out[bm->prod_i[3 * i + 1]] *
                                 out[bm->prod_i[3 * i + 2]];
}
