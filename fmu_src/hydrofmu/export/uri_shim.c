/* hydrofmu's shim in front of pythonfmu's binary (built by hydrofmu.export.python_binary).
 *
 * This library takes the binary's place (binaries/linux64/<id>.so, binaries/win64/<id>.dll),
 * loads the original next to it (REAL_NAME, given at compile time: dlopen, or LoadLibraryExW
 * on Windows) and forwards every FMI 2.0 co-simulation call. It does what pythonfmu 0.7.0's
 * binary does not:
 *
 * 1. Resource URI: pythonfmu decodes only "%20" and strips only "file://"; an FMU unpacked
 *    under a folder with any other percent-encoded character (an accent: "t%C3%ABst"), or
 *    given "file:/path" (Simulink, Dymola) or "file://localhost/path", looks for its
 *    resources in a folder that does not exist and the host crashes. On Windows it strips
 *    "file:///" only, so "file:/C:/x", "file:///C|/x", "file://localhost/C:/x" and UNC
 *    shares fail too. fmi2Instantiate parses the location as the native runtime does
 *    (native/csrc/hfn_uri.h: every %XY decoded, drive letters and UNC paths on Windows)
 *    and hands pythonfmu HANDED_PREFIX + the path, the one form it reads.
 *
 * 2. fmi2Error: pythonfmu turns a Python exception into fmi2Fatal and lets Python return
 *    only OK (or Discard from doStep). fmi2Instantiate hands pythonfmu the shim's own
 *    logger, with a per-instance Shim struct as the component environment, and returns the
 *    Shim as the component; every call unwraps it. The Python slave marks a refused call by
 *    logging with the category REFUSED_CATEGORY (status error); pythonfmu hands the queued
 *    messages to the logger before the call returns, so the shim sees the mark and returns
 *    fmi2Error (the highest status marked) in place of the real status of that call. The
 *    real instance always has logging on so that the mark arrives; the shim forwards a
 *    message to the host's logger as the host asked (loggingOn, fmi2SetDebugLogging and
 *    its categories; messages of status discard and above always), under the category
 *    logStatus<Status> for a refusal.
 *
 * 3. fmi2FreeInstance twice: the freed Shim leaves the registry of live instances, so a
 *    second fmi2FreeInstance (or any call) on it is answered with a logged message and
 *    ignored (fmi2Error) instead of freeing pythonfmu's instance again (an abort). The last
 *    GRAVEYARD freed Shims are kept for that message; older ones are released.
 *
 * 4. No value from nothing: a call on a component that is not live (NULL after a failed
 *    fmi2Instantiate that the host ignored, as ECOS does; freed; unknown) returns fmi2Error
 *    and fills what it would have returned: reals NaN, strings "" (never NULL), integers
 *    and booleans 0, a status fmi2Error, an FMU state NULL, a size 0. A host that does not
 *    check the status then reads NaN, not a plausible 0.0.
 *
 * 5. fmi2GetDirectionalDerivative: pythonfmu's binary refuses it; the shim hands the seeds
 *    and the requested outputs to the Python slave through fmi2SetReal and fmi2GetReal
 *    with flagged value references (see the function below), which the slave answers
 *    with the exact derivative or refuses by name.
 */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2FunctionTypes.h"
#include "hfn_uri.h"

#ifndef REAL_NAME
#error "compile with -DREAL_NAME=\"<file name of the original binary>\""
#endif

#ifdef _WIN32
#define EXPORT __declspec(dllexport)
/* pythonfmu's Windows binary strips "file:///" (8 characters) and reads the rest as a path
 * ("C:/dir", or "//server/share" for a UNC share). */
#define HANDED_PREFIX "file:///"
#define LOAD_HINT "python3.dll and the Python the FMU was built with must be found (on PATH)"
typedef SRWLOCK shim_lock;
#define SHIM_LOCK_INIT SRWLOCK_INIT
#define LOCK(l) AcquireSRWLockExclusive(l)
#define UNLOCK(l) ReleaseSRWLockExclusive(l)
#else
#define EXPORT __attribute__((visibility("default")))
/* pythonfmu's Linux binary strips "file://" (7 characters): "file:///x" gives "/x". */
#define HANDED_PREFIX "file://"
#define LOAD_HINT "a C/C++ host must preload libpython, or build it with --link-libpython"
typedef pthread_mutex_t shim_lock;
#define SHIM_LOCK_INIT PTHREAD_MUTEX_INITIALIZER
#define LOCK(l) pthread_mutex_lock(l)
#define UNLOCK(l) pthread_mutex_unlock(l)
#endif
#ifndef fmi2Version
#define fmi2Version "2.0"
#endif

