/* hydrofmu's resource-URI shim for pythonfmu's Linux binary (built by hydrofmu.native).
 *
 * pythonfmu 0.7.0's fmi2Instantiate turns the resource URI into a path by decoding only
 * "%20"; an FMU unpacked under a folder with any other percent-encoded character (an
 * accent: "t%C3%ABst") looks for its resources in a folder that does not exist and the
 * host crashes. This library takes the binary's place (binaries/linux64/<id>.so), loads the
 * original next to it (REAL_NAME, given at compile time), decodes every %XY of the URI in
 * fmi2Instantiate, and forwards every other FMI 2.0 co-simulation call unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"

#ifndef REAL_NAME
#error "compile with -DREAL_NAME=\"<file name of the original binary>\""
#endif

#define EXPORT __attribute__((visibility("default")))
#ifndef fmi2Version
#define fmi2Version "2.0"
#endif

static char load_error[1024] = "";

static void *real_library(void) {
    static void *handle = NULL;
    if (handle) return handle;
    Dl_info info;
    if (!dladdr((void *)&real_library, &info) || !info.dli_fname) return NULL;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
    char *path = malloc(dir + strlen(REAL_NAME) + 1);
    if (!path) return NULL;
    memcpy(path, info.dli_fname, dir);
    strcpy(path + dir, REAL_NAME);
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(load_error, sizeof load_error, "%s", dlerror());
    free(path);
    return handle;
}

static void *real_symbol(const char *name) {
    void *lib = real_library();
    return lib ? dlsym(lib, name) : NULL;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                     fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                     const fmi2CallbackFunctions *functions,
                                     fmi2Boolean visible, fmi2Boolean loggingOn) {
    fmi2InstantiateTYPE *f = (fmi2InstantiateTYPE *)real_symbol("fmi2Instantiate");
    if (!f) {
        if (functions && functions->logger)
            functions->logger(functions->componentEnvironment, instanceName, fmi2Fatal,
                              "logStatusFatal",
                              "cannot load the FMU's binary " REAL_NAME ": %s (a C/C++ host "
                              "must preload libpython, or build the FMU with --link-libpython; "
                              "run: hydrofmu doctor FMU)",
                              load_error);
        return NULL;
    }
    if (!fmuResourceLocation) return f(instanceName, fmuType, fmuGUID, NULL, functions,
                                       visible, loggingOn);
    size_t n = strlen(fmuResourceLocation);
    char *decoded = malloc(n + 1);
    if (!decoded) return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; ++i) {
        int hi, lo;
        if (fmuResourceLocation[i] == '%' && i + 2 < n &&
            (hi = hex_value(fmuResourceLocation[i + 1])) >= 0 &&
            (lo = hex_value(fmuResourceLocation[i + 2])) >= 0) {
            decoded[j++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            decoded[j++] = fmuResourceLocation[i];
        }
    }
    decoded[j] = '\0';
    fmi2Component c = f(instanceName, fmuType, fmuGUID, decoded, functions, visible, loggingOn);
    free(decoded);
    return c;
}

/* Forward a call; fmi2Error when the original binary or the function is missing. */
#define FORWARD(name, params, args)                                 \
    EXPORT fmi2Status name params {                                 \
        static name##TYPE *f = NULL;                                \
        if (!f) f = (name##TYPE *)real_symbol(#name);               \
        return f ? f args : fmi2Error;                              \
    }

typedef const fmi2ValueReference *VRs;

FORWARD(fmi2SetDebugLogging, (fmi2Component c, fmi2Boolean on, size_t n, const fmi2String cat[]),
        (c, on, n, cat))
FORWARD(fmi2SetupExperiment,
        (fmi2Component c, fmi2Boolean tolDef, fmi2Real tol, fmi2Real t0, fmi2Boolean stopDef,
         fmi2Real stop),
        (c, tolDef, tol, t0, stopDef, stop))
FORWARD(fmi2EnterInitializationMode, (fmi2Component c), (c))
FORWARD(fmi2ExitInitializationMode, (fmi2Component c), (c))
FORWARD(fmi2Terminate, (fmi2Component c), (c))
FORWARD(fmi2Reset, (fmi2Component c), (c))
FORWARD(fmi2GetReal, (fmi2Component c, VRs vr, size_t n, fmi2Real v[]), (c, vr, n, v))
FORWARD(fmi2GetInteger, (fmi2Component c, VRs vr, size_t n, fmi2Integer v[]), (c, vr, n, v))
FORWARD(fmi2GetBoolean, (fmi2Component c, VRs vr, size_t n, fmi2Boolean v[]), (c, vr, n, v))
FORWARD(fmi2GetString, (fmi2Component c, VRs vr, size_t n, fmi2String v[]), (c, vr, n, v))
FORWARD(fmi2SetReal, (fmi2Component c, VRs vr, size_t n, const fmi2Real v[]), (c, vr, n, v))
FORWARD(fmi2SetInteger, (fmi2Component c, VRs vr, size_t n, const fmi2Integer v[]),
        (c, vr, n, v))
FORWARD(fmi2SetBoolean, (fmi2Component c, VRs vr, size_t n, const fmi2Boolean v[]),
        (c, vr, n, v))
FORWARD(fmi2SetString, (fmi2Component c, VRs vr, size_t n, const fmi2String v[]),
        (c, vr, n, v))
FORWARD(fmi2GetFMUstate, (fmi2Component c, fmi2FMUstate *s), (c, s))
FORWARD(fmi2SetFMUstate, (fmi2Component c, fmi2FMUstate s), (c, s))
FORWARD(fmi2FreeFMUstate, (fmi2Component c, fmi2FMUstate *s), (c, s))
FORWARD(fmi2SerializedFMUstateSize, (fmi2Component c, fmi2FMUstate s, size_t *n), (c, s, n))
FORWARD(fmi2SerializeFMUstate, (fmi2Component c, fmi2FMUstate s, fmi2Byte b[], size_t n),
        (c, s, b, n))
FORWARD(fmi2DeSerializeFMUstate,
        (fmi2Component c, const fmi2Byte b[], size_t n, fmi2FMUstate *s), (c, b, n, s))
FORWARD(fmi2GetDirectionalDerivative,
        (fmi2Component c, VRs u, size_t nu, VRs z, size_t nz, const fmi2Real du[],
         fmi2Real dz[]),
        (c, u, nu, z, nz, du, dz))
FORWARD(fmi2SetRealInputDerivatives,
        (fmi2Component c, VRs vr, size_t n, const fmi2Integer order[], const fmi2Real v[]),
        (c, vr, n, order, v))
FORWARD(fmi2GetRealOutputDerivatives,
        (fmi2Component c, VRs vr, size_t n, const fmi2Integer order[], fmi2Real v[]),
        (c, vr, n, order, v))
FORWARD(fmi2DoStep, (fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noPrior),
        (c, t, h, noPrior))
FORWARD(fmi2CancelStep, (fmi2Component c), (c))
FORWARD(fmi2GetStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Status *v), (c, k, v))
FORWARD(fmi2GetRealStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Real *v), (c, k, v))
FORWARD(fmi2GetIntegerStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Integer *v),
        (c, k, v))
FORWARD(fmi2GetBooleanStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v),
        (c, k, v))
FORWARD(fmi2GetStringStatus, (fmi2Component c, const fmi2StatusKind k, fmi2String *v),
        (c, k, v))

EXPORT const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
EXPORT const char *fmi2GetVersion(void) { return fmi2Version; }

EXPORT void fmi2FreeInstance(fmi2Component c) {
    static fmi2FreeInstanceTYPE *f = NULL;
    if (!f) f = (fmi2FreeInstanceTYPE *)real_symbol("fmi2FreeInstance");
    if (f) f(c);
}

/* hydrofmu's exit guard (loader.py) registers this with __cxa_atexit. */
EXPORT void finalizePythonInterpreter(void) {
    static void (*f)(void) = NULL;
    if (!f) *(void **)(&f) = real_symbol("finalizePythonInterpreter");
    if (f) f();
}
