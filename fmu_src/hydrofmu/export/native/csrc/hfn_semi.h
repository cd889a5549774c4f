/* hydrofmu native runtime, MoorDyn's semi-implicit schemes (beuler<N>, midpoint<N>, aca<N>)
 * in the Runge-Kutta mode, stage by stage as runtime/schemes/semi_implicit.py: N
 * evaluations of the derivative at the stage state built from the iterate z, every one but
 * the last relaxed (z <- (1 - r) g + r z, the weights r from the blob), the step
 * y + h g (aca: y + h/2 (d0 + g)); beuler and midpoint start from the derivative carried
 * from the previous step when it belongs to the step's start (kept in the dynamic state),
 * else from f(t, y). */
#ifndef HFN_SEMI_H
#define HFN_SEMI_H

#include "hfn_instance.h"
#include "hfn_internal.h"

/* The mode's state derivative dy at (t, s after the newest grid time, y, phasors pre, pim). */
typedef void (*hfn_deriv_fn)(instance *c, double t, double s, const double *y,
                             const double *pre, const double *pim, double *dy);

/* One step from (t, c->d.x) by h into c->xnew (the phasors at t + h/2 in c->pm_*, at t + h in
 * c->pe_*); the carried derivative updated when the new state is finite. */
HFN_HIDDEN void hfn_si_step(instance *c, double t, double h, double t_grid, hfn_deriv_fn f);

#endif