/* The category with which the Python slave marks a refused call (fmi_face.REFUSED). */
#define REFUSED_CATEGORY "hydrofmu.refused"
#define GRAVEYARD 64
#define SHIM_MAGIC 0x48594652u /* "HYFR" */

static char load_error[1024] = "";

#ifdef _WIN32
/* The original DLL, REAL_NAME in this DLL's folder (a wide path: the folder may hold any
 * character). LOAD_WITH_ALTERED_SEARCH_PATH: its own imports (python3.dll) are searched
 * from its folder first, then as usual. */
static HMODULE real_library(void) {
    static HMODULE handle = NULL;
    HMODULE self = NULL;
    const DWORD size = 32768;
    const char *name = REAL_NAME;
    wchar_t *path;
    DWORD n;
    size_t dir = 0, i, len = strlen(name);
    if (handle) return handle;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)(void *)&real_library, &self)) {
        snprintf(load_error, sizeof load_error, "GetModuleHandleExW failed (Windows error %lu)",
                 (unsigned long)GetLastError());
        return NULL;
    }
    path = (wchar_t *)malloc(size * sizeof *path);
    if (!path) return NULL;
    n = GetModuleFileNameW(self, path, size);
    if (n == 0 || n >= size) {
        snprintf(load_error, sizeof load_error, "GetModuleFileNameW failed (Windows error %lu)",
                 (unsigned long)GetLastError());
        free(path);
        return NULL;
    }
    for (i = 0; i < n; ++i)
        if (path[i] == L'\\' || path[i] == L'/') dir = i + 1;
    if (dir + len + 1 > size) {
        free(path);
        return NULL;
    }
    for (i = 0; i <= len; ++i) path[dir + i] = (wchar_t)(unsigned char)name[i];
    handle = LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!handle) {
        DWORD error = GetLastError();
        snprintf(load_error, sizeof load_error, "LoadLibraryExW failed (Windows error %lu%s)",
                 (unsigned long)error,
                 error == ERROR_MOD_NOT_FOUND ? ": it, or a DLL it needs, was not found" : "");
    }
    free(path);
    return handle;
}

static void *real_symbol(const char *name) {
    HMODULE lib = real_library();
    return lib ? (void *)GetProcAddress(lib, name) : NULL;
}
#else
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
#endif

/* ------------------------------------------------------------------ instances */
typedef struct Shim {
    unsigned magic;
    fmi2Component real;          /* pythonfmu's component */
    fmi2CallbackFunctions host;  /* the host's callbacks (a copy) */
    fmi2CallbackFunctions mine;  /* what pythonfmu gets: our logger, this Shim as env */
    char *name;                  /* instance name */
    int logging_on;              /* the host's wish */
    size_t n_categories;         /* the host's categories (0: all) */
    char **categories;
    fmi2Status marked;           /* highest status marked refused during the current call */
    struct Shim *next;
} Shim;

static shim_lock registry_lock = SHIM_LOCK_INIT;
static Shim *live = NULL;
static Shim *graveyard[GRAVEYARD];
static size_t graveyard_next = 0;

static void release_categories(Shim *s) {
    for (size_t i = 0; i < s->n_categories; ++i) free(s->categories[i]);
    free(s->categories);
    s->categories = NULL;
    s->n_categories = 0;
}

static void release(Shim *s) {
    if (!s) return;
    release_categories(s);
    free(s->name);
    free(s);
}

static char *copy_string(const char *text) {
    if (!text) text = "";
    size_t n = strlen(text) + 1;
    char *out = malloc(n);
    if (out) memcpy(out, text, n);
    return out;
}

static const char *status_category(fmi2Status status) {
    switch (status) {
        case fmi2OK: return "logAll";
        case fmi2Warning: return "logStatusWarning";
        case fmi2Discard: return "logStatusDiscard";
        case fmi2Error: return "logStatusError";
        case fmi2Fatal: return "logStatusFatal";
        default: return "logStatusPending";
    }
}

