/* A rigid body as an FMI 2.0 co-simulation FMU: mass and inertia only (hydrofmu).
 *
 * Small motion of one body, 6 DOF (surge, sway, heave, roll, pitch, yaw at its reference
 * point), or any subset (Integer parameters free[i] = 0 fix DOF i at its initial pose):
 *
 *     M a = F(t),      F(t_n + tau) = F + F' tau + F'' tau^2 / 2   over a step,
 *
 * M the 6x6 mass matrix (parameters M[i,j], kg, kg m, kg m^2: mass, inertia, and whatever
 * an importer puts there, e.g. the load FMU's A_inf), F the input force[1..6] (N, N m) and
 * its derivatives from fmi2SetRealInputDerivatives (orders 1 and 2; they hold for the next
 * fmi2DoStep only and are zero after it: a master that sets none gets a held input). The
 * step is exact for that polynomial force. Outputs pose, velocity (states) and
 * acceleration = M^-1 force (direct feedthrough of the current input). It provides
 * fmi2Get/SetFMUstate, their serialization and fmi2GetDirectionalDerivative
 * (d acceleration / d force = M^-1 on the free DOFs).
 *
 * Built by hydrofmu.cosim.rigid_body.build_rigid_body_fmu (model description written
 * there; value references below). C99, no allocation after fmi2Instantiate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#define N 6
/* Real value references. */
#define VR_M 0                  /* M[i,j], row-major, 36 */
#define VR_Q0 36                /* initial_pose[1..6] */
#define VR_V0 42                /* initial_velocity[1..6] */
#define VR_F 48                 /* force[1..6], input */
#define VR_Q 54                 /* pose[1..6], output */
#define VR_V 60                 /* velocity[1..6], output */
#define VR_A 66                 /* acceleration[1..6], output */
#define N_REAL 72
/* Integer value references. */
#define VR_FREE 0               /* free[1..6] */
#define N_INT 6

enum phase { INSTANTIATED, INIT_MODE, STEP_COMPLETE, TERMINATED, FAILED };

/* Everything an FMU state holds: one block of plain data. */
typedef struct {
    double real[N_REAL];
    int integer[N_INT];
    double dforce[N][2];        /* first and second input derivatives */
    double minv[N][N];          /* M^-1 on the free DOFs, zero elsewhere */
    double time;
    int phase;
} Data;

typedef struct {
    Data d;
    fmi2CallbackFunctions cb;
    char name[128];
    int logging;
} Instance;

#define STATE_MAGIC 0x52424631u /* "RBF1" */

static void logmsg(Instance *c, fmi2Status status, const char *category, const char *msg) {
    if (c->cb.logger) c->cb.logger(c->cb.componentEnvironment, c->name, status, category,
                                   "%s", msg);
}

static fmi2Status refuse(Instance *c, const char *call) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s refused in phase %d (instantiated 0, initialization 1, "
             "step complete 2, terminated 3, failed 4)", call, c->d.phase);
    logmsg(c, fmi2Error, "logStatusError", msg);
    return fmi2Error;
}

static void set_defaults(Data *d) {
    memset(d, 0, sizeof *d);
    for (int i = 0; i < N; i++) {
        d->real[VR_M + 7 * i] = 1.0;
        d->integer[VR_FREE + i] = 1;
    }
}

