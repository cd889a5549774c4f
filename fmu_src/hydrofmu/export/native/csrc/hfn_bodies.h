/* hydrofmu native runtime, the large-rotation bodies (the blob's bodies section, written by
 * export/native/bodies_blob.py, read at fmi2Instantiate).
 *
 * A model with rotations = "large" is stepped in the force form that the Python FMU steps
 * (runtime/bodies/dynamics.py), with the same compiled kernel
 * (runtime/bodies/body_kernel.c, included by hfn_bodies.c with its symbols hidden): per
 * stage the true pose and velocity from the state (hb_poses), the linear parts' forces per
 * channel as maps of z = [q, v, y, u, 1] (the parts a body sees in its body axes at
 * [q, R6^T v, y, u, 1], their force turned back), their sinusoids, the panels' loads at the
 * true pose, then the kernel's solve (hb_solve) for the reduced accelerations and the
 * quaternion rates. The outputs are one map of w = [q, v, a, F_added_mass, channels,
 * F_constraint, y, u, 1], their sinusoids, the quaternions (hb_quaternions) and the PTOs'
 * power products. Every state is live (the blob keeps them all).
 *
 * Section layout (u32 and f64 little-endian), after the panels section:
 *   u32 nb (0: no section data follows); if > 0:
 *   u32 n (DOFs), nr (reduced coordinates), groups (force channels, then the forces in no
 *   channel), quat_row (first quaternion output; 0xFFFFFFFF: none), static_group,
 *   wave_group (the panels' loads' groups; 0xFFFFFFFF: none);
 *   u32 per body: kind, dof0, quaternion state (0xFFFFFFFF: none), frame, axis (nb x 5);
 *   f64 geometry[nb 6], mass[nb 36], basis[n nr], lhs0[n n], added[n n];
 *   f64 force[2 groups n nz] (world, body-frame parts; nz = 2 n + N + m + 1);
 *   f64 sines_re[2 groups n k], sines_im[2 groups n k];
 *   f64 state[2 N nz]; out[nout nw] (nw = (4 + groups) n + N + m + 1);
 *   f64 out_sines_re[nout k], out_sines_im[nout k];
 *   u32 nprod, then per product u32 i, j, l, f64 coefficient (out[i] = c out[j] out[l]);
 *   u32 has_drag; if 1: u32 group, frame (1: on the body-axes velocity), f64 B_q[n] (the
 *   quadratic drag -B_q v |v| per DOF; its linear part is in the force maps).
 * Every index is range-checked at reading, every array allocated there: none per step.
 */
#ifndef HFN_BODIES_H
#define HFN_BODIES_H

#include <stddef.h>
#include <stdint.h>

#include "hfn_internal.h"
#include "hfn_panels.h"

struct hfn_reader_s;
typedef struct hfn_bodies_s hfn_bodies_model; /* opaque (hfn_bodies.c) */

/* Read the section at the cursor into *out (NULL when it has no body): N states, m inputs,
 * nout outputs, k sinusoids, nq DOFs (0 outside the Runge-Kutta mode). 0, or -1 after a
 * message into err. */
HFN_HIDDEN int hfn_bodies_read(hfn_bodies_model **out, struct hfn_reader_s *r, uint32_t N,
                               uint32_t m, uint32_t nout, uint32_t k, uint32_t nq, char *err,
                               size_t err_size);
HFN_HIDDEN void hfn_bodies_free(hfn_bodies_model *bm);
/* dy (N) at (t, y) with the inputs u, the phasors (pre, pim) at t, their ramp and height
 * factor rf, the panels pm (or NULL) with the run's start t0 and the height factor dscale.
 * A pose or solve the kernel refuses gives NaN (the step diverges and is refused). */
HFN_HIDDEN void hfn_bodies_deriv(hfn_bodies_model *bm, hfn_panels_model *pm, double t,
                                 double t0, double dscale, double rf, const double *u,
                                 const double *y, const double *pre, const double *pim,
                                 double *dy);
/* Every output (nout) at (t, y), as hfn_bodies_deriv's arguments. */
HFN_HIDDEN void hfn_bodies_outputs(hfn_bodies_model *bm, hfn_panels_model *pm, double t,
                                   double t0, double dscale, double rf, const double *u,
                                   const double *y, const double *pre, const double *pim,
                                   double *out);

#endif
