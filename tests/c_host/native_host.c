/* A C master for the native FMU (tests/test_native_fmu.py), no Python anywhere.
 *
 * usage: native_host MODE BINARY RESOURCE_URI GUID VR_IN N_OUT VR_OUT0 DT STEPS [SEED|PAR_VR]
 *   MODE run:    steps STEPS times by DT with the input VR_IN = 1e5 sin(0.3 t) and prints
 *                "Y t y_0 ... y_{N_OUT-1}" (outputs VR_OUT0 .. VR_OUT0 + N_OUT - 1, %.17g);
 *                then "MAPS libpython=<0|1>" from /proc/self/maps (Linux).
 *   MODE misuse: every call out of the state machine, bad arguments, FMU state rollback
 *                (bit-identical), serialization round trip, two instances; prints "OK".
 *   MODE fuzz:   SEED-ed random sequence of STEPS FMI calls, arguments in and out of
 *                range; each status is checked against the state machine; prints "OK".
 *   MODE bench:  like run without printing; prints "US_PER_STEP <value>".
 *   run and bench with PAR_VR: that tunable parameter set to 1e5, 2e5, 3e5 or 4e5 every 50
 *                steps (the runtime rebuilds its matrices before the next step).
 *   run and bench: the environment variable HFN_INPUT_AMPLITUDE replaces the input's 1e5
 *                (e.g. 1 for an elevation input, m).
 * Any unexpected status prints "FAIL <what>" and exits 2.
 *
 * Built with -DDIRECT_LINK the FMU's source is linked in (for the sanitizer build);
 * otherwise the binary is loaded with dlopen.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmi2Functions.h"

#ifndef DIRECT_LINK
#include <dlfcn.h>
#endif

#ifdef COUNT_ALLOC
/* Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (and -DDIRECT_LINK): every
 * allocation of the runtime is counted, so that a test sees none per step. */