/* M^-1 on the free DOFs by Gauss-Jordan with partial pivoting; 0 when singular. */
static int invert_free(Data *d, char *why, size_t len) {
    int idx[N], n = 0;
    double a[N][2 * N];
    for (int i = 0; i < N; i++)
        if (d->integer[VR_FREE + i]) idx[n++] = i;
    memset(d->minv, 0, sizeof d->minv);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < 2 * n; k++)
            a[r][k] = k < n ? d->real[VR_M + N * idx[r] + idx[k]] : (k - n == r ? 1.0 : 0.0);
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
        double scale = 0.0;
        for (int k = 0; k < n; k++) scale = fmax(scale, fabs(a[col][k]));
        if (!(fabs(a[piv][col]) > 1e-14 * scale) || !isfinite(a[piv][col])) {
            snprintf(why, len, "the mass matrix M on the free DOFs is singular or not finite "
                     "(pivot %g at DOF %d): set M[i,j] to the body's mass and inertia "
                     "(plus A_inf for a strong coupling)", a[piv][col], idx[col] + 1);
            return 0;
        }
        if (piv != col)
            for (int k = 0; k < 2 * n; k++) {
                double t = a[col][k]; a[col][k] = a[piv][k]; a[piv][k] = t;
            }
        double p = a[col][col];
        for (int k = 0; k < 2 * n; k++) a[col][k] /= p;
        for (int r = 0; r < n; r++) {
            if (r == col) continue;
            double f = a[r][col];
            for (int k = 0; k < 2 * n; k++) a[r][k] -= f * a[col][k];
        }
    }
    for (int r = 0; r < n; r++)
        for (int k = 0; k < n; k++) d->minv[idx[r]][idx[k]] = a[r][n + k];
    return 1;
}

static void update_acceleration(Data *d) {
    for (int i = 0; i < N; i++) {
        double s = 0.0;
        for (int j = 0; j < N; j++) s += d->minv[i][j] * d->real[VR_F + j];
        d->real[VR_A + i] = s;
    }
}

/* ------------------------------------------------------------------ FMI functions */
const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                              fmi2String resources, const fmi2CallbackFunctions *cb,
                              fmi2Boolean visible, fmi2Boolean logging) {
    (void)guid; (void)resources; (void)visible;
    if (!cb || type != fmi2CoSimulation) return NULL;
    Instance *c = (Instance *)calloc(1, sizeof(Instance));
    if (!c) return NULL;
    c->cb = *cb;
    snprintf(c->name, sizeof c->name, "%s", name ? name : "rigid_body");
    c->logging = logging;
    set_defaults(&c->d);
    c->d.phase = INSTANTIATED;
    return c;
}

