/* hydrofmu native runtime, fmi2GetDirectionalDerivative (see hfn_deriv.h). */
#include "hfn_deriv.h"

#include <math.h>

#include "hfn_load.h"
#include "hfn_outputs.h"
#include "hfn_tunables.h"

#define NAME "fmi2GetDirectionalDerivative"

static fmi2Status refused(fmi2Real dunknown[], size_t n_unknown) {
    size_t i;
    if (dunknown)
        for (i = 0; i < n_unknown; i++) dunknown[i] = NAN;
    return fmi2Error;
}

fmi2Status hfn_directional_derivative(instance *c, const fmi2ValueReference unknown[],
                                      size_t n_unknown, const fmi2ValueReference known[],
                                      size_t n_known, const fmi2Real dknown[],
                                      fmi2Real dunknown[]) {
    const hfn_model *md = &c->md;
    uint32_t vr_in = md->npr, vr_out = md->npr + md->m, vr_end = md->npr + md->m + md->nout;
    double *du = c->deriv_work, *dy = c->deriv_work + md->m, *y = c->d.out;
    const double *dx = NULL; /* the load FMU's states' derivative */
    size_t i;
    uint32_t j;
    if ((n_unknown && (!unknown || !dunknown)) || (n_known && (!known || !dknown))) {
        REFUSE(c, NAME ": NULL array (%lu unknowns, %lu knowns)", (unsigned long)n_unknown,
               (unsigned long)n_known);
        return refused(dunknown, n_unknown);
    }
    if (!md->deriv) {
        REFUSE(c, NAME ": not provided by this model (providesDirectionalDerivative = false: "
               "its outputs read the elevation input through its filter); the Jacobian is a "
               "difference of the outputs at two inputs");
        return refused(dunknown, n_unknown);
    }
    if (hfn_refused(c, C_GET, NAME)) return refused(dunknown, n_unknown);
    for (j = 0; j < md->m; j++) du[j] = 0.0;
    for (i = 0; i < n_known; i++) {
        if (known[i] < vr_in || known[i] >= vr_out) {
            REFUSE(c, NAME ": value reference %u is not an input (the knowns of a directional "
                   "derivative are the inputs, value references %u to %u)", (unsigned)known[i],
                   (unsigned)vr_in, (unsigned)vr_out - 1u);
            return refused(dunknown, n_unknown);
        }
        if (!isfinite(dknown[i])) {
            REFUSE(c, NAME ": the seed of input %u is %g; seeds must be finite",
                   (unsigned)known[i], dknown[i]);
            return refused(dunknown, n_unknown);
        }
        du[known[i] - vr_in] += dknown[i];
    }
    for (i = 0; i < n_unknown; i++)
        if (unknown[i] < vr_out || unknown[i] >= vr_end) {
            REFUSE(c, NAME ": value reference %u is not an output (the unknowns of a "
                   "directional derivative are the outputs, value references %u to %u)",
                   (unsigned)unknown[i], (unsigned)vr_out, (unsigned)vr_end - 1u);
            return refused(dunknown, n_unknown);
        }
    for (j = 0; j < md->m; j++)
        if (!isfinite(c->d.u[j])) {
            REFUSE(c, NAME ": input %u is %g; the derivative is taken at finite inputs",
                   (unsigned)(vr_in + j), c->d.u[j]);
            return refused(dunknown, n_unknown);
        }
    /* the outputs as fmi2GetReal gives them (the products' factors) */
    if (*c->d.dirty != 0.0 && *c->d.phase != ST_INSTANTIATED && *c->d.phase != ST_INIT)
        hfn_compute_outputs(c);
    if (md->load) { /* the load FMU's states are carried to now along the current motion */
        dx = hfn_load_state_derivative(c, du);
        if (!dx) {
            REFUSE(c, NAME ": the FMU's time is not a whole number of internal steps after "
                   "its last step");
            return refused(dunknown, n_unknown);
        }
    }
    hfn_tunables_current(c, 0); /* C as the tunable parameters make it now */
    for (j = 0; j < md->nout; j++) {
        double s = 0.0;
        uint32_t e;
        for (e = c->cur_c_ptr[j]; e < c->cur_c_ptr[j + 1]; e++) {
            uint32_t col = c->cur_c_idx[e];
            if (col >= md->n && col < md->n + md->m) s += c->cur_c_val[e] * du[col - md->n];
            else if (dx && col < md->n) s += c->cur_c_val[e] * dx[col];
        }
        dy[j] = s;
    }
    if (md->load) hfn_load_derivative_terms(c, du, dy); /* drag, radiation history */
    for (j = 0; j < md->nprod; j++)
        dy[md->prod_i[j]] = md->prod_c[j] * (dy[md->prod_j[j]] * y[md->prod_l[j]]
                                             + y[md->prod_j[j]] * dy[md->prod_l[j]]);
    for (i = 0; i < n_unknown; i++) dunknown[i] = dy[unknown[i] - vr_out];
    return fmi2OK;
}