static long n_alloc = 0;
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size) { n_alloc++; return __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { n_alloc++; return __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { n_alloc++; return __real_realloc(p, size); }
#endif

typedef struct {
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *free_instance;
    fmi2SetDebugLoggingTYPE *set_debug_logging;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *exit_init;
    fmi2TerminateTYPE *terminate;
    fmi2ResetTYPE *reset;
    fmi2GetRealTYPE *get_real;
    fmi2SetRealTYPE *set_real;
    fmi2GetIntegerTYPE *get_integer;
    fmi2SetIntegerTYPE *set_integer;
    fmi2GetStringTYPE *get_string;
    fmi2SetStringTYPE *set_string;
    fmi2GetBooleanTYPE *get_boolean;
    fmi2DoStepTYPE *do_step;
    fmi2GetFMUstateTYPE *get_state;
    fmi2SetFMUstateTYPE *set_state;
    fmi2FreeFMUstateTYPE *free_state;
    fmi2SerializedFMUstateSizeTYPE *ser_size;
    fmi2SerializeFMUstateTYPE *serialize;
    fmi2DeSerializeFMUstateTYPE *deserialize;
} api;

static int quiet = 0;
static int n_logged = 0;
static long n_steps_ok = 0, n_restored = 0;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list args;
    char text[2048];
    (void)env;
    (void)instance;
    va_start(args, message);
    vsnprintf(text, sizeof text, message, args);
    va_end(args);
    n_logged++;
    if (!quiet) printf("LOG %d %s: %s\n", (int)status, category ? category : "", text);
}

static void fail(const char *what) {
    printf("FAIL %s\n", what);
    fflush(stdout);
    exit(2);
}

#define EXPECT(call, want)                                                      \
    do {                                                                        \
        fmi2Status s_ = (call);                                                 \
        if (s_ != (want)) {                                                     \
            char b_[256];                                                       \
            snprintf(b_, sizeof b_, "%s -> %d, expected %d (line %d)", #call,   \
                     (int)s_, (int)(want), __LINE__);                           \
            fail(b_);                                                           \
        }                                                                       \
    } while (0)

#ifdef DIRECT_LINK
static void load(api *f, const char *binary) {
    (void)binary;
    f->instantiate = fmi2Instantiate; f->free_instance = fmi2FreeInstance;
    f->set_debug_logging = fmi2SetDebugLogging; f->setup = fmi2SetupExperiment;
    f->enter = fmi2EnterInitializationMode; f->exit_init = fmi2ExitInitializationMode;
    f->terminate = fmi2Terminate; f->reset = fmi2Reset; f->get_real = fmi2GetReal;
    f->set_real = fmi2SetReal; f->get_integer = fmi2GetInteger; f->set_integer = fmi2SetInteger;
    f->get_string = fmi2GetString; f->set_string = fmi2SetString;
    f->get_boolean = fmi2GetBoolean; f->do_step = fmi2DoStep; f->get_state = fmi2GetFMUstate;
    f->set_state = fmi2SetFMUstate; f->free_state = fmi2FreeFMUstate;
    f->ser_size = fmi2SerializedFMUstateSize; f->serialize = fmi2SerializeFMUstate;
    f->deserialize = fmi2DeSerializeFMUstate;
}
#else
static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) { printf("FAIL dlsym %s\n", name); exit(2); }
    return p;
}
static void load(api *f, const char *binary) {
    void *lib = dlopen(binary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { printf("FAIL dlopen %s\n", dlerror()); exit(2); }
#define S(field, name) *(void **)(&f->field) = sym(lib, name)
    S(instantiate, "fmi2Instantiate"); S(free_instance, "fmi2FreeInstance");
    S(set_debug_logging, "fmi2SetDebugLogging"); S(setup, "fmi2SetupExperiment");
    S(enter, "fmi2EnterInitializationMode"); S(exit_init, "fmi2ExitInitializationMode");
    S(terminate, "fmi2Terminate"); S(reset, "fmi2Reset"); S(get_real, "fmi2GetReal");
    S(set_real, "fmi2SetReal"); S(get_integer, "fmi2GetInteger");
    S(set_integer, "fmi2SetInteger"); S(get_string, "fmi2GetString");
    S(set_string, "fmi2SetString"); S(get_boolean, "fmi2GetBoolean");
    S(do_step, "fmi2DoStep"); S(get_state, "fmi2GetFMUstate"); S(set_state, "fmi2SetFMUstate");
    S(free_state, "fmi2FreeFMUstate"); S(ser_size, "fmi2SerializedFMUstateSize");
    S(serialize, "fmi2SerializeFMUstate"); S(deserialize, "fmi2DeSerializeFMUstate");
#undef S
}
#endif

static const fmi2CallbackFunctions CALLBACKS = {logger, calloc, free, NULL, NULL};

static fmi2Component start(api *f, const char *uri, const char *guid, const char *name) {
    fmi2Component c = f->instantiate(name, fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False,
                                     fmi2True);
    if (!c) fail("fmi2Instantiate returned NULL");
    EXPECT(f->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    EXPECT(f->enter(c), fmi2OK);
    EXPECT(f->exit_init(c), fmi2OK);
    return c;
}

static int libpython_mapped(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    if (!maps) return -1;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "libpython")) found = 1;
    fclose(maps);
    return found;
}

