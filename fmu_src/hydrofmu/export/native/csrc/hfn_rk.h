/* hydrofmu native runtime, the Runge-Kutta mode: the Python scheme's internal steps (the
 * explicit tableau A, B, C of the configuration's scheme, given as data), term for term, on
 * the grid t0 + j dt (a partial step to an end off the grid) with
 *     x' = F x + G [u; 1] + ramp(t) Re(sum_k X_k e^{i w_k t})
 *          + EG (g_drag(x) + g_exc(t) + g_conv(t, x))
 * quadratic drag g_drag = -BL v - BQ v|v| (v = V x), the elevation input's excitation
 * g_exc (an FIR of its history on the grid, linear in between) and the radiation memory
 * g_conv (hfn_conv.h) evaluated at every stage. */
#ifndef HFN_RK_H
#define HFN_RK_H

#include "hfn_instance.h"
#include "hfn_internal.h"

/* The newest grid time t0 + j dt. */
HFN_HIDDEN double hfn_rk_grid_time(const instance *c);
/* The elevation input at the newest grid time: a new sample (push) or a better value for
 * the same instant (overwrite); the FIRs on the grid and one sample later follow. */
HFN_HIDDEN void hfn_rk_record(instance *c, double v, int push);
/* The history, the grid and the time at the start (fmi2ExitInitializationMode). */
HFN_HIDDEN void hfn_rk_start(instance *c);
/* The DOF forces of the drag (c->rk_gd) and of the elevation input (c->rk_ge) at time t,
 * s after the newest grid time, state y. */
HFN_HIDDEN void hfn_rk_forces(instance *c, double t, double s, const double *y);
/* The elevation at s after the newest grid time: the input received preview s before. */
HFN_HIDDEN double hfn_rk_elevation(const instance *c, double s, double u);
/* The internal steps to t_end (Simulator._advance); -1 when the state diverges (at the
 * time *t_fail, with the step *h_fail and the size *norm), -2 when an internal step cannot
 * advance time (at *t_fail: t + dt rounds to t), the block then to be restored. */
HFN_HIDDEN int hfn_rk_advance(instance *c, double t_end, double *t_fail, double *h_fail,
                              double *norm);

#endif
