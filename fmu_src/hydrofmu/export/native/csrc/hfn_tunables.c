/* hydrofmu native runtime, the tunable matrix parameters (see hfn_tunables.h). */
#include "hfn_tunables.h"

#include <string.h>

#include "hfn_linalg.h"

/* Note the parameters' current values; the caches are dropped when one changed. */
static void note_values(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t j;
    int changed = 0;
    for (j = 0; j < md->ntun; j++)
        if (!(c->d.par_r[md->tun_idx[j]] == c->tun_built[j])) changed = 1;
    if (!changed) return;
    c->tun_at_build = 1;
    for (j = 0; j < md->ntun; j++) {
        c->tun_built[j] = c->d.par_r[md->tun_idx[j]];
        if (!(c->tun_built[j] == md->par_r[md->tun_idx[j]])) c->tun_at_build = 0;
    }
    c->tun_c_ok = c->tun_d_ok = 0;
    c->cache_h = -1.0; c->cache_hq = -1.0; c->cur_fused = NULL;
}

/* C = C0 + sum_j (p_j - p0_j) dC_j, then its nonzeros by row (as the reader's). */
static void rebuild_c(instance *c) {
    const hfn_model *md = &c->md;
    size_t nz = md->nz, nnz = 0;
    uint32_t i, j, e, q;
    memcpy(c->tun_C, md->C, (size_t)md->nout * nz * sizeof(double));
    for (j = 0; j < md->ntun; j++) {
        double dp = c->tun_built[j] - md->par_r[md->tun_idx[j]];
        for (e = md->tun_ptr[3 * j + 2]; e < md->tun_ptr[3 * j + 3]; e++)
            c->tun_C[(size_t)md->tun_row[e] * nz + md->tun_col[e]] += dp * md->tun_val[e];
    }
    for (i = 0; i < md->nout; i++) {
        c->tun_c_ptr[i] = (uint32_t)nnz;
        for (q = 0; q < nz; q++) {
            double v = c->tun_C[(size_t)i * nz + q];
            if (v != 0.0) { c->tun_c_idx[nnz] = q; c->tun_c_val[nnz] = v; nnz++; }
        }
    }
    c->tun_c_ptr[md->nout] = (uint32_t)nnz;
    c->cur_c_ptr = c->tun_c_ptr; c->cur_c_idx = c->tun_c_idx;
    c->cur_c_val = c->tun_c_val;
}

/* F = F0 + sum_j (p_j - p0_j) dF_j and G likewise. */
static void rebuild_fg(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, ng = md->m + 1, j, e;
    memcpy(c->tun_F, md->F, (size_t)n * n * sizeof(double));
    memcpy(c->tun_G, md->G, (size_t)n * ng * sizeof(double));
    for (j = 0; j < md->ntun; j++) {
        double dp = c->tun_built[j] - md->par_r[md->tun_idx[j]];
        for (e = md->tun_ptr[3 * j]; e < md->tun_ptr[3 * j + 1]; e++)
            c->tun_F[(size_t)md->tun_row[e] * n + md->tun_col[e]] += dp * md->tun_val[e];
        for (e = md->tun_ptr[3 * j + 1]; e < md->tun_ptr[3 * j + 2]; e++)
            c->tun_G[(size_t)md->tun_row[e] * ng + md->tun_col[e]] += dp * md->tun_val[e];
    }
    c->cur_F = c->tun_F; c->cur_G = c->tun_G; /* nact == n: every state active */
}

/* Component q's particular solutions with the rebuilt F into X's columns (steady, and on
 * the ramp at w_q and w_q +- pi/T); 0, or -1 with the frequency in c->w_bad. */
static int solve_component(instance *c, uint32_t q) {
    const hfn_model *md = &c->md;
    uint32_t n = md->n, i, s;
    const double *br = md->forc_re + (size_t)q * n, *bi = md->forc_im + (size_t)q * n;
    double *xr = c->tun_tmp, *xi = c->tun_tmp + n;
    double nu = md->has_ramp ? M_PI / md->ramp_time : 0.0;
    size_t k = md->k;
    if (hfn_particular((int)n, c->tun_F, md->omega[q], br, bi, xr, xi, c->zwork,
                       c->ipiv) != 0) {
        c->w_bad = md->omega[q];
        return -1;
    }
    for (i = 0; i < n; i++) { /* X's columns contiguous over the components */
        c->tun_xc[0][i * k + q] = xr[i];
        c->tun_xc[1][i * k + q] = xi[i];
    }
    if (!md->has_ramp) return 0;
    for (i = 0; i < n; i++) {
        c->tun_xc[2][i * k + q] = 0.5 * xr[i];
        c->tun_xc[3][i * k + q] = 0.5 * xi[i];
    }
    for (s = 1; s < 3; s++) {
        double ws = s == 1 ? md->omega[q] + nu : md->omega[q] - nu;
        if (hfn_particular((int)n, c->tun_F, ws, br, bi, xr, xi, c->zwork, c->ipiv) != 0) {
            c->w_bad = ws;
            return -1;
        }
        for (i = 0; i < n; i++) {
            c->tun_xc[2 + 2 * s][i * k + q] = -0.25 * xr[i];
            c->tun_xc[3 + 2 * s][i * k + q] = -0.25 * xi[i];
        }
    }
    return 0;
}

int hfn_tunables_current(instance *c, int dyn) {
    const hfn_model *md = &c->md;
    uint32_t q;
    if (!md->ntun) return 0;
    note_values(c);
    if (!c->tun_c_ok) {
        if (c->tun_at_build) {
            c->cur_c_ptr = md->c_ptr; c->cur_c_idx = md->c_idx; c->cur_c_val = md->c_val;
        } else {
            rebuild_c(c);
        }
        c->tun_c_ok = 1;
    }
    if (dyn && !c->tun_d_ok) {
        if (c->tun_at_build) {
            c->cur_F = md->F; c->cur_G = md->G;
            for (q = 0; q < 8; q++) c->cur_xc[q] = md->xc[q];
        } else {
            rebuild_fg(c);
            /* the Runge-Kutta mode's X is the forcing itself: it does not depend on p */
            for (q = 0; q < md->k && !md->rk; q++)
                if (solve_component(c, q) != 0) return -1;
            for (q = 0; q < 8 && !md->rk; q++) c->cur_xc[q] = c->tun_xc[q];
        }
        c->tun_d_ok = 1;
    }
    return 0;
}

int hfn_tunable_index(const hfn_model *md, uint32_t r) {
    uint32_t j;
    for (j = 0; j < md->ntun; j++)
        if (md->tun_idx[j] == r) return (int)j;
    return -1;
}