/* ------------------------------------------------------------------ misuse */
static void misuse(api *f, const char *uri, const char *guid, fmi2ValueReference vr_in,
                   fmi2ValueReference vr_out, size_t n_out, double dt) {
    fmi2Component a, b;
    fmi2FMUstate s = NULL, s2 = NULL;
    double u = 1e5, y1[4096], y2[4096], nan_ = NAN, t;
    fmi2ValueReference outs[4096];
    size_t i, size = 0;
    fmi2Byte *buf;
    int k;
    const char *bad_cat[] = {"noSuchCategory"};
    const char *good_cat[] = {"logStatusError"};
    fmi2Integer iv = 0;
    fmi2String sv = NULL;
    fmi2Status s_;
    if (n_out > 4096) fail("too many outputs");
    for (i = 0; i < n_out; i++) outs[i] = vr_out + (fmi2ValueReference)i;
    /* NULL and wrong arguments at instantiation */
    if (f->instantiate("x", fmi2CoSimulation, guid, uri, NULL, fmi2False, fmi2True)) fail("NULL callbacks");
    if (f->instantiate("x", fmi2ModelExchange, guid, uri, &CALLBACKS, fmi2False, fmi2True)) fail("ME accepted");
    if (f->instantiate("x", fmi2CoSimulation, "{wrong}", uri, &CALLBACKS, fmi2False, fmi2True)) fail("bad GUID accepted");
    if (f->instantiate("x", fmi2CoSimulation, guid, "file:///nonexistent/folder", &CALLBACKS, fmi2False, fmi2True)) fail("no resources accepted");
    if (f->instantiate("", fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False, fmi2True)) fail("empty name accepted");
    a = f->instantiate("a", fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False, fmi2True);
    if (!a) fail("instantiate a");
    /* out of the state machine before initialization */
    EXPECT(f->do_step(a, 0.0, dt, fmi2False), fmi2Error);
    EXPECT(f->exit_init(a), fmi2Error);
    EXPECT(f->terminate(a), fmi2Error);
    EXPECT(f->get_real(a, outs, 1, y1), fmi2Error);
    EXPECT(f->set_debug_logging(a, fmi2True, 1, bad_cat), fmi2Error);
    EXPECT(f->set_debug_logging(a, fmi2True, 1, good_cat), fmi2OK);
    EXPECT(f->set_debug_logging(a, fmi2True, 0, NULL), fmi2OK);
    EXPECT(f->setup(a, fmi2False, 0.0, NAN, fmi2False, 0.0), fmi2Error);
    EXPECT(f->setup(a, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    EXPECT(f->enter(a), fmi2OK);
    EXPECT(f->setup(a, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2Error);
    EXPECT(f->enter(a), fmi2Error);
    EXPECT(f->set_real(a, &vr_out, 1, &u), fmi2Error);          /* an output */
    { fmi2ValueReference huge = 0x7fffffffu;
      EXPECT(f->set_real(a, &huge, 1, &u), fmi2Error);
      EXPECT(f->get_integer(a, &huge, 1, &iv), fmi2Error);
      EXPECT(f->get_string(a, &huge, 1, &sv), fmi2Error);
      EXPECT(f->get_boolean(a, &huge, 1, (fmi2Boolean *)&iv), fmi2Error); }
    /* value references 0 and 1: wave.height (tunable) and wave.period (fixed), as the test
     * checks in the model description */
    { fmi2ValueReference p0 = 1; double other = 12345.678;       /* a parameter, changed */
      double same;
      EXPECT(f->get_real(a, &p0, 1, &same), fmi2OK);
      EXPECT(f->set_real(a, &p0, 1, &same), fmi2OK);
      EXPECT(f->set_real(a, &p0, 1, &other), fmi2Error); }
    EXPECT(f->exit_init(a), fmi2OK);
    EXPECT(f->enter(a), fmi2Error);
    { fmi2ValueReference p0 = 1; double same;                    /* fixed after init */
      EXPECT(f->get_real(a, &p0, 1, &same), fmi2OK);
      EXPECT(f->set_real(a, &p0, 1, &same), fmi2Error); }
    { fmi2ValueReference h = 0; double v = 3.5, bad = -1.0, back;  /* tunable */
      EXPECT(f->set_real(a, &h, 1, &v), fmi2OK);
      EXPECT(f->set_real(a, &h, 1, &bad), fmi2Error);
      EXPECT(f->set_real(a, &h, 1, &nan_), fmi2Error);
      EXPECT(f->get_real(a, &h, 1, &back), fmi2OK);
      if (back != 3.5) fail("tunable parameter not kept"); }
    /* bad time arguments: fmi2Error, then FMI 2.0's error state (only the getters and a
     * saved state lead on); each from the state saved before */
    EXPECT(f->get_state(a, &s), fmi2OK);
    EXPECT(f->do_step(a, 1.0, dt, fmi2False), fmi2Error);
    EXPECT(f->do_step(a, 0.0, dt, fmi2False), fmi2Error);        /* in the error state */
    EXPECT(f->set_real(a, &vr_in, 1, &u), fmi2Error);
    EXPECT(f->get_real(a, outs, 1, y1), fmi2OK);
    { double bad_h[] = {-dt, 0.0, NAN, INFINITY, DBL_MAX};
      for (k = 0; k < 5; k++) {
          EXPECT(f->set_state(a, s), fmi2OK);
          s_ = f->do_step(a, 0.0, bad_h[k], fmi2False);  /* DBL_MAX: too long, or refused */
          if (s_ != fmi2Error && !(k == 4 && s_ == fmi2Discard)) fail("bad step accepted");
      }
      EXPECT(f->set_state(a, s), fmi2OK);
      EXPECT(f->do_step(a, NAN, dt, fmi2False), fmi2Error); }
    { /* a step that cannot advance time: t + h rounds to t at t = 1e17 s */
      fmi2Component big = f->instantiate("big", fmi2CoSimulation, guid, uri, &CALLBACKS,
                                         fmi2False, fmi2True);
      if (!big) fail("instantiate big");
      EXPECT(f->setup(big, fmi2False, 0.0, 1e17, fmi2False, 0.0), fmi2OK);
      EXPECT(f->enter(big), fmi2OK);
      EXPECT(f->exit_init(big), fmi2OK);
      EXPECT(f->do_step(big, 1e17, 1e-3, fmi2False), fmi2Error);
      f->free_instance(big); }
    EXPECT(f->set_state(a, s), fmi2OK);
    /* non-finite input: discarded, state kept, FMI 2.0's step failed state */
    EXPECT(f->set_real(a, &vr_in, 1, &nan_), fmi2OK);
    EXPECT(f->do_step(a, 0.0, dt, fmi2False), fmi2Discard);
    EXPECT(f->do_step(a, 0.0, dt, fmi2False), fmi2Error);        /* step failed: no step */
    EXPECT(f->set_real(a, &vr_in, 1, &u), fmi2Error);
    EXPECT(f->get_real(a, outs, 1, y1), fmi2OK);
    EXPECT(f->set_state(a, s), fmi2OK);                          /* back: step complete */
    EXPECT(f->free_state(a, &s), fmi2OK);
    EXPECT(f->set_real(a, &vr_in, 1, &u), fmi2OK);
    t = 0.0;
    for (k = 0; k < 10; k++, t += dt) EXPECT(f->do_step(a, t, dt, fmi2False), fmi2OK);
    /* FMU state: rollback is bit-identical */
    EXPECT(f->get_state(a, &s), fmi2OK);
    for (k = 0; k < 7; k++) EXPECT(f->do_step(a, t + k * dt, dt, fmi2False), fmi2OK);
    EXPECT(f->get_real(a, outs, n_out, y1), fmi2OK);
    EXPECT(f->set_state(a, s), fmi2OK);
    for (k = 0; k < 7; k++) EXPECT(f->do_step(a, t + k * dt, dt, fmi2False), fmi2OK);
    EXPECT(f->get_real(a, outs, n_out, y2), fmi2OK);
    if (memcmp(y1, y2, n_out * sizeof(double)) != 0) fail("rollback not bit-identical");
    /* serialization round trip, into another instance */
    EXPECT(f->ser_size(a, s, &size), fmi2OK);
    buf = (fmi2Byte *)malloc(size);
    EXPECT(f->serialize(a, s, buf, size), fmi2OK);
    EXPECT(f->serialize(a, s, buf, size - 1), fmi2Error);
    EXPECT(f->deserialize(a, buf, size - 1, &s2), fmi2Error);
    b = start(f, uri, guid, "b");
    EXPECT(f->deserialize(b, buf, size, &s2), fmi2OK);
    EXPECT(f->set_state(b, s2), fmi2OK);
    EXPECT(f->set_real(b, &vr_in, 1, &u), fmi2OK);
    for (k = 0; k < 7; k++) EXPECT(f->do_step(b, t + k * dt, dt, fmi2False), fmi2OK);
    EXPECT(f->get_real(b, outs, n_out, y2), fmi2OK);
    if (memcmp(y1, y2, n_out * sizeof(double)) != 0) fail("deserialized state differs");
    buf[0] ^= 0x55;
    EXPECT(f->deserialize(b, buf, size, &s2), fmi2Error);
    free(buf);
    EXPECT(f->set_state(a, NULL), fmi2Error);
    EXPECT(f->free_state(a, &s), fmi2OK);
    EXPECT(f->free_state(b, &s2), fmi2OK);
    /* terminate, then only getters and reset */
    EXPECT(f->terminate(a), fmi2OK);
    EXPECT(f->do_step(a, t, dt, fmi2False), fmi2Error);
    EXPECT(f->set_real(a, &vr_in, 1, &u), fmi2Error);
    EXPECT(f->get_real(a, outs, 1, y1), fmi2OK);
    EXPECT(f->reset(a), fmi2OK);
    EXPECT(f->setup(a, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    f->free_instance(a);
    f->free_instance(b);
    f->free_instance(NULL);
    EXPECT(f->do_step(NULL, 0.0, dt, fmi2False), fmi2Error);
    if (n_logged == 0) fail("no message was logged");
}

/* ------------------------------------------------------------------ fuzz */
static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}
static double rnd_real(void) {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1e-300};
    uint32_t r = rnd() % 16;
    if (r == 0) return NAN;
    if (r == 1) return INFINITY;
    if (r < 9) return special[r - 2];
    return ((double)rnd() / 4294967296.0 - 0.5) * 2e5;
}

enum { INST, INIT, STEP, FAILED, TERM, ERR };

static void fuzz(api *f, const char *uri, const char *guid, fmi2ValueReference vr_in,
                 fmi2ValueReference vr_out, size_t n_out, double dt, long calls,
                 unsigned long seed) {
    fmi2Component c = f->instantiate("fuzz", fmi2CoSimulation, guid, uri, &CALLBACKS, fmi2False,
                                     fmi2True);
    fmi2FMUstate saved = NULL;
    int state = INST, saved_state = INST;
    double t = 0.0, saved_t = 0.0, y[8];
    long i;
    fmi2ValueReference vrmax = vr_out + (fmi2ValueReference)n_out + 64;
    rng_state = seed;
    if (!c) fail("instantiate");
    quiet = 1;
    for (i = 0; i < calls; i++) {
        uint32_t op = rnd() % 14;
        fmi2Status s;
        char what[128];
        snprintf(what, sizeof what, "call %ld op %u in state %d", i, (unsigned)op, state);
        switch (op) {
        case 0:
            s = f->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
            if (s != (state == INST ? fmi2OK : fmi2Error)) fail(what);
            break;
        case 1:
            s = f->enter(c);
            if (s != (state == INST ? fmi2OK : fmi2Error)) fail(what);
            if (s == fmi2OK) state = INIT;
            break;
        case 2:
            s = f->exit_init(c);  /* fmi2Warning: a non-finite input start value */
            if (state == INIT ? (s != fmi2OK && s != fmi2Warning) : s != fmi2Error) fail(what);
            if (state == INIT) { state = STEP; t = 0.0; }
            break;
        case 3: case 4: case 5: {
            double h = (rnd() % 8) ? dt * (1 + rnd() % 3) : rnd_real();
            double at = (rnd() % 8) ? t : rnd_real();
            s = f->do_step(c, at, h, fmi2False);
            if (state != STEP) { if (s != fmi2Error) fail(what); break; }
            if (isfinite(h) && h > 0 && at == t && h < 1e6 && t + h > t) {
                if (s == fmi2OK) { t = t + h; n_steps_ok++; }
                else if (s != fmi2Discard) fail(what); /* a non-finite input or divergence */
            } else if (s == fmi2OK) {
                t = at + h; /* within the time tolerance */
            }
            /* FMI 2.0: fmi2Discard -> step failed, fmi2Error -> error */
            if (s == fmi2Discard) state = FAILED;
            if (s == fmi2Error) state = ERR;
            break;
        }
        case 6:
            if (rnd() % 4) break; /* rarer: a terminated instance only waits for a reset */
            s = f->terminate(c);
            if (s != ((state == STEP || state == FAILED || state == ERR) ? fmi2OK : fmi2Error)) fail(what);
            if (s == fmi2OK) state = TERM;
            break;
        case 7:
            if (rnd() % 4 == 0) {
                s = f->reset(c);
                if (s != fmi2OK) fail(what);
                state = INST; t = 0.0;
            }
            break;
        case 8: {
            fmi2ValueReference vr = rnd() % vrmax;
            double v = rnd_real();
            s = f->set_real(c, &vr, 1, &v);
            if (s != fmi2OK && s != fmi2Error) fail(what);
            if (vr == vr_in && (state == INST || state == INIT || state == STEP) && s != fmi2OK) fail(what);
            break;
        }
        case 9: {
            fmi2ValueReference vr[8];
            int k, n = (int)(rnd() % 8);
            for (k = 0; k < n; k++) vr[k] = (rnd() % 2) ? vr_out + rnd() % (fmi2ValueReference)n_out : rnd() % vrmax;
            s = f->get_real(c, vr, (size_t)n, y);
            if (s != fmi2OK && s != fmi2Error) fail(what);
            break;
        }
        case 10: {
            fmi2ValueReference vr = rnd() % vrmax;
            fmi2Integer v = (fmi2Integer)rnd();
            s = (rnd() % 2) ? f->set_integer(c, &vr, 1, &v) : f->get_integer(c, &vr, 1, &v);
            if (s != fmi2OK && s != fmi2Error) fail(what);
            break;
        }
        case 11: {
            fmi2ValueReference vr = rnd() % vrmax;
            fmi2String v = "rk4";
            s = (rnd() % 2) ? f->set_string(c, &vr, 1, &v) : f->get_string(c, &vr, 1, &v);
            if (s != fmi2OK && s != fmi2Error) fail(what);
            break;
        }
        case 12:
            s = f->get_state(c, &saved);
            if (s != fmi2OK) fail(what);
            /* a state saved after a failed step is the one before it */
            saved_state = (state == FAILED || state == ERR) ? STEP : state; saved_t = t;
            break;
        case 13:
            if (saved) {
                size_t size = 0;
                fmi2Byte *buf;
                fmi2FMUstate other = NULL;
                EXPECT(f->ser_size(c, saved, &size), fmi2OK);
                buf = (fmi2Byte *)malloc(size);
                EXPECT(f->serialize(c, saved, buf, size), fmi2OK);
                if (rnd() % 3 == 0) {
                    buf[rnd() % size] ^= (fmi2Byte)(1 + rnd() % 255);
                    s = f->deserialize(c, buf, size, &other); /* may be accepted: data */
                    if (s == fmi2OK) f->free_state(c, &other);
                } else {
                    EXPECT(f->deserialize(c, buf, size, &other), fmi2OK);
                    EXPECT(f->set_state(c, other), fmi2OK);
                    EXPECT(f->free_state(c, &other), fmi2OK);
                    state = saved_state; t = saved_t; n_restored++;
                }
                free(buf);
            }
            break;
        }
    }
    if (saved) f->free_state(c, &saved);
    f->free_instance(c);
    quiet = 0;
}

/* ------------------------------------------------------------------ main */
int main(int argc, char **argv) {
    api f;
    const char *mode, *binary, *uri, *guid;
    fmi2ValueReference vr_in, vr_out, outs[4096];
    size_t n_out, i;
    double dt, y[4096];
    long steps, k;
    if (argc < 10) {
        fprintf(stderr, "usage: %s MODE BINARY URI GUID VR_IN N_OUT VR_OUT0 DT STEPS "
                "[SEED (fuzz) | PAR_VR (run, bench)]\n",
                argv[0]);
        return 64;
    }
    mode = argv[1]; binary = argv[2]; uri = argv[3]; guid = argv[4];
    vr_in = (fmi2ValueReference)strtoul(argv[5], NULL, 10);
    n_out = (size_t)strtoul(argv[6], NULL, 10);
    vr_out = (fmi2ValueReference)strtoul(argv[7], NULL, 10);
    dt = strtod(argv[8], NULL);
    steps = strtol(argv[9], NULL, 10);
    if (n_out > 4096) n_out = 4096;
    for (i = 0; i < n_out; i++) outs[i] = vr_out + (fmi2ValueReference)i;
    load(&f, binary);
    if (strcmp(mode, "misuse") == 0) {
        quiet = 1;
        misuse(&f, uri, guid, vr_in, vr_out, n_out, dt);
        printf("OK\n");
        return 0;
    }
    if (strcmp(mode, "silent") == 0) {
        /* A host that instantiates with loggingOn = false and never calls
           fmi2SetDebugLogging: a refused call's reason must still reach its logger, an
           accepted call's messages must not. */
        fmi2Component c = f.instantiate("silent", fmi2CoSimulation, guid, uri, &CALLBACKS,
                                        fmi2False, fmi2False);
        int before;
        if (!c) fail("fmi2Instantiate returned NULL");
        EXPECT(f.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
        EXPECT(f.enter(c), fmi2OK);
        EXPECT(f.exit_init(c), fmi2OK);
        before = n_logged;
        EXPECT(f.do_step(c, 0.0, dt, fmi2True), fmi2OK);
        if (n_logged != before) fail("an accepted step logged with logging off");
        EXPECT(f.do_step(c, 5.0, dt, fmi2True), fmi2Error); /* not the current time */
        if (n_logged == before) fail("a refused step logged nothing with logging off");
        f.free_instance(c);
        printf("OK\n");
        return 0;
    }
    if (strcmp(mode, "fuzz") == 0) {
        fuzz(&f, uri, guid, vr_in, vr_out, n_out, dt, steps,
             argc > 10 ? strtoul(argv[10], NULL, 10) : 1ul);
        printf("steps=%ld restored=%ld logged=%d\nOK\n", n_steps_ok, n_restored, n_logged);
        return 0;
    }
    {
        fmi2Component c = start(&f, uri, guid, "run");
        int bench = strcmp(mode, "bench") == 0;
        struct timespec t0, t1;
        double t = 0.0, amplitude = 1e5;
        const char *amp_env = getenv("HFN_INPUT_AMPLITUDE");
#ifdef COUNT_ALLOC
        long alloc_before = 0;
#endif
        if (amp_env) amplitude = strtod(amp_env, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (k = 0; k < steps; k++) {
#ifdef COUNT_ALLOC
            if (k == 1) alloc_before = n_alloc; /* after the first step's discretisation */
#endif
            double u = amplitude * sin(0.3 * t);
            EXPECT(f.set_real(c, &vr_in, 1, &u), fmi2OK);
            if (argc > 10 && k % 50 == 25) { /* run/bench PAR_VR: a tunable parameter changed */
                fmi2ValueReference par = (fmi2ValueReference)strtoul(argv[10], NULL, 10);
                double v = 1e5 * (double)(1 + (k / 50) % 4);
                EXPECT(f.set_real(c, &par, 1, &v), fmi2OK);
            }
            EXPECT(f.do_step(c, t, dt, fmi2True), fmi2OK);
            t = (double)(k + 1) * dt;
            EXPECT(f.get_real(c, outs, n_out, y), fmi2OK);
            if (!bench) {
                printf("Y %.17g", t);
                for (i = 0; i < n_out; i++) printf(" %.17g", y[i]);
                printf("\n");
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
#ifdef COUNT_ALLOC
        printf("ALLOCATIONS_WHILE_STEPPING %ld of %ld\n", n_alloc - alloc_before, n_alloc);
#endif
        if (bench)
            printf("US_PER_STEP %.6g\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e6 +
                                          (double)(t1.tv_nsec - t0.tv_nsec) * 1e-3) / (double)steps);
        EXPECT(f.terminate(c), fmi2OK);
        f.free_instance(c);
        printf("MAPS libpython=%d\n", libpython_mapped());
    }
    return 0;
}