void fmi2FreeInstance(fmi2Component c) { free(c); }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                               const fmi2String cat[]) {
    (void)n; (void)cat;
    if (!c) return fmi2Error;
    ((Instance *)c)->logging = on;
    return fmi2OK;
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tol_defined, fmi2Real tol,
                               fmi2Real start, fmi2Boolean stop_defined, fmi2Real stop) {
    (void)tol_defined; (void)tol; (void)stop_defined; (void)stop;
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    if (s->d.phase != INSTANTIATED) return refuse(s, "fmi2SetupExperiment");
    s->d.time = start;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    if (s->d.phase != INSTANTIATED) return refuse(s, "fmi2EnterInitializationMode");
    s->d.phase = INIT_MODE;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    Instance *s = (Instance *)c;
    char why[256];
    if (!s) return fmi2Error;
    if (s->d.phase != INIT_MODE) return refuse(s, "fmi2ExitInitializationMode");
    if (!invert_free(&s->d, why, sizeof why)) {
        logmsg(s, fmi2Error, "logStatusError", why);
        s->d.phase = FAILED;
        return fmi2Error;
    }
    for (int i = 0; i < N; i++) {
        int f = s->d.integer[VR_FREE + i] != 0;
        s->d.real[VR_Q + i] = s->d.real[VR_Q0 + i];
        s->d.real[VR_V + i] = f ? s->d.real[VR_V0 + i] : 0.0;
    }
    update_acceleration(&s->d);
    s->d.phase = STEP_COMPLETE;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    if (s->d.phase != STEP_COMPLETE) return refuse(s, "fmi2Terminate");
    s->d.phase = TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    set_defaults(&s->d);
    s->d.phase = INSTANTIATED;
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       fmi2Real value[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    for (size_t k = 0; k < n; k++) {
        if (vr[k] >= N_REAL) {
            logmsg(s, fmi2Error, "logStatusError", "fmi2GetReal: unknown value reference");
            return fmi2Error;
        }
        value[k] = s->d.real[vr[k]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                       const fmi2Real value[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    for (size_t k = 0; k < n; k++) {
        fmi2ValueReference r = vr[k];
        int input = r >= VR_F && r < VR_F + N;
        int param = r < VR_F && s->d.phase <= INIT_MODE;
        if (!(input || param)) {
            char msg[160];
            snprintf(msg, sizeof msg, "fmi2SetReal: value reference %u cannot be set now "
                     "(parameters before initialization ends, force[i] any time)", r);
            logmsg(s, fmi2Error, "logStatusError", msg);
            return fmi2Error;
        }
        if (!isfinite(value[k])) {
            char msg[160];
            snprintf(msg, sizeof msg, "fmi2SetReal: value reference %u set to a non-finite "
                     "value; refused, the previous value kept", r);
            logmsg(s, fmi2Error, "logStatusError", msg);
            return fmi2Error;
        }
        s->d.real[r] = value[k];
    }
    if (s->d.phase == STEP_COMPLETE) update_acceleration(&s->d);
    return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          fmi2Integer value[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    for (size_t k = 0; k < n; k++) {
        if (vr[k] >= N_INT) return fmi2Error;
        value[k] = s->d.integer[vr[k]];
    }
    return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          const fmi2Integer value[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    if (s->d.phase > INIT_MODE) return refuse(s, "fmi2SetInteger (a fixed parameter)");
    for (size_t k = 0; k < n; k++) {
        if (vr[k] >= N_INT || (value[k] != 0 && value[k] != 1)) {
            logmsg(s, fmi2Error, "logStatusError",
                   "fmi2SetInteger: free[i] is 1 (free) or 0 (fixed)");
            return fmi2Error;
        }
        s->d.integer[vr[k]] = value[k];
    }
    return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          fmi2Boolean value[]) {
    (void)c; (void)vr; (void)value;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                          const fmi2Boolean value[]) {
    (void)c; (void)vr; (void)value;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         fmi2String value[]) {
    (void)c; (void)vr; (void)value;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                         const fmi2String value[]) {
    (void)c; (void)vr; (void)value;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t n, const fmi2Integer order[],
                                       const fmi2Real value[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    for (size_t k = 0; k < n; k++) {
        if (vr[k] < VR_F || vr[k] >= VR_F + N || order[k] < 1 || order[k] > 2
            || !isfinite(value[k])) {
            logmsg(s, fmi2Error, "logStatusError", "fmi2SetRealInputDerivatives: only "
                   "force[i], orders 1 and 2, finite values");
            return fmi2Error;
        }
        s->d.dforce[vr[k] - VR_F][order[k] - 1] = value[k];
    }
    return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t n, const fmi2Integer order[],
                                        fmi2Real value[]) {
    (void)c; (void)vr; (void)order; (void)value;
    return n == 0 ? fmi2OK : fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_prior) {
    Instance *s = (Instance *)c;
    (void)no_prior;
    if (!s) return fmi2Error;
    if (s->d.phase != STEP_COMPLETE) return refuse(s, "fmi2DoStep");
    if (!(h > 0.0) || !isfinite(h) || fabs(t - s->d.time) > 1e-9 * fmax(1.0, fabs(t))) {
        char msg[200];
        snprintf(msg, sizeof msg, "fmi2DoStep(%.17g, %.17g) refused: the FMU is at t = "
                 "%.17g s and the step must be > 0", t, h, s->d.time);
        logmsg(s, fmi2Error, "logStatusError", msg);
        return fmi2Error;
    }
    Data *d = &s->d;
    double g1[N], g2[N];        /* integrals of F once and twice over the step */
    for (int j = 0; j < N; j++) {
        double f = d->real[VR_F + j], f1 = d->dforce[j][0], f2 = d->dforce[j][1];
        g1[j] = h * (f + h * (f1 / 2.0 + h * f2 / 6.0));
        g2[j] = h * h * (f / 2.0 + h * (f1 / 6.0 + h * f2 / 24.0));
    }
    for (int i = 0; i < N; i++) {
        if (!d->integer[VR_FREE + i]) continue;
        double dv = 0.0, dq = 0.0;
        for (int j = 0; j < N; j++) {
            dv += d->minv[i][j] * g1[j];
            dq += d->minv[i][j] * g2[j];
        }
        d->real[VR_Q + i] += h * d->real[VR_V + i] + dq;
        d->real[VR_V + i] += dv;
    }
    memset(d->dforce, 0, sizeof d->dforce);
    d->time = t + h;
    update_acceleration(d);
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component c) { (void)c; return fmi2Error; }

static fmi2Status no_status(fmi2Component c) {
    logmsg((Instance *)c, fmi2Discard, "logStatusDiscard",
           "the rigid body completes every step in fmi2DoStep: no asynchronous status");
    return fmi2Discard;
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind k, fmi2Status *v) {
    (void)k; (void)v; return no_status(c);
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind k, fmi2Real *v) {
    Instance *s = (Instance *)c;
    if (s && k == fmi2LastSuccessfulTime) { *v = s->d.time; return fmi2OK; }
    return no_status(c);
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind k, fmi2Integer *v) {
    (void)k; (void)v; return no_status(c);
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v) {
    (void)k; (void)v; return no_status(c);
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind k, fmi2String *v) {
    (void)k; (void)v; return no_status(c);
}

/* ------------------------------------------------------------------ FMU states */
fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
    Instance *s = (Instance *)c;
    if (!s || !state) return fmi2Error;
    Data *copy = *state ? (Data *)*state : (Data *)malloc(sizeof(Data));
    if (!copy) return fmi2Error;
    *copy = s->d;
    *state = copy;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
    Instance *s = (Instance *)c;
    if (!s || !state) return fmi2Error;
    s->d = *(const Data *)state;
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
    (void)c;
    if (state && *state) { free(*state); *state = NULL; }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size) {
    (void)c; (void)state;
    *size = sizeof(unsigned) + sizeof(Data);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[],
                                 size_t size) {
    unsigned magic = STATE_MAGIC;
    if (!state || size < sizeof magic + sizeof(Data)) return fmi2Error;
    (void)c;
    memcpy(bytes, &magic, sizeof magic);
    memcpy(bytes + sizeof magic, state, sizeof(Data));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state) {
    Instance *s = (Instance *)c;
    unsigned magic;
    if (!s || !state) return fmi2Error;
    if (size != sizeof magic + sizeof(Data)) {
        logmsg(s, fmi2Error, "logStatusError", "fmi2DeSerializeFMUstate: the bytes are not "
               "a state of this FMU (wrong size)");
        return fmi2Error;
    }
    memcpy(&magic, bytes, sizeof magic);
    if (magic != STATE_MAGIC) {
        logmsg(s, fmi2Error, "logStatusError", "fmi2DeSerializeFMUstate: wrong magic");
        return fmi2Error;
    }
    Data *copy = *state ? (Data *)*state : (Data *)malloc(sizeof(Data));
    if (!copy) return fmi2Error;
    memcpy(copy, bytes + sizeof magic, sizeof(Data));
    *state = copy;
    return fmi2OK;
}

/* ------------------------------------------------------------------ derivatives */
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference unknown[],
                                        size_t n_unknown, const fmi2ValueReference known[],
                                        size_t n_known, const fmi2Real dv_known[],
                                        fmi2Real dv_unknown[]) {
    Instance *s = (Instance *)c;
    if (!s) return fmi2Error;
    if (s->d.phase != STEP_COMPLETE && s->d.phase != INIT_MODE)
        return refuse(s, "fmi2GetDirectionalDerivative");
    for (size_t k = 0; k < n_unknown; k++) {
        double sum = 0.0;
        fmi2ValueReference u = unknown[k];
        if (u >= N_REAL) return fmi2Error;
        for (size_t j = 0; j < n_known; j++) {
            fmi2ValueReference w = known[j];
            if (w >= N_REAL) return fmi2Error;
            if (u >= VR_A && u < VR_A + N && w >= VR_F && w < VR_F + N)
                sum += s->d.minv[u - VR_A][w - VR_F] * dv_known[j];
        }
        dv_unknown[k] = sum;
    }
    return fmi2OK;
}