static int host_wants(const Shim *s, const char *category) {
    if (!s->logging_on || !s->host.logger) return 0;
    if (s->n_categories == 0) return 1;
    for (size_t i = 0; i < s->n_categories; ++i) {
        if (strcmp(s->categories[i], "logAll") == 0) return 1;
        if (category && strcmp(s->categories[i], category) == 0) return 1;
    }
    return 0;
}

/* The logger pythonfmu calls. The message is already a printf format (the slave escapes
 * '%'), forwarded as it is, without arguments. */
static void shim_logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                        fmi2String category, fmi2String message, ...) {
    Shim *s = (Shim *)env;
    if (!s || s->magic != SHIM_MAGIC) return;
    if (category && strcmp(category, REFUSED_CATEGORY) == 0) {
        fmi2Status marked = status > fmi2Error ? status : fmi2Error;
        if (marked > s->marked) s->marked = marked;
        category = status_category(marked);
    }
    /* Discards and errors always reach the host, whatever it asked (as the FMI reference
     * FMUs do for errors: an importer that turns logging off, such as fmpy's simulate_fmu,
     * still needs the reason of an fmi2Error, or of the fmi2Discard of a diverging step
     * after which it ends the run); the rest only as the host asked. */
    if (status >= fmi2Discard || host_wants(s, category))
        s->host.logger(s->host.componentEnvironment, instance, status, category, message);
}

/* A message from the shim itself (no format arguments: '%' in the text is escaped). */
static void shim_message(const Shim *s, fmi2Status status, const char *text) {
    if (!s || !s->host.logger) return;
    char escaped[1024];
    size_t j = 0;
    for (size_t i = 0; text[i] && j + 2 < sizeof escaped; ++i) {
        if (text[i] == '%') escaped[j++] = '%';
        escaped[j++] = text[i];
    }
    escaped[j] = '\0';
    if (status >= fmi2Error || host_wants(s, status_category(status)))
        s->host.logger(s->host.componentEnvironment, s->name, status, status_category(status),
                       escaped);
}

/* The live Shim of component c, or NULL (a freed or unknown component: said if known). */
static Shim *acquire(fmi2Component c, const char *call) {
    Shim *found = NULL, *dead = NULL;
    LOCK(&registry_lock);
    for (Shim *s = live; s; s = s->next)
        if ((fmi2Component)s == c) { found = s; break; }
    if (!found)
        for (size_t i = 0; i < GRAVEYARD; ++i)
            if (graveyard[i] && (fmi2Component)graveyard[i] == c) { dead = graveyard[i]; break; }
    UNLOCK(&registry_lock);
    if (dead) {
        char text[512];
        snprintf(text, sizeof text,
                 "%s called on instance '%s' after fmi2FreeInstance: ignored (the component "
                 "pointer is no longer valid; instantiate a new one)",
                 call, dead->name);
        shim_message(dead, fmi2Error, text);
    }
    return found;
}

/* The resource location as pythonfmu 0.7.0 reads it: it turns "%20" into a space and
 * strips HANDED_PREFIX, nothing else. The location is parsed as the native runtime parses
 * it (hfn_uri.h: file:/path, file:///path, file://localhost/path, every %XX decoded; on
 * Windows drive letters, "C|" and UNC shares) and handed on as HANDED_PREFIX + the path.
 * NULL: not a file URI of this machine. */
static char *normalized_uri(const char *uri) {
    char *path = hfn_uri_to_path(uri, HFN_URI_WINDOWS), *out;
    size_t k = strlen(HANDED_PREFIX);
    if (!path) return NULL;
    out = malloc(strlen(path) + k + 1);
    if (out) {
        memcpy(out, HANDED_PREFIX, k);
        strcpy(out + k, path);
    }
    free(path);
    return out;
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
                              "cannot load the FMU's binary " REAL_NAME ": %s (this is the "
                              "Python FMU: " LOAD_HINT "; the native FMU needs no Python: "
                              "hydrofmu build CONFIG -o FMU --native, where the model allows; "
                              "run: hydrofmu doctor FMU)",
                              load_error);
        return NULL;
    }
    Shim *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = SHIM_MAGIC;
    s->name = copy_string(instanceName);
    s->logging_on = loggingOn == fmi2True;
    if (functions) s->host = *functions;
    s->mine = s->host;
    s->mine.logger = shim_logger;
    s->mine.componentEnvironment = s;
    char *decoded = fmuResourceLocation ? normalized_uri(fmuResourceLocation) : NULL;
    if (fmuResourceLocation && !decoded && functions && functions->logger)
        functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                          "logStatusError", "fmi2Instantiate: the resource location '%s' is "
                          "not a file URI of this machine (file:///path, file:/path, "
                          "file://localhost/path, file:///C:/path on Windows)",
                          fmuResourceLocation);
    if (!s->name || (fmuResourceLocation && !decoded)) {
        free(decoded);
        release(s);
        return NULL;
    }
    /* Logging always on in pythonfmu's instance: the refusal marks must reach the shim. */
    s->real = f(instanceName, fmuType, fmuGUID, decoded, &s->mine, visible, fmi2True);
    free(decoded);
    if (!s->real) {
        release(s);
        return NULL;
    }
    LOCK(&registry_lock);
    s->next = live;
    live = s;
    UNLOCK(&registry_lock);
    return (fmi2Component)s;
}

