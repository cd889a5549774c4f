/* hydrofmu native runtime, the load FMU ([export] kind = "loads"): the model's forces at the
 * importer's motion, as runtime/loads/model.py evaluates them.
 *
 * The inputs are each body's pose, velocity and acceleration (u[18 b .. 18 b + 17]), then
 * the parts' inputs. The build (export/native/load_blob.py) assembled the load model's
 * affine maps: the outputs y = C [x; u; 1] + ramp(t) Re(sum_k H_k e^{i w_k t}) with x the
 * parts' states (state-space radiation), and their derivative x' = F x + G [u; 1] (read by
 * the parts at the pose and velocity only). The states are committed by fmi2DoStep at the
 * motion of the communication point it starts from; to evaluate the outputs at the current
 * time they are carried from the last committed sample along the quintic Hermite motion
 * between the two points' (pose, velocity, acceleration), one RK4 step per internal step
 * dt, with the parts' inputs of the last committed point held (LoadModel._advance_memory),
 * and nothing is committed. Convolution radiation (hfn_conv.h, the motion FMU's code): the
 * DOF velocities on the grid in the ring buffer of the dynamic state, pushed by
 * fmi2DoStep at the grid times of the step (the Hermite motion's velocity inside, the
 * input's at its end); the outputs push them as far as the current time on a copy and read
 * the force on the grid (s = 0). */
#ifndef HFN_LOAD_H
#define HFN_LOAD_H

#include <stddef.h>

#include "fmi2Functions.h"
#include "hfn_instance.h"
#include "hfn_internal.h"
#include "hfn_model.h"

/* Doubles of the load FMU's part of the dynamic state: committed (0/1), the committed
 * sample's time, its motion rows (q, v, a: 3 x 6 N) and inputs (m); 0 for another FMU. */
HFN_HIDDEN size_t hfn_load_state_size(const hfn_model *md);
/* Doubles of its work arrays. */
HFN_HIDDEN size_t hfn_load_work_size(const hfn_model *md);
/* Whether a deserialized block's load part is one this runtime writes. */
HFN_HIDDEN int hfn_load_consistent(const hfn_model *md, const double *load);
/* The outputs at the current time and inputs into c->d.out (nothing committed). */
HFN_HIDDEN void hfn_load_outputs(instance *c);
/* fmi2DoStep of the load FMU (the arguments checked by the caller): commit the current
 * motion and move to t + h; fmi2Error after a message when h is not a whole number of the
 * internal step. */
HFN_HIDDEN fmi2Status hfn_load_step(instance *c, double t, double h);
/* The part states' derivative (at the current time) along the input seed du (m), or NULL
 * when the step from the committed sample is not a whole number of internal steps. */
HFN_HIDDEN const double *hfn_load_state_derivative(instance *c, const double *du);
/* dy += the outputs' derivative along the input seed du (m) through the quadratic drag
 * (-2 BQ |v| dv) and the convolution radiation (the velocities pushed into the history
 * since the committed sample, and the current one, read the motion inputs; nothing off
 * the grid, where hfn_load_state_derivative refuses). */
HFN_HIDDEN void hfn_load_derivative_terms(instance *c, const double *du, double *dy);

#endif
