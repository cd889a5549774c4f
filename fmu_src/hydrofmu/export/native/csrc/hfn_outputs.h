/* hydrofmu native runtime, the outputs:
 *     y = C [x; u; 1] + ramp(t) Re(sum_k H_k e^{i w_k t})   (H = O S when factorised)
 * plus, in the Runge-Kutta mode, OG [g_drag; g_exc] and the previewed elevation, then the
 * products of outputs. */
#ifndef HFN_OUTPUTS_H
#define HFN_OUTPUTS_H

#include "hfn_instance.h"
#include "hfn_internal.h"

/* The outputs at the current time, state and inputs into c->d.out (dirty cleared). */
HFN_HIDDEN void hfn_compute_outputs(instance *c);

#endif
