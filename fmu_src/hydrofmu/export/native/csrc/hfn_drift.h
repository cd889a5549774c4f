/* hydrofmu native runtime, the second-order wave loads and the steady current: the blob's
 * "drift and current" section (export/native/drift_blob.py writes it), read at
 * fmi2Instantiate.
 *
 * The drift load of a body is assembled in Python (the drift part's own DriftLoad: mean
 * drift, Newman's products, the difference QTF's eigenvector rows with their truncation,
 * the sum-frequency pairs); this file only evaluates, with the phasors p_i = e^{i w_i t} of
 * the wave's N components,
 *
 *     F_d(t) = c_d + sum_terms w Re(z_a conj(z_b)) + Re(sum_i p_i (S_d p)_i),   z = R p,
 *
 * times (scale ramp(t - t0))^2 (the fade-in of a load quadratic in the wave, the tunable
 * wave height's square), and adds it to the body's DOF forces. The current is a water
 * velocity per DOF (the quadratic drag acts on v - U: hfn_rk.c) and the MoorDyn lines'
 * current tables (handed to the line kernel, hfn_lines.c).
 *
 * Section layout (after the lines' section; integers u32, reals f64, little-endian):
 *   u32 nd (bodies with a drift load; 0: none); if nd > 0: u32 N (components),
 *     f64 ramp_time, omega[N], OD[nout*nq] (the outputs of the drift DOF forces); then per
 *     body: u32 dof0, has_const, r (rows), nt (terms), has_sum; f64 c[6]; R_re[r*N],
 *     R_im[r*N]; u32 dof[nt], a[nt], b[nt]; f64 w[nt]; if has_sum: S_re[6N*N], S_im[6N*N];
 *   u32 has_current; if 1: f64 U[nq] (the water velocity on each DOF, m/s);
 *   u32 ntables (0, or the lines section's part count); per table: u32 rows, f64 z[rows],
 *     u[rows*3] (MoorDyn-C's Currents = 1 depth table: z ascending, m; velocity, m/s).
 * Every count is checked against the bytes left before allocating, every index against its
 * range. No allocation after reading. */
#ifndef HFN_DRIFT_H
#define HFN_DRIFT_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"
#include "hfn_lines.h"
#include "hfn_reader.h"

typedef struct {
    uint32_t dof0, has_const, r, nt, has_sum;
    double c[6];
    double *R_re, *R_im;        /* r x N */
    uint32_t *t_dof, *t_a, *t_b; /* nt each */
    double *t_w;
    double *S_re, *S_im;        /* 6N x N, or NULL */
} hfn_drift_body;

typedef struct hfn_drift_model_s {
    uint32_t nd, N, nq, nout;
    double ramp_time;
    double *omega, *OD;
    hfn_drift_body *bodies;
    double *current;   /* nq, or NULL: still water on the bodies */
    uint32_t ntables;
    uint32_t *table_rows;
    double **table_z, **table_u;
    /* work (not state: the load is a function of t alone) */
    double *p_re, *p_im, *z_re, *z_im, *f, *g;
    double last_t; /* the time f holds the unramped loads of (NaN: none) */
} hfn_drift_model;

/* Read the section at the cursor into *out (NULL when it holds nothing); nq DOFs, nout
 * outputs, rk: the Runge-Kutta mode is on; the current tables go to lines (which may be
 * NULL when the lines section has no parts). 0, or -1 (corrupt: the cursor marked bad). */
HFN_HIDDEN int hfn_drift_read(hfn_drift_model **out, hfn_reader *r, uint32_t nq,
                              uint32_t nout, uint32_t rk, hfn_lines_model *lines);
HFN_HIDDEN void hfn_drift_free(hfn_drift_model *dm);
/* g (nq) += the drift loads at time t (s), the run's start t0, the wave height's scale. */
HFN_HIDDEN void hfn_drift_add(hfn_drift_model *dm, double t, double t0, double scale,
                              double *g);
/* out (nout) += OD (the drift loads at t). */
HFN_HIDDEN void hfn_drift_outputs(hfn_drift_model *dm, double t, double t0, double scale,
                                  double *out);
#endif
