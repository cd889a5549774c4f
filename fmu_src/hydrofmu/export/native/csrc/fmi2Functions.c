/* hydrofmu native runtime, the FMI 2.0 face: the co-simulation functions an importer calls
 * (life cycle, values, stepping, status). FMU states are in fmi2State.c. Every refusal says
 * why through the host's logger. Only these fmi2* functions are exported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "hfn_deriv.h"
#include "hfn_exact.h"
#include "hfn_instance.h"
#include "hfn_load.h"
#include "hfn_outputs.h"
#include "hfn_rk.h"
#include "hfn_tunables.h"
#include "hfn_waves.h"

/* Log categories (as the Python FMU declares them). */
static const char *CATEGORIES[N_CATEGORIES] = {"logStatusWarning", "logStatusDiscard",
                                               "logStatusError", "logStatusFatal", "logAll"};

/* ------------------------------------------------------------------ FMI: life cycle */
fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn) {
    const char *name = instanceName ? instanceName : "";
    (void)visible;
    if (!functions || !functions->logger) return NULL;
    if (!instanceName || !instanceName[0]) {
        hfn_plain_log(functions, name,
                      "fmi2Instantiate: instanceName must be a non-empty string");
        return NULL;
    }
    if (fmuType != fmi2CoSimulation) {
        hfn_plain_log(functions, name, "fmi2Instantiate: this FMU supports co-simulation only");
        return NULL;
    }
    if (!fmuResourceLocation) {
        hfn_plain_log(functions, name, "fmi2Instantiate: no resource location was given");
        return NULL;
    }
    return (fmi2Component)hfn_instance_new(name, fmuResourceLocation, fmuGUID, functions,
                                           loggingOn ? 1 : 0);
}

void fmi2FreeInstance(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return;
    hfn_states_release(c); /* the FMU states the host did not free */
    hfn_instance_free(c);
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn, size_t n,
                               const fmi2String categories[]) {
    instance *c = (instance *)comp;
    size_t i;
    int j;
    unsigned mask = 0;
    if (!c) return fmi2Error;
    c->logging_on = loggingOn ? 1 : 0;
    if (n == 0) { c->categories = 0x1Fu; return fmi2OK; }
    if (!categories) { REFUSE(c, "fmi2SetDebugLogging: %lu categories but a NULL array",
                              (unsigned long)n); return fmi2Error; }
    for (i = 0; i < n; i++) {
        int found = 0;
        for (j = 0; j < N_CATEGORIES; j++)
            if (categories[i] && strcmp(categories[i], CATEGORIES[j]) == 0) {
                mask |= 1u << j;
                found = 1;
            }
        if (!found) {
            REFUSE(c, "fmi2SetDebugLogging: unknown log category '%s' (known: logStatusWarning, "
                   "logStatusDiscard, logStatusError, logStatusFatal, logAll)",
                   categories[i] ? categories[i] : "(null)");
            return fmi2Error;
        }
    }
    c->categories = mask;
    return fmi2OK;
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    instance *c = (instance *)comp;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    if (!c) return fmi2Error;
    if (hfn_refused(c, C_SETUP, "fmi2SetupExperiment")) return fmi2Error;
    if (!isfinite(startTime)) {
        REFUSE(c, "fmi2SetupExperiment: startTime = %g is not a finite time", startTime);
        return fmi2Error;
    }
    *c->d.t0 = startTime;
    *c->d.time = startTime;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (hfn_refused(c, C_ENTER, "fmi2EnterInitializationMode")) return fmi2Error;
    *c->d.phase = ST_INIT;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    uint32_t i;
    if (!c) return fmi2Error;
    if (hfn_refused(c, C_EXIT, "fmi2ExitInitializationMode")) return fmi2Error;
    for (i = 0; i < c->md.m; i++) {
        if (!isfinite(c->d.u[i])) {
            hfn_log(c, fmi2Warning, "logStatusWarning", "non-finite start value of input %u: zero "
                  "is used until it is set", (unsigned)i);
            c->d.u[i] = 0.0;
            status = fmi2Warning;
        }
    }
    memcpy(c->d.x, c->md.y0, c->md.n * sizeof(double));
    *c->d.time = *c->d.t0;
    *c->d.rot_count = 0.0;
    *c->d.xp_valid = 0.0;
    hfn_phasors_at(c, *c->d.t0);
    if (c->md.rk) hfn_rk_start(c);
    hfn_compute_outputs(c);
    *c->d.phase = ST_STEP;
    return status;
}

