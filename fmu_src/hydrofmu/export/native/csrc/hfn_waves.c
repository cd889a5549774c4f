/* hydrofmu native runtime, the sinusoids and the ramps (see hfn_waves.h). */
#include "hfn_waves.h"

#include <math.h>

void hfn_phasors_at(instance *c, double t) {
    uint32_t q;
    for (q = 0; q < c->md.k; q++) hfn_cos_sin(c->md.omega[q] * t, &c->d.p_re[q], &c->d.p_im[q]);
    if (c->md.has_ramp)
        hfn_cos_sin(M_PI / c->md.ramp_time * (t - *c->d.t0), &c->d.r[0], &c->d.r[1]);
    else { c->d.r[0] = 1.0; c->d.r[1] = 0.0; }
}

double hfn_half_cosine(double s, double T) {
    if (T <= 0.0 || s >= T) return 1.0;
    if (s <= 0.0) return 0.0;
    return 0.5 * (1.0 - cos(M_PI * s / T));
}

double hfn_ramp_factor(const instance *c, double t) {
    double s = t - *c->d.t0, T = c->md.ramp_time;
    if (T <= 0.0 || s >= T) return 1.0;
    if (s <= 0.0) return 0.0;
    return 0.5 * (1.0 - c->d.r[0]);
}
