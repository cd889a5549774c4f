/* hydrofmu native runtime, the tunable matrix parameters (a linear PTO's damping and
 * stiffness): F, G and C are affine in each (the blob stores dF, dG, dC); after a change
 * the runtime rebuilds them and solves for the sinusoids' particular solutions again. */
#ifndef HFN_TUNABLES_H
#define HFN_TUNABLES_H

#include <stdint.h>

#include "hfn_instance.h"
#include "hfn_internal.h"
#include "hfn_model.h"

/* Rebuild what the tunable matrix parameters determine, when their values changed (or a
 * restored state holds other values): C always (cheap), and with dyn F, G and the particular
 * solutions X_k = (i w_k I - F)^{-1} forcing_k (steady; on the ramp 0.5 X_k at w_k and -0.25
 * of the solutions at w_k +- pi/T, as the build computes them). At the build values the
 * blob's matrices (Python's discretisation of h0 among them). Returns 0, or -1 (with the
 * frequency in c->w_bad) when a solve is singular: a resonance; nothing is half-used then
 * (tun_d_ok stays 0 and the next call tries again). No allocation. */
HFN_HIDDEN int hfn_tunables_current(instance *c, int dyn);

/* The index among the tunable matrix parameters of Real parameter r, or -1. */
HFN_HIDDEN int hfn_tunable_index(const hfn_model *md, uint32_t r);

#endif