fmi2Status fmi2Terminate(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    if (hfn_refused(c, C_TERMINATE, "fmi2Terminate")) return fmi2Error;
    *c->d.phase = ST_TERMINATED;
    c->halt = 0;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    hfn_reset_values(c);
    return fmi2OK;
}

/* ------------------------------------------------------------------ FMI: values */
/* Value references: Real parameters, inputs, outputs; then Integer, then String. */
#define VR_IN(md) ((md)->npr)
#define VR_OUT(md) ((md)->npr + (md)->m)
#define VR_INT(md) ((md)->npr + (md)->m + (md)->nout)
#define VR_STR(md) (VR_INT(md) + (md)->npi)

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    const hfn_model *md;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetReal: NULL array"); return fmi2Error; }
    md = &c->md;
    if (hfn_refused(c, C_GET, "fmi2GetReal")) status = fmi2Error;
    if (*c->d.dirty != 0.0 && *c->d.phase != ST_INSTANTIATED && *c->d.phase != ST_INIT) {
        uint32_t j;
        int finite = 1;
        for (j = 0; j < md->m; j++) if (!isfinite(c->d.u[j])) finite = 0;
        if (finite) hfn_compute_outputs(c);
    }
    for (i = 0; i < nvr; i++) {
        fmi2ValueReference r = vr[i];
        if (r < VR_IN(md)) value[i] = c->d.par_r[r];
        else if (r < VR_OUT(md)) value[i] = c->d.u[r - VR_IN(md)];
        else if (r < VR_INT(md)) value[i] = c->d.out[r - VR_OUT(md)];
        else {
            REFUSE(c, "no Real variable has value reference %u", (unsigned)r);
            value[i] = NAN;
            status = fmi2Error;
        }
    }
    return status;
}

