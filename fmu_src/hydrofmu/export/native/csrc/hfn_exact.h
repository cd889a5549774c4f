/* hydrofmu native runtime, the exact stepper: over a communication step with held inputs
 *     x(t + h) = x_p(t + h) + Phi_h (x(t) - x_p(t)) + Gamma_h [u; 1]
 * x_p the sinusoids' particular solution (on the wave ramp and after it: two segments, a
 * step that crosses the ramp's end is split there), [Phi_h | Gamma_h] the blob's for the
 * build's step, else discretised here and cached. */
#ifndef HFN_EXACT_H
#define HFN_EXACT_H

#include "hfn_instance.h"
#include "hfn_internal.h"

/* One communication step from the current time t to t_end: the new state into c->xnew,
 * x_p at the end into c->xp1 (segment c->end_seg, time c->xp1_t), the phasors advanced.
 * Returns 0, or -1 when the discretisation of a step length is singular. */
HFN_HIDDEN int hfn_exact_advance(instance *c, double t, double t_end);

#endif
