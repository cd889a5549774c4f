/* hydrofmu native runtime, the model: what resources/model.bin holds and how it is read.
 *
 * The runtime is a physics-free stepper of an assembled linear model.
 *
 * The build (hydrofmu.export.native, Python) writes resources/model.bin, a versioned
 * little-endian blob holding the model's matrices; this runtime reads it at
 * fmi2Instantiate and steps
 *
 *     x(t + h) = x_p(t + h) + Phi_h (x(t) - x_p(t)) + Gamma_h [u; 1]
 *     x_p(t)   = Re(sum_k X_k e^{i w_k t})            (the sinusoids' particular solution)
 *     y(t)     = C [x; u; 1] + ramp(t) Re(sum_k H_k e^{i w_k t})   (+ products of outputs)
 *
 * with the phasors e^{i w_k t} advanced by rotation (no trigonometry per step). A step
 * length other than the precomputed one is discretised here (Pade [13/13] scaling and
 * squaring of Van Loan's block matrix). It knows no physics: Python assembled everything.
 * The tunable matrix parameters (a linear PTO's damping and stiffness) enter F, G and C
 * affinely with stored derivatives: after a change the runtime rebuilds them, discretises
 * the step and solves (i w I - F) X = forcing again (complex LU) before the next step.
 *
 * Blob layout (version 5: the large-rotation bodies section and the load FMU's convolution,
 * exact and drag data are new; all integers uint32 little-endian, reals IEEE binary64 LE):
 *   magic "HFMUNAT1", u32 version, u32 header words H, then H u32 words:
 *     n, m, nout, k, has_ramp, nh, nprod, n_real_par, n_int_par, n_str_par,
 *     scale_par (1 + the index of the Real parameter that scales every sinusoid, the wave
 *     height, tunable: its value over the build's multiplies X and H; 0: none), guid length
 *   then f64: h0, ramp_time, t0_build, divergence_limit
 *   then arrays (f64 unless said): y0[n], u0[m], F[n*n], G[n*(m+1)], fused0[n*(n+m+1)],
 *     omega[k], Xs_re[k*n], Xs_im[k*n], (if has_ramp: Xr{0,p,m}_{re,im}[k*n] x 6),
 *     C[nout*(n+m+1)], hrows[nh] (u32), H_re[nh*k], H_im[nh*k],
 *     prod (nprod x: u32 i, u32 j, u32 l, f64 coef),
 *     real_par[n_real_par], int_par[n_int_par] (i32),
 *     strings: n_str_par x (u32 length, bytes), parameter names: (n_real+n_int+n_str) x
 *     (u32 length, bytes), guid bytes,
 *   then (version 2) u32 rk: 1 for the Runge-Kutta mode (an explicit Runge-Kutta scheme,
 *     with or without quadratic drag, the elevation input, convolution radiation), then: u32 nq (body DOFs), has_drag, has_input, in_index (the elevation
 *     input among the inputs), nk (FIR taps), elev_row (the elevation output), f64 dt (the
 *     internal step), preview_steps (the preview over dt), wave_ramp (s); V[nq*n] (DOF
 *     velocities of the state), BL[nq*nq], BQ[nq] (drag -BL v - BQ v|v|), EG[n*nq] (a DOF
 *     force's share of x'), OG[nout*2nq] (the outputs of [drag; excitation]), KW[nq*nk];
 *   then u32 r, and if r > 0: S_re[r*k], S_im[r*k], O[nh*r]: the outputs' sinusoids
 *     factorised, H = O S (r signals: the excitation of each DOF, the elevation);
 *   then the tunable matrix parameters (a linear PTO's damping and stiffness: F, G = [G, c]
 *   and C are affine in each, p enters as F = F0 + (p - p0) dF, p0 its start value among
 *   real_par):
 *     u32 ntun; if ntun > 0: forcing_re[k*n], forcing_im[k*n] (the sinusoids' forcing in
 *     state space at the build's wave height: (i w_k I - F) X_k = forcing_k); then per
 *     parameter: u32 index among the Real parameters, and dF, dG, dC as sparse lists
 *     (u32 count, then count x (u32 row, u32 column, f64 value)), of the shapes of F, G, C;
 *   then the convolution radiation and the time scheme (hfn_conv.h; rk = 0: two zeros):
 *     u32 has_conv; if 1 (the Runge-Kutta mode only): u32 nc (velocity columns kept),
 *     npair (live kernel entries), nk (history samples); f64 dt (the kernel's spacing, the
 *     internal step dt); u32 col_dof[nc] (each column's DOF among the nq), pair_row[npair]
 *     (the DOF of the force), pair_col[npair] (the column among nc); f64 K[npair*(nk+2)]
 *     (each entry's K(j dt), j = 0..nk+1, the last two 0); OC[nout*nq] (the outputs of the
 *     convolution force);
 *     u32 stages (0 in the exact mode and for a semi-implicit scheme; 1..4 in the
 *     Runge-Kutta mode: the explicit Runge-Kutta scheme the configuration names), then f64 A[stages*stages] (strictly
 *     lower triangular), B[stages], C[stages].
 *   then (hfn_lines.c reads it; export/native/lines_blob.py writes it), the
 *   Runge-Kutta mode's scheme and its MoorDyn lines:
 *     u32 si: 0 for an explicit tableau (stages above), else N of MoorDyn's semi-implicit
 *     scheme (stages 0), then u32 family (1 beuler, 2 midpoint, 3 aca) and f64 relax[N-1] (the relaxation weight of the previous iterate
 *     at iterations 0 .. N-2); u32 nparts (MoorDyn files, one body each); if nparts > 0:
 *     OL[nout*nq] (the outputs of the lines' DOF forces), then per part:
 *       u32 n_nodes, n_internal, n_points, n_free, n_lines, n_seg, n_groups,
 *       n_group_points, has_seabed; u32 state0 (its first state among the n), dof0 (its
 *       body's first DOF), out_row (its first tension output: fairlead, anchor per line);
 *       f64 g, rho, depth, kbot, cbot, ref[3] (the body's reference point in the file);
 *       i32 internal[n_internal], node_kind[n_nodes], node_left[n_nodes],
 *       node_right[n_nodes], end_nodes[2 n_lines], end_points[2 n_lines], seg0[n_seg],
 *       seg1[n_seg], free_points[n_free], point_free[n_points], group_k[n_groups],
 *       group_start[n_groups + 1], group_points[n_group_points] (the kernel's struct
 *       hf_lines; the last group is the body's: its coupled points relative to ref);
 *       f64 l0[n_seg], pair_l0, pair_ea_l0, pair_ba_l0, pair_fake [n_nodes - 1 each],
 *       n_len, n_m, n_d, n_area, n_can, n_cat, cdn_d, cdt_d, a_full, b_full, wz_full,
 *       cn_full, ct_full [n_nodes each], point_r0[3 n_points], point_mass, point_volume,
 *       point_cda, point_ca [n_points each], group_pose[6 n_groups];
 *       PQ[6*n], PV[6*n] (the body's 6 DOF displacements and velocities from the state).
 *     Every index is range-checked at reading (no blob makes the kernel read out of bounds).
 *   then the catenary moorings (hfn_catenary.h: u32 parts, 0 for none, then their data);
 *   then the drift loads and the current (hfn_drift.h: u32 nd, has_current, ntables and
 *     their data; three zeros: none);
 *   then the panels (hfn_panels.h: nonlinear hydrostatics and Froude-Krylov; u32 count, 0 for
 *     none);
 *   then the large-rotation bodies (hfn_bodies.h: the force form and the rigid-body kernel's
 *     model; u32 count, 0 for none);
 *   then the derivative and load-FMU flags (derivative_blob.py: u32 deriv, load; with load,
 *     u32 bodies and f64 internal step, then u32 has_conv and the convolution as above over
 *     the 6 N body DOFs, then u32 exact: 1 when the part states are stepped exactly along
 *     the Hermite motion, time_scheme = "exact"), then u32 has_drag and, if 1, BQ[nq] and
 *     OG[nout*2nq] (its quadratic drag -BQ v|v| on the velocity inputs, as above);
 *   then the sections other features append (each a u32 flag, then its data);
 *   last (since version 3) the trailer: "HFCK" and the u32 CRC-32 (zlib.crc32) of every byte
 *     before the CRC itself. The reader checks the magic, the version and the CRC before
 *     anything else, then reads every count through a cursor that checks it against the
 *     bytes left BEFORE allocating, and every index read from the file against its range.
 *
 * In the Runge-Kutta mode the runtime takes the Python scheme's internal steps (the
 * tableau A, B, C) on the grid t0 + j dt (a partial step to an end off the grid) with
 *     x' = F x + G [u; 1] + ramp(t) Re(sum_k X_k e^{i w_k t})
 *          + EG (g_drag(x) + g_exc(t) + g_conv(t, x))
 * (X holds the sinusoids' forcing then, not a particular solution), g_exc the FIR of the
 * elevation input's history on the grid (linear in between), g_conv the radiation memory
 * (hfn_conv.h), and adds OG [g_drag; g_exc], OC g_conv and the previewed elevation to the
 * outputs. With MoorDyn lines, the line kernel writes the line states' derivative and the
 * lines' DOF forces join g (hfn_lines.c), their outputs OL and the tensions follow; with a
 * semi-implicit scheme (midpoint5) the internal step is hfn_semi.c's instead of the
 * tableau's, its carried derivative in the dynamic state.
 *
 * The runtime's files, each with its header: hfn_model (this blob and its reader),
 * hfn_linalg (e^A, the exact discretisation, complex solves), hfn_instance (an instance:
 * its dynamic state, logging, the FMI state machine), hfn_waves (phasors and ramps),
 * hfn_tunables (the tunable matrix parameters), hfn_exact (the exact stepper), hfn_rk (the
 * Runge-Kutta mode), hfn_conv (the convolution radiation), hfn_lines (the MoorDyn lines
 * through runtime/moorings/line_kernel.c), hfn_semi (the semi-implicit schemes), hfn_outputs
 * (the output map), fmi2Functions.c (the FMI 2.0 face) and fmi2State.c (FMU states, their
 * serialization).
 */