static int param_refused(instance *c, uint32_t index, const char *type, int same) {
    if (!(hfn_allowed(c, C_SET_PAR))) {
        REFUSE(c, "parameter '%s' is fixed: it cannot be changed after initialization; the "
               "value is ignored (fmi2Set%s (parameter) is not allowed in state '%s')",
               c->md.names[index], type, hfn_state_name(c));
        return 1;
    }
    if (!same) {
        REFUSE(c, "parameter '%s': this native FMU was assembled with its start value and "
               "cannot take another one (the model's matrices are computed at build); rebuild "
               "it with the value in the configuration (hydrofmu build), or use the Python FMU "
               "(hydrofmu build --python) to change it at run time", c->md.names[index]);
        return 1;
    }
    return 0;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    const hfn_model *md;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetReal: NULL array"); return fmi2Error; }
    md = &c->md;
    for (i = 0; i < nvr; i++) {
        fmi2ValueReference r = vr[i];
        if (r < VR_IN(md) && (r + 1 == md->scale_par || hfn_tunable_index(md, r) >= 0)) {
            double v = value[i];
            if (hfn_refused(c, C_SET_INPUT, "fmi2SetReal (tunable parameter)")) {
                status = fmi2Error;
            } else if (!(isfinite(v) && v >= 0.0)) {
                REFUSE(c, "%s = %g refused, it keeps its value %g: it must be a finite number "
                       ">= 0", md->names[r], v, c->d.par_r[r]);
                status = fmi2Error;
            } else {
                c->d.par_r[r] = v;
                if (r + 1 == md->scale_par) /* the sinusoids are linear in it */
                    *c->d.scale = v / md->par_r[r];
                /* a matrix parameter: F, G, C and the particular solutions follow before the
                 * next step or output (tunables_current) */
                *c->d.xp_valid = 0.0;
                *c->d.dirty = 1.0;
            }
        } else if (r < VR_IN(md)) {
            double v = value[i], old = md->par_r[r];
            int same = v == old || (isnan(v) && isnan(old));
            if (param_refused(c, r, "Real", same)) status = fmi2Error;
        } else if (r < VR_OUT(md)) {
            if (hfn_refused(c, C_SET_INPUT, "fmi2SetReal (input)")) {
                status = fmi2Error;
                continue;
            }
            c->d.u[r - VR_IN(md)] = value[i];
            *c->d.dirty = 1.0;
        } else if (r < VR_INT(md)) {
            REFUSE(c, "output with value reference %u cannot be set", (unsigned)r);
            status = fmi2Error;
        } else {
            REFUSE(c, "no Real variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetInteger: NULL array"); return fmi2Error; }
    if (hfn_refused(c, C_GET, "fmi2GetInteger")) status = fmi2Error;
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_INT(&c->md) && r < VR_STR(&c->md)) value[i] = c->par_i[r - VR_INT(&c->md)];
        else {
            REFUSE(c, "no Integer variable has value reference %u", (unsigned)r);
            value[i] = 0;
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetInteger: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_INT(&c->md) && r < VR_STR(&c->md)) {
            uint32_t k = r - VR_INT(&c->md);
            if (param_refused(c, c->md.npr + k, "Integer", value[i] == c->md.par_i[k]))
                status = fmi2Error;
        } else {
            REFUSE(c, "no Integer variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[]) {
    instance *c = (instance *)comp;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetBoolean: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        REFUSE(c, "no Boolean variable has value reference %u", (unsigned)vr[i]);
        value[i] = fmi2False;
    }
    return nvr ? fmi2Error : fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[]) {
    instance *c = (instance *)comp;
    size_t i;
    (void)value;
    if (!c) return fmi2Error;
    if (nvr && !vr) { REFUSE(c, "fmi2SetBoolean: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++)
        REFUSE(c, "no Boolean variable has value reference %u", (unsigned)vr[i]);
    return nvr ? fmi2Error : fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2GetString: NULL array"); return fmi2Error; }
    if (hfn_refused(c, C_GET, "fmi2GetString")) status = fmi2Error;
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_STR(&c->md) && r < VR_STR(&c->md) + c->md.nps) {
            value[i] = c->par_s[r - VR_STR(&c->md)];
        } else {
            REFUSE(c, "no String variable has value reference %u", (unsigned)r);
            value[i] = "";
            status = fmi2Error;
        }
    }
    return status;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[]) {
    instance *c = (instance *)comp;
    fmi2Status status = fmi2OK;
    size_t i;
    if (!c) return fmi2Error;
    if (nvr && (!vr || !value)) { REFUSE(c, "fmi2SetString: NULL array"); return fmi2Error; }
    for (i = 0; i < nvr; i++) {
        uint32_t r = vr[i];
        if (r >= VR_STR(&c->md) && r < VR_STR(&c->md) + c->md.nps) {
            uint32_t k = r - VR_STR(&c->md);
            int same = value[i] && strcmp(value[i], c->md.par_s[k]) == 0;
            if (param_refused(c, c->md.npr + c->md.npi + k, "String", same)) status = fmi2Error;
        } else {
            REFUSE(c, "no String variable has value reference %u", (unsigned)r);
            status = fmi2Error;
        }
    }
    return status;
}


/* The step's arguments and the inputs checked (and the tunables' matrices made current):
 * fmi2OK to go on, else the status to return (after a message). */
static fmi2Status step_checked(instance *c, double t, double h) {
    const hfn_model *md = &c->md;
    double fmu_time = *c->d.time, tol;
    uint32_t i;
    if (!isfinite(t)) {
        REFUSE(c, "fmi2DoStep refused: currentCommunicationPoint = %.17g is not a finite time; "
               "the FMU is at t = %.17g s", t, fmu_time);
        return fmi2Error;
    }
    if (!(isfinite(h) && h > 0.0)) {
        REFUSE(c, "fmi2DoStep refused: communicationStepSize = %.17g must be a finite number "
               "> 0 s", h);
        return fmi2Error;
    }
    tol = fmax(1e-9 * h, 8.0 * nextafter(fabs(fmu_time), INFINITY) - 8.0 * fabs(fmu_time));
    if (fabs(t - fmu_time) > tol) {
        REFUSE(c, "fmi2DoStep refused: currentCommunicationPoint = %.17g s but the FMU is at "
               "t = %.17g s (steps must follow each other; use fmi2SetFMUstate to go back)",
               t, fmu_time);
        return fmi2Error;
    }
    /* the end time is the start time (or, t being within the tolerance above, not after
     * the FMU's time), or overflows */
    if (!(t + h > t) || !(t + h > fmu_time) || !isfinite(t + h)) {
        REFUSE(c, "fmi2DoStep refused: a step of %.17g s from t = %.17g s cannot advance time "
               "(t + h rounds to %.17g in double precision); take a longer step or start the "
               "experiment at a smaller time", h, t, t + h);
        return fmi2Error;
    }
    for (i = 0; i < md->m; i++) {
        if (!isfinite(c->d.u[i])) {
            hfn_log(c, fmi2Discard, "logStatusDiscard", "step at t = %.17g s refused: input %u "
                    "is not finite (%g); the state and the outputs stay at their last good "
                    "values", t, (unsigned)i, c->d.u[i]);
            return fmi2Discard;
        }
    }
    if (hfn_tunables_current(c, 1) != 0) {
        REFUSE(c, "step from t = %.17g s refused: with the tunable parameters' current values "
               "the wave component at %.9g rad/s resonates with an undamped mode of the model "
               "(i w is an eigenvalue of its system matrix; on the ramp the frequencies are "
               "shifted by +-pi/ramp_time); the state stays at the start of the step; change "
               "the PTO damping or stiffness", t, c->w_bad);
        return fmi2Error;
    }
    return fmi2OK;
}

/* The internal steps of a call without the parameter max_internal_steps_per_call (every
 * build declares it; a bound all the same, so that no call runs without end). */
#define HFN_STEP_LIMIT_DEFAULT 1e7

/* The Runge-Kutta mode's step: the internal steps, the block restored if they diverge. */
static fmi2Status step_rk(instance *c, double t, double h) {
    const hfn_model *md = &c->md;
    double t_fail = 0.0, h_fail = 0.0, big = 0.0;
    const char *why;
    /* internal steps from where the state is (its simulator time) to the end, a bound
     * (work_limits): NaN or inf compare false and are refused with the rest */
    double steps = ceil((t + h - *c->d.rk_time) / md->dt) + 1.0;
    double limit = c->step_limit_index >= 0 ? (double)c->par_i[c->step_limit_index]
                                            : HFN_STEP_LIMIT_DEFAULT;
    int rc;
    if (!(steps <= limit)) {
        hfn_log(c, fmi2Discard, "logStatusDiscard", "fmi2DoStep refused before any work: a "
                "step of %.17g s from t = %.17g s (the internal time is %.17g s) takes %.3g "
                "internal steps of %.17g s, above the limit max_internal_steps_per_call = "
                "%.17g; take shorter communication steps or raise the parameter "
                "max_internal_steps_per_call", h, t, *c->d.rk_time, steps, md->dt, limit);
        return fmi2Discard;
    }
    memcpy(c->rk_save, c->d.block, c->d.size * sizeof(double));
    (void)hfn_cat_failure(md->cat); /* hfn_catenary.c: a failure of this step only */
    rc = hfn_rk_advance(c, t + h, &t_fail, &h_fail, &big);
    if (rc == -2) {
        memcpy(c->d.block, c->rk_save, c->d.size * sizeof(double));
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s "
                "refused: an internal step of %.17g s cannot advance time at t = %.17g s "
                "(t + dt rounds to t in double precision); start the experiment at a smaller "
                "time; the state stays at the start of the step", t, h, md->dt, t_fail);
        return fmi2Discard;
    }
    if (rc != 0 && (why = hfn_cat_failure(md->cat)) != NULL) { /* a catenary line */
        memcpy(c->d.block, c->rk_save, c->d.size * sizeof(double));
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s failed: "
                "%s; the state stays at the start of the step", t, h, why);
        return fmi2Discard;
    }
    if (rc != 0) {
        memcpy(c->d.block, c->rk_save, c->d.size * sizeof(double));
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s failed: "
                "the solution diverges at t = %.6g s with time scheme '%s' (h = %.3g s, "
                "|state| = %.3g > %g); rebuild the FMU with a smaller max_internal_step, and "
                "check the mass, stiffness and damping data; the state stays at the start of "
                "the step", t, h, t_fail,
                md->lines && md->lines->si_n ? "semi-implicit (time_scheme)" : "rk4", h_fail,
                big, md->div_limit);
        return fmi2Discard;
    }
    *c->d.time = t + h;
    hfn_compute_outputs(c);
    if ((why = hfn_cat_failure(md->cat)) != NULL) { /* a catenary line at the step's end */
        memcpy(c->d.block, c->rk_save, c->d.size * sizeof(double));
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s failed: "
                "%s; the state stays at the start of the step", t, h, why);
        return fmi2Discard;
    }
    return fmi2OK;
}

