/* hydrofmu native runtime, fmi2GetDirectionalDerivative: the outputs' response to the
 * inputs at the current state, without a step.
 *
 * The outputs are y = C [x; u; 1] + (terms of the time and the state: the sinusoids, the
 * Runge-Kutta mode's drag, convolution and line forces) followed by the products of
 * outputs y_i = c y_j y_l (a linear PTO's power). Their exact derivative along a seed du
 * of the inputs is dy = C_u du (C's input columns as the tunable matrix parameters make it
 * now), then dy_i = c (dy_j y_l + y_j dy_l) in the products' order: the other terms do not
 * depend on an input directly (a state changes only by a step). The load FMU's part states
 * are carried from the last step to now along the current motion (hfn_load.h): their
 * derivative along the seed's motion adds C_x dx. A model whose outputs read
 * an input otherwise (the elevation input's FIR) is built without the derivative
 * (derivative_blob.py says why; providesDirectionalDerivative = false). */
#ifndef HFN_DERIV_H
#define HFN_DERIV_H

#include <stddef.h>

#include "hfn_instance.h"
#include "hfn_internal.h"

/* The derivatives of the outputs `unknown` along the seeds `dknown` of the inputs `known`
 * into `dunknown`. fmi2Error after a message (and NaN in dunknown when it is not NULL): a
 * NULL array, a value reference that is not an output (unknown) or an input (known), a
 * seed or an input that is not finite, a call in a state that does not allow it, or a
 * model built without the derivative. */
HFN_HIDDEN fmi2Status hfn_directional_derivative(instance *c, const fmi2ValueReference unknown[],
                                                 size_t n_unknown,
                                                 const fmi2ValueReference known[],
                                                 size_t n_known, const fmi2Real dknown[],
                                                 fmi2Real dunknown[]);

#endif
