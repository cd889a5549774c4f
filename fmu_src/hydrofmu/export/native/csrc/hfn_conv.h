/* hydrofmu native runtime, the radiation force by convolution (the Runge-Kutta mode):
 *
 *     F(t) = -int_0^T K(tau) v(t - tau) dtau
 *
 * as the Python part steps it (hydrofmu.runtime.forces.convolution): the DOF velocities of
 * the live kernel columns kept on the internal grid t0 + j dt (a ring buffer of nk samples,
 * newest first, twice over so that it is contiguous: part of the FMU state, pushed when an
 * internal step ends on the grid), the grid sums G_m = sum_i K[i + m] v_i (m = 0, 1) after
 * every push (in the state too), and at t = t_g + s in a step that started at t_n = t_g + sn
 * (velocity vn there) the trapezoid rule over the nodes t, t_n, t_g, t_g - dt, ... with K
 * linearly interpolated between its samples:
 *
 *     int = dt ((1 - a) G_0 + a G_1) - dt/2 K(s) v_0 + (s - sn)/2 (K(0) v + K(s - sn) vn)
 *           + sn/2 (K(s - sn) vn + K(s) v_0),         a = s / dt,
 *
 * (a step that starts on the grid: vn = v_0, sn = 0). The kernel, its truncation and its
 * live entries come from the blob (hfn_model.h), assembled in Python from the same part. */
#ifndef HFN_CONV_H
#define HFN_CONV_H

#include "hfn_instance.h"
#include "hfn_internal.h"

/* The doubles of the dynamic state the convolution keeps (0 without it). */
HFN_HIDDEN size_t hfn_conv_state_size(const hfn_model *md);
/* The work arrays (c->conv_work); 0, or -1 out of memory. */
HFN_HIDDEN int hfn_conv_alloc(instance *c);
/* Rest before the start and the velocity of the state c->d.x at the first grid time. */
HFN_HIDDEN void hfn_conv_start(instance *c);
/* Rest before the start and the velocity of y at the first grid time (hfn_conv_start's
 * with any y; the load FMU's: its DOF velocities). */
HFN_HIDDEN void hfn_conv_restart(instance *c, const double *y);
/* The velocity of state y at a new grid time (an internal step accepted on the grid). */
HFN_HIDDEN void hfn_conv_push(instance *c, const double *y);
/* hfn_conv_push, the grid sums updated only when sums is 1 (the load FMU pushes a step's
 * samples and sums once). In the load FMU, y is the nq DOF velocities (its inputs). */
HFN_HIDDEN void hfn_conv_record(instance *c, const double *y, int sums);
/* The internal step starts sn after the newest grid time, at state y. */
HFN_HIDDEN void hfn_conv_step_start(instance *c, double sn, const double *y);
/* The DOF forces (nq) at s after the newest grid time, state y, in the current step. */
HFN_HIDDEN const double *hfn_conv_force(instance *c, double s, const double *y);
/* out += OC F for the outputs at s after the newest grid time (the state c->d.x). */
HFN_HIDDEN void hfn_conv_outputs(instance *c, double s);
/* out += OC F at s after the newest grid time for the state (load FMU: DOF velocities) y. */
HFN_HIDDEN void hfn_conv_outputs_at(instance *c, double s, const double *y, double *out);
/* A dynamic state's convolution entries are ones this runtime writes (its ring position). */
HFN_HIDDEN int hfn_conv_consistent(const hfn_model *md, const dyn_view *v);

#endif