/* The exact step; a singular discretisation or a diverged state is discarded with the
 * phasors and the rotation count restored. */
static fmi2Status step_exact(instance *c, double t, double h) {
    const hfn_model *md = &c->md;
    double fmu_time = *c->d.time, t_end = t + h, norm2 = 0.0;
    /* The phasors and the rotation count change in hfn_exact_advance(): saved for a
     * rollback. */
    double saved_r0 = c->d.r[0], saved_r1 = c->d.r[1], saved_count = *c->d.rot_count;
    uint32_t i;
    /* From where the state is (the FMU's time: the last step's end) to the host's t + h,
     * as the Python FMU steps: the importer's round-off of t (within the tolerance of
     * step_checked) is absorbed in this step's length, so that the sinusoids' phase and
     * the state's propagation span the same interval. Stepping from the host's t instead
     * fed that round-off (an ulp of t each step) into the model's undamped modes. */
    if (hfn_exact_advance(c, fmu_time, t_end) != 0) {
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s "
                "failed: the discretisation of this step length is singular or overflows "
                "(a step far longer than the model's time scales); the state stays at the "
                "start of the step", t, h);
        c->d.r[0] = saved_r0; c->d.r[1] = saved_r1; *c->d.rot_count = saved_count;
        hfn_phasors_at(c, fmu_time);
        return fmi2Discard;
    }
    for (i = 0; i < md->n; i++) norm2 += c->xnew[i] * c->xnew[i];
    if (!(norm2 <= md->div_limit * md->div_limit)) {
        hfn_log(c, fmi2Discard, "logStatusDiscard", "step from t = %.17g s by %.17g s "
                "failed: the state diverged (|y| = %g at t = %.17g s): either the model is "
                "unstable or, over a long step, a DOF without a restoring force drifts this "
                "far; check the mass, stiffness and damping data, or take shorter steps; the "
                "state stays at the start of the step", t, h, sqrt(norm2), t_end);
        c->d.r[0] = saved_r0; c->d.r[1] = saved_r1; *c->d.rot_count = saved_count;
        hfn_phasors_at(c, fmu_time);
        return fmi2Discard;
    }
    memcpy(c->d.x, c->xnew, md->n * sizeof(double));
    *c->d.time = t_end;
    /* x_p(t_end) of the segment the next step starts in (the split path ends in it too) */
    memcpy(c->d.xp, c->xp1, md->n * sizeof(double));
    *c->d.xp_seg = (double)c->end_seg;
    *c->d.xp_valid = c->xp1_t == t_end ? 1.0 : 0.0;
    hfn_compute_outputs(c);
    return fmi2OK;
}

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real t, fmi2Real h,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    instance *c = (instance *)comp;
    fmi2Status status;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!c) return fmi2Error;
    if (hfn_refused(c, C_STEP, "fmi2DoStep")) return fmi2Error;
    status = step_checked(c, t, h);
    if (status == fmi2OK)
        status = c->md.load ? hfn_load_step(c, t, h) /* hfn_load.c */
                 : c->md.rk ? step_rk(c, t, h) : step_exact(c, t, h);
    /* FMI 2.0: after fmi2Discard the step failed state, after fmi2Error the error state
     * (the block is as before the step: fmi2SetFMUstate, fmi2Reset lead out) */
    if (status == fmi2Discard) c->halt = ST_FAILED;
    else if (status == fmi2Error) c->halt = ST_ERROR;
    return status;
}

