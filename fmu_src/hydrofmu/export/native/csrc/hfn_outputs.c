/* hydrofmu native runtime, the outputs (see hfn_outputs.h). */
#include "hfn_outputs.h"

#include "hfn_bodies.h"
#include "hfn_conv.h"
#include "hfn_panels.h"
#include "hfn_drift.h"
#include "hfn_load.h"
#include "hfn_rk.h"
#include "hfn_tunables.h"
#include "hfn_waves.h"

/* out = C [x; u; 1] (C's nonzeros by row, rebuilt for the tunable parameters). */
static void output_map(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i, j, nz = md->nz;
    double *w = c->w, *out = c->d.out;
    const uint32_t *c_ptr, *c_idx;
    const double *c_val;
    hfn_tunables_current(c, 0);
    c_ptr = c->cur_c_ptr; c_idx = c->cur_c_idx; c_val = c->cur_c_val;
    for (i = 0; i < md->n; i++) w[i] = c->d.x[i];
    for (i = 0; i < md->m; i++) w[md->n + i] = c->d.u[i];
    w[nz - 1] = 1.0;
    for (i = 0; i < md->nout; i++) {
        double s = 0.0;
        for (j = c_ptr[i]; j < c_ptr[i + 1]; j++) s += c_val[j] * w[c_idx[j]];
        out[i] = s;
    }
}

/* out += rf Re(sum_k H_k p_k) on the rows that have sinusoids (H = O S: the r signals,
 * then O). */
static void output_sinusoids(instance *c, double rf) {
    const hfn_model *md = &c->md;
    const double *pr = c->d.p_re, *pi_ = c->d.p_im;
    double *out = c->d.out;
    uint32_t i, j, k = md->k;
    if (rf == 0.0 || !md->k) return;
    if (md->nfac) {
        uint32_t r = md->nfac;
        for (j = 0; j < r; j++)
            c->sv[j] = hfn_re_dot(md->fs_re + (size_t)j * k, md->fs_im + (size_t)j * k, pr,
                                  pi_, k);
        for (i = 0; i < md->nh; i++) {
            const double *o = md->fo + (size_t)i * r;
            double s = 0.0;
            for (j = 0; j < r; j++) s += o[j] * c->sv[j];
            out[md->hrows[i]] += rf == 1.0 ? s : rf * s;
        }
    } else {
        for (i = 0; i < md->nh; i++) {
            double s = hfn_re_dot(md->h_re + (size_t)i * k, md->h_im + (size_t)i * k, pr, pi_, k);
            out[md->hrows[i]] += rf == 1.0 ? s : rf * s;
        }
    }
}

/* The Runge-Kutta mode's terms: out += OG [g_drag; g_exc], the previewed elevation. */
static void output_rk_forces(instance *c, double s_rk) {
    const hfn_model *md = &c->md;
    double *g = c->rk_g2, *out = c->d.out;
    uint32_t i, j;
    hfn_rk_forces(c, *c->d.rk_time, s_rk, c->d.x);
    for (i = 0; i < md->nq; i++) {
        g[i] = md->has_drag ? c->rk_gd[i] : 0.0;
        g[md->nq + i] = md->has_input ? c->rk_ge[i] : 0.0;
    }
    for (i = 0; i < md->nout; i++) {
        double s = 0.0;
        for (j = md->og_ptr[i]; j < md->og_ptr[i + 1]; j++) s += md->og_val[j] * g[md->og_idx[j]];
        out[i] += s;
    }
    if (md->has_input)
        out[md->elev_row] = hfn_half_cosine(*c->d.rk_time - *c->d.t0, md->wave_ramp)
                            * hfn_rk_elevation(c, s_rk, c->d.u[md->in_index]);
}

void hfn_compute_outputs(instance *c) {
    const hfn_model *md = &c->md;
    uint32_t i;
    double *out = c->d.out, rf, s_rk = 0.0;
    if (md->load) { hfn_load_outputs(c); return; } /* hfn_load.c */
    if (md->rk) { /* on the grid, the elevation input just set is the newest sample */
        s_rk = *c->d.rk_time - hfn_rk_grid_time(c);
        if (md->has_input && s_rk <= 1e-9 * md->dt) hfn_rk_record(c, c->d.u[md->in_index], 0);
    }
    if (md->bodies) { /* hfn_bodies.c: large rotations */
        hfn_bodies_outputs(md->bodies, md->panels, *c->d.rk_time, *c->d.t0, *c->d.scale,
                           hfn_half_cosine(*c->d.rk_time - *c->d.t0, md->ramp_time) *
                           *c->d.scale, c->d.u, c->d.x, c->d.p_re, c->d.p_im, out);
        *c->d.dirty = 0.0;
        return;
    }
    output_map(c);
    rf = (md->rk ? hfn_half_cosine(*c->d.rk_time - *c->d.t0, md->ramp_time)
                 : hfn_ramp_factor(c, *c->d.time)) * *c->d.scale;
    output_sinusoids(c, rf);
    if (md->rk && (md->has_drag || md->has_input)) output_rk_forces(c, s_rk);
    if (md->rk && md->has_conv) hfn_conv_outputs(c, s_rk);
    if (md->lines) hfn_lines_outputs(md->lines, c->d.x, out); /* hfn_lines.c */
    if (md->cat) hfn_cat_outputs(md->cat, c->d.x, out); /* hfn_catenary.c */
    if (md->panels) { /* hfn_panels.c: the loads at the output's point */
        hfn_panels_forces(md->panels, c->d.x, *c->d.rk_time, *c->d.t0, *c->d.scale, NULL);
        hfn_panels_outputs(md->panels, out);
    }
    if (md->drift) hfn_drift_outputs(md->drift, *c->d.rk_time, *c->d.t0, *c->d.scale, out);
    for (i = 0; i < md->nprod; i++)
        out[md->prod_i[i]] = md->prod_c[i] * out[md->prod_j[i]] * out[md->prod_l[i]];
    *c->d.dirty = 0.0;
}