EXPORT void fmi2FreeInstance(fmi2Component c) {
    static fmi2FreeInstanceTYPE *f = NULL;
    Shim *found = NULL, *dead = NULL, *evicted = NULL;
    LOCK(&registry_lock);
    for (Shim **p = &live; *p; p = &(*p)->next) {
        if ((fmi2Component)*p == c) {
            found = *p;
            *p = found->next;
            found->next = NULL;
            evicted = graveyard[graveyard_next];
            graveyard[graveyard_next] = found;
            graveyard_next = (graveyard_next + 1) % GRAVEYARD;
            break;
        }
    }
    if (!found)
        for (size_t i = 0; i < GRAVEYARD; ++i)
            if (graveyard[i] && (fmi2Component)graveyard[i] == c) { dead = graveyard[i]; break; }
    UNLOCK(&registry_lock);
    release(evicted);
    if (dead) {
        char text[512];
        snprintf(text, sizeof text,
                 "fmi2FreeInstance called again on instance '%s', which is already freed: "
                 "ignored (host misuse)", dead->name);
        shim_message(dead, fmi2Error, text);
        return;
    }
    if (!found) return;
    if (!f) f = (fmi2FreeInstanceTYPE *)real_symbol("fmi2FreeInstance");
    if (f) f(found->real);
    found->real = NULL;
}

EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean on, size_t n,
                                      const fmi2String categories[]) {
    Shim *s = acquire(c, "fmi2SetDebugLogging");
    if (!s) return fmi2Error;
    /* pythonfmu's instance keeps logging on (the marks); the shim filters for the host. */
    release_categories(s);
    s->logging_on = on == fmi2True;
    if (on == fmi2True && n > 0 && categories) {
        s->categories = calloc(n, sizeof *s->categories);
        if (!s->categories) return fmi2Error;
        for (size_t i = 0; i < n; ++i) {
            s->categories[i] = copy_string(categories[i]);
            if (!s->categories[i]) return fmi2Error;
            s->n_categories = i + 1;
        }
    }
    return fmi2OK;
}

/* Forward a call on the real component `real`; a call marked refused returns the mark.
 * On a component that is not live (or a missing symbol), `unfilled` writes the call's
 * outputs (NaN, "", 0) before fmi2Error is returned. */