fmi2Status fmi2CancelStep(fmi2Component comp) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2CancelStep: steps are synchronous in this FMU; there is nothing to cancel");
    return fmi2Error;
}

static fmi2Status status_refused(fmi2Component comp, const char *name) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    REFUSE(c, "%s: steps are synchronous; there is no pending status", name);
    return fmi2Discard;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetStatus");
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *v) {
    instance *in = (instance *)c;
    if (in && s == fmi2LastSuccessfulTime && v) { *v = *in->d.time; return fmi2OK; }
    return status_refused(c, "fmi2GetRealStatus");
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetIntegerStatus");
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetBooleanStatus");
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *v) {
    (void)s; (void)v; return status_refused(c, "fmi2GetStringStatus");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[]) {
    instance *c = (instance *)comp;
    (void)vr; (void)nvr; (void)order; (void)value;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2SetRealInputDerivatives: inputs are held over a step "
           "(canInterpolateInputs = false)");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[]) {
    instance *c = (instance *)comp;
    (void)vr; (void)nvr; (void)order; (void)value;
    if (!c) return fmi2Error;
    REFUSE(c, "fmi2GetRealOutputDerivatives: not provided (maxOutputDerivativeOrder = 0)");
    return fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference u[],
                                        size_t nu, const fmi2ValueReference z[], size_t nz,
                                        const fmi2Real du[], fmi2Real dz[]) {
    instance *c = (instance *)comp;
    if (!c) return fmi2Error;
    return hfn_directional_derivative(c, u, nu, z, nz, du, dz); /* hfn_deriv.c */
}

/* ------------------------------------------------------------------ FMU state */
