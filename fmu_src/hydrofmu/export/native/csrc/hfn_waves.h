/* hydrofmu native runtime, the sinusoids and the ramps: the phasors e^{i w_k t} (and the
 * ramp's e^{i pi (t - t0) / T}) at a time, the real part of a phasor sum, the half-cosine
 * ramp. */
#ifndef HFN_WAVES_H
#define HFN_WAVES_H

#include <math.h>
#include <stdint.h>

#include "hfn_instance.h"
#include "hfn_internal.h"

static inline void hfn_cos_sin(double angle, double *c, double *s) {
    *c = cos(angle);
    *s = sin(angle);
}

/* Re(sum_q (xr_q + i xi_q)(pr_q + i pi_q)) over k terms, four partial sums. */
static inline double hfn_re_dot(const double *xr, const double *xi, const double *pr,
                                const double *pi_, uint32_t k) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint32_t q;
    for (q = 0; q + 2 <= k; q += 2) {
        s0 += xr[q] * pr[q]; s1 += xi[q] * pi_[q];
        s2 += xr[q + 1] * pr[q + 1]; s3 += xi[q + 1] * pi_[q + 1];
    }
    for (; q < k; q++) { s0 += xr[q] * pr[q]; s1 += xi[q] * pi_[q]; }
    return (s0 + s2) - (s1 + s3);
}

/* Phasors at the absolute time t (trigonometry: initialisation, resync, segment ends). */
HFN_HIDDEN void hfn_phasors_at(instance *c, double t);
/* The half-cosine ramp 0.5 (1 - cos(pi s / T)) at s after its start (1 when T <= 0). */
HFN_HIDDEN double hfn_half_cosine(double s, double T);
/* The wave ramp's factor at t from the ramp phasor (the exact stepper). */
HFN_HIDDEN double hfn_ramp_factor(const instance *c, double t);

#endif