#ifndef HFN_MODEL_H
#define HFN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"
#include "hfn_catenary.h"
#include "hfn_lines.h"
#include "hfn_panels.h"

#define HFN_MAGIC "HFMUNAT1"
#define HFN_VERSION 5u
#define HFN_TRAILER_TAG "HFCK"
#define HFN_TRAILER_BYTES 8u
#define HFN_HEADER_WORDS 12u

/* The model read from the blob (read-only after fmi2Instantiate). */
typedef struct {
    uint32_t n, m, nout, k, has_ramp, nh, nprod, npr, npi, nps;
    uint32_t nz; /* n + m + 1 */
    uint32_t scale_par; /* 1 + index of the tunable scaling parameter, 0: none */
    uint32_t guid_len;  /* the GUID's length in bytes (the header's last word) */
    double h0, ramp_time, t0_build, div_limit;
    double *y0, *u0, *F, *G, *fused0, *omega;
    double *xs_re, *xs_im;
    double *xr_re[3], *xr_im[3];
    uint32_t nact, *act; /* the states some sinusoid reaches (nonzero columns of X) */
    double *xc[8];       /* X's active columns, contiguous: steady re, im, ramp 0-2 re, im */
    double *C;
    uint32_t *c_ptr, *c_idx; /* C in compressed rows (its nonzeros, in column order) */
    double *c_val;
    uint32_t *hrows;
    double *h_re, *h_im;
    uint32_t *prod_i, *prod_j, *prod_l;
    double *prod_c;
    double *par_r;
    int32_t *par_i;
    char **par_s;
    char **names; /* npr + npi + nps parameter names */
    char *guid;
    /* Runge-Kutta mode (see the layout above) */
    uint32_t rk, nq, has_drag, has_input, in_index, nk, elev_row;
    double dt, preview_steps, wave_ramp;
    double *V, *BL, *BQ, *EG, *OG, *KW;
    uint32_t *og_ptr, *og_idx; /* OG in compressed rows */
    double *og_val;
    uint32_t *f_ptr, *f_idx;   /* F in compressed rows (the Runge-Kutta mode) */
    uint32_t *kw_used;         /* the DOFs whose excitation FIR is not zero */
    double *f_val;
    uint32_t nfac;             /* r: the outputs' sinusoids as H = O S (0: H itself) */
    double *fs_re, *fs_im, *fo; /* S (r x k), O (nh x r) */
    /* version 2: the tunable matrix parameters */
    uint32_t ntun;
    uint32_t *tun_idx;  /* ntun: index among the Real parameters */
    uint32_t *tun_ptr;  /* 3 ntun + 1: entries of parameter j's dF, dG, dC (s = 0, 1, 2) are
                         * tun_ptr[3 j + s] .. tun_ptr[3 j + s + 1] - 1 */
    uint32_t *tun_row, *tun_col;
    double *tun_val;
    double *forc_re, *forc_im; /* k x n */
    /* the convolution radiation (hfn_conv.h) and the explicit Runge-Kutta tableau */
    uint32_t has_conv, conv_nc, conv_np, conv_nk;
    double conv_dt;
    uint32_t *conv_dof, *conv_row, *conv_col; /* nc; npair; npair */
    double *conv_K;                           /* npair x (nk + 2) */
    double *OC;                               /* nout x nq */
    uint32_t *oc_ptr, *oc_idx;                /* OC in compressed rows */
    double *oc_val;
    uint32_t stages;
    double *tab_a, *tab_b, *tab_c;
    /* the last section: the semi-implicit scheme and the MoorDyn lines (NULL: neither) */
    hfn_lines_model *lines;
    /* the catenary moorings (hfn_catenary.h; NULL: none), after the lines section */
    hfn_cat_model *cat;
    /* the drift loads and the current (hfn_drift.h; NULL: neither) */
    struct hfn_drift_model_s *drift;
    /* the panels section: nonlinear hydrostatics and Froude-Krylov (NULL: none) */
    hfn_panels_model *panels;
    /* the large-rotation bodies (hfn_bodies.h; NULL: none), after the panels */
    struct hfn_bodies_s *bodies;
    /* the directional derivative (derivative_blob.py): 1 provided, 0 not */
    uint32_t deriv;
    /* the load FMU (hfn_load.h; load_blob.py): 1, its bodies and internal step (s) */
    uint32_t load, load_nb, load_exact;
    double load_dt;
} hfn_model;


/* Parse a blob; returns 0 or writes a message into err. Allocates the model's arrays. */
HFN_HIDDEN int hfn_model_read(hfn_model *model, const unsigned char *data, size_t size,
                              char *err, size_t err_size);
HFN_HIDDEN void hfn_model_free(hfn_model *model);
/* The CRC-32 (IEEE 802.3, as zlib.crc32) of size bytes. */
HFN_HIDDEN uint32_t hfn_crc32(const unsigned char *data, size_t size);

#endif