#define FORWARD_FILL(name, params, args, unfilled)                  \
    EXPORT fmi2Status name params {                                 \
        static name##TYPE *f = NULL;                                \
        Shim *s = acquire(c, #name);                                \
        if (s && !f) f = (name##TYPE *)real_symbol(#name);          \
        if (!s || !f) {                                             \
            unfilled;                                               \
            return fmi2Error;                                       \
        }                                                           \
        fmi2Component real = s->real;                               \
        s->marked = fmi2OK;                                         \
        fmi2Status status = f args;                                 \
        fmi2Status marked = s->marked;                              \
        s->marked = fmi2OK;                                         \
        return marked > status ? marked : status;                   \
    }
#define FORWARD(name, params, args) FORWARD_FILL(name, params, args, (void)0)

/* Fill n values of an output array (which may be NULL) with x. */
#define FILL(array, n, x)                                           \
    do {                                                            \
        if (array)                                                  \
            for (size_t i_ = 0; i_ < (size_t)(n); ++i_) (array)[i_] = (x); \
    } while (0)
#define SET(pointer, x)                                             \
    do {                                                            \
        if (pointer) *(pointer) = (x);                              \
    } while (0)

typedef const fmi2ValueReference *VRs;

FORWARD(fmi2SetupExperiment,
        (fmi2Component c, fmi2Boolean tolDef, fmi2Real tol, fmi2Real t0, fmi2Boolean stopDef,
         fmi2Real stop),
        (real, tolDef, tol, t0, stopDef, stop))
FORWARD(fmi2EnterInitializationMode, (fmi2Component c), (real))
FORWARD(fmi2ExitInitializationMode, (fmi2Component c), (real))
FORWARD(fmi2Terminate, (fmi2Component c), (real))
FORWARD(fmi2Reset, (fmi2Component c), (real))
FORWARD_FILL(fmi2GetReal, (fmi2Component c, VRs vr, size_t n, fmi2Real v[]), (real, vr, n, v),
             FILL(v, n, NAN))
FORWARD_FILL(fmi2GetInteger, (fmi2Component c, VRs vr, size_t n, fmi2Integer v[]),
             (real, vr, n, v), FILL(v, n, 0))
FORWARD_FILL(fmi2GetBoolean, (fmi2Component c, VRs vr, size_t n, fmi2Boolean v[]),
             (real, vr, n, v), FILL(v, n, fmi2False))
FORWARD_FILL(fmi2GetString, (fmi2Component c, VRs vr, size_t n, fmi2String v[]),
             (real, vr, n, v), FILL(v, n, ""))
FORWARD(fmi2SetReal, (fmi2Component c, VRs vr, size_t n, const fmi2Real v[]), (real, vr, n, v))
FORWARD(fmi2SetInteger, (fmi2Component c, VRs vr, size_t n, const fmi2Integer v[]),
        (real, vr, n, v))
FORWARD(fmi2SetBoolean, (fmi2Component c, VRs vr, size_t n, const fmi2Boolean v[]),
        (real, vr, n, v))
FORWARD(fmi2SetString, (fmi2Component c, VRs vr, size_t n, const fmi2String v[]),
        (real, vr, n, v))
FORWARD_FILL(fmi2GetFMUstate, (fmi2Component c, fmi2FMUstate *st), (real, st), SET(st, NULL))
FORWARD(fmi2SetFMUstate, (fmi2Component c, fmi2FMUstate st), (real, st))
FORWARD(fmi2FreeFMUstate, (fmi2Component c, fmi2FMUstate *st), (real, st))
FORWARD_FILL(fmi2SerializedFMUstateSize, (fmi2Component c, fmi2FMUstate st, size_t *n),
             (real, st, n), SET(n, 0))
FORWARD(fmi2SerializeFMUstate, (fmi2Component c, fmi2FMUstate st, fmi2Byte b[], size_t n),
        (real, st, b, n))
FORWARD_FILL(fmi2DeSerializeFMUstate,
             (fmi2Component c, const fmi2Byte b[], size_t n, fmi2FMUstate *st),
             (real, b, n, st), SET(st, NULL))
/* fmi2GetDirectionalDerivative: pythonfmu 0.7's binary answers it with an error, so the
 * shim asks the Python slave itself, through two calls pythonfmu does forward: fmi2SetReal
 * of the seeds on the inputs' value references with DERIVATIVE_FLAG set, then fmi2GetReal
 * of the outputs' value references with the flag set, each list closed by
 * DERIVATIVE_MARK (hydrofmu.runtime.fmi.derivative reads the protocol; no model has a
 * value reference with the flag set, and a host's reference with it is refused here).
 * dvUnknown has nUnknown entries (NaN when refused). */
#define DERIVATIVE_FLAG 0x80000000u
#define DERIVATIVE_MARK 0xFFFFFFFFu
static int flagged(Shim *s, const char *what, VRs refs, size_t n, fmi2ValueReference *out) {
    for (size_t i = 0; i < n; ++i) {
        if (refs[i] & DERIVATIVE_FLAG) {
            char text[256];
            snprintf(text, sizeof text, "fmi2GetDirectionalDerivative: value reference %u is "
                     "not an %s", (unsigned)refs[i], what);
            shim_message(s, fmi2Error, text);
            return -1;
        }
        out[i] = refs[i] | DERIVATIVE_FLAG;
    }
    out[n] = DERIVATIVE_MARK;
    return 0;
}

EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, VRs unknown, size_t n_unknown,
                                               VRs known, size_t n_known,
                                               const fmi2Real dknown[], fmi2Real dunknown[]) {
    static fmi2SetRealTYPE *set = NULL;
    static fmi2GetRealTYPE *get = NULL;
    Shim *s = acquire(c, "fmi2GetDirectionalDerivative");
    if (s && !set) set = (fmi2SetRealTYPE *)real_symbol("fmi2SetReal");
    if (s && !get) get = (fmi2GetRealTYPE *)real_symbol("fmi2GetReal");
    if (!s || !set || !get) {
        FILL(dunknown, n_unknown, NAN);
        return fmi2Error;
    }
    if ((n_unknown && (!unknown || !dunknown)) || (n_known && (!known || !dknown))) {
        shim_message(s, fmi2Error, "fmi2GetDirectionalDerivative: NULL array");
        FILL(dunknown, n_unknown, NAN);
        return fmi2Error;
    }
    if (n_known > ((size_t)-1) / (2 * sizeof(double)) - 1 ||
        n_unknown > ((size_t)-1) / (2 * sizeof(double)) - 1) {
        shim_message(s, fmi2Error, "fmi2GetDirectionalDerivative: sizes out of range");
        FILL(dunknown, n_unknown, NAN);
        return fmi2Error;
    }
    fmi2ValueReference *kv = malloc((n_known + 1) * sizeof *kv);
    fmi2ValueReference *uv = malloc((n_unknown + 1) * sizeof *uv);
    fmi2Real *seeds = malloc((n_known + 1) * sizeof *seeds);
    fmi2Real *values = malloc((n_unknown + 1) * sizeof *values);
    fmi2Status status = fmi2Error;
    if (!kv || !uv || !seeds || !values) {
        shim_message(s, fmi2Error, "fmi2GetDirectionalDerivative: out of memory");
    } else if (flagged(s, "input", known, n_known, kv) == 0 &&
               flagged(s, "output", unknown, n_unknown, uv) == 0) {
        if (n_known) memcpy(seeds, dknown, n_known * sizeof *seeds);
        seeds[n_known] = 0.0;
        s->marked = fmi2OK;
        status = set(s->real, kv, n_known + 1, seeds);
        if (status <= fmi2Warning && s->marked <= fmi2Warning) {
            fmi2Status got = get(s->real, uv, n_unknown + 1, values);
            status = got > status ? got : status;
        }
        if (s->marked > status) status = s->marked;
        s->marked = fmi2OK;
    }
    if (dunknown) {
        for (size_t i = 0; i < n_unknown; ++i)
            dunknown[i] = status <= fmi2Warning && values ? values[i] : NAN;
    }
    free(kv);
    free(uv);
    free(seeds);
    free(values);
    return status;
}
FORWARD(fmi2SetRealInputDerivatives,
        (fmi2Component c, VRs vr, size_t n, const fmi2Integer order[], const fmi2Real v[]),
        (real, vr, n, order, v))
FORWARD_FILL(fmi2GetRealOutputDerivatives,
             (fmi2Component c, VRs vr, size_t n, const fmi2Integer order[], fmi2Real v[]),
             (real, vr, n, order, v), FILL(v, n, NAN))
FORWARD(fmi2DoStep, (fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean noPrior),
        (real, t, h, noPrior))
FORWARD(fmi2CancelStep, (fmi2Component c), (real))
FORWARD_FILL(fmi2GetStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Status *v),
             (real, k, v), SET(v, fmi2Error))
FORWARD_FILL(fmi2GetRealStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Real *v),
             (real, k, v), SET(v, NAN))
FORWARD_FILL(fmi2GetIntegerStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Integer *v),
             (real, k, v), SET(v, 0))
FORWARD_FILL(fmi2GetBooleanStatus, (fmi2Component c, const fmi2StatusKind k, fmi2Boolean *v),
             (real, k, v), SET(v, fmi2False))
FORWARD_FILL(fmi2GetStringStatus, (fmi2Component c, const fmi2StatusKind k, fmi2String *v),
             (real, k, v), SET(v, ""))

EXPORT const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
EXPORT const char *fmi2GetVersion(void) { return fmi2Version; }

/* hydrofmu's exit guard (loader.py) registers this with __cxa_atexit (Linux). */
EXPORT void finalizePythonInterpreter(void) {
    static void (*f)(void) = NULL;
    if (!f) *(void **)(&f) = real_symbol("finalizePythonInterpreter");
    if (f) f();
}
