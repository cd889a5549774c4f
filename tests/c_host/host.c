/* A minimal FMI 2.0 co-simulation master in C, as a non-Python importer would be.
 *
 * usage: host BINARY RESOURCE_URI GUID VR_INPUT VR_OUTPUT INPUT_VALUE DT STEPS [VR_STR STR]
 *
 * dlopens the FMU's binary, instantiates it with a logger that formats the message with
 * vprintf (the message is a printf format, FMI 2.0 section 2.1.5), sets the Real input
 * VR_INPUT to INPUT_VALUE before every step, steps STEPS times by DT seconds, prints the
 * Real output VR_OUTPUT after each step (optionally, the String parameter VR_STR is set to
 * STR in initialization mode) ("Y <time> <value>", 17 significant digits),
 * terminates, frees the instance and returns 0 from main. Any failed call prints
 * "FAIL <call> <status>" and exits with status 2. Log lines are "LOG <status> <category>:
 * <formatted message>".
 *
 * usage: host BINARY RESOURCE_URI GUID VR_INPUT VR_OUTPUT INPUT_VALUE DT STEPS ignore VR_STR
 *
 * A careless host, as ECOS is: it ignores a NULL from fmi2Instantiate and every status,
 * and goes through the same calls, printing "STATUS <call> <status>"; before each read the
 * Real is set to 0.0 and the String (VR_STR) to "unwritten", then printed as
 * "Y <time> <value>" and "S <string>" ("S (null)" for NULL). After fmi2FreeInstance it reads
 * once more from the freed component ("Y freed ...", "S freed ...") and from an unknown one
 * (the address of a local variable: "Y unknown ...", "S unknown ..."). Exit status 0.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list args;
    (void)env;
    (void)instance;
    printf("LOG %d %s: ", (int)status, category ? category : "");
    va_start(args, message);
    vprintf(message, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
}

static void *symbol(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        printf("FAIL dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return f;
}

#define CHECK(call, status)                                   \
    do {                                                      \
        fmi2Status s_ = (status);                             \
        if (s_ != fmi2OK) {                                   \
            printf("FAIL %s %d\n", call, (int)s_);            \
            exit(2);                                          \
        }                                                     \
    } while (0)

/* The FMI functions both hosts call, looked up once. */
typedef struct {
    fmi2InstantiateTYPE *instantiate;
    fmi2SetupExperimentTYPE *setup;
    fmi2EnterInitializationModeTYPE *enter;
    fmi2ExitInitializationModeTYPE *leave;
    fmi2SetRealTYPE *set_real;
    fmi2GetRealTYPE *get_real;
    fmi2GetStringTYPE *get_string;
    fmi2DoStepTYPE *do_step;
    fmi2TerminateTYPE *terminate;
    fmi2FreeInstanceTYPE *free_instance;
} Fmi2Api;

static Fmi2Api load_api(void *lib) {
    Fmi2Api api;
    api.instantiate = (fmi2InstantiateTYPE *)symbol(lib, "fmi2Instantiate");
    api.setup = (fmi2SetupExperimentTYPE *)symbol(lib, "fmi2SetupExperiment");
    api.enter = (fmi2EnterInitializationModeTYPE *)symbol(lib, "fmi2EnterInitializationMode");
    api.leave = (fmi2ExitInitializationModeTYPE *)symbol(lib, "fmi2ExitInitializationMode");
    api.set_real = (fmi2SetRealTYPE *)symbol(lib, "fmi2SetReal");
    api.get_real = (fmi2GetRealTYPE *)symbol(lib, "fmi2GetReal");
    api.get_string = (fmi2GetStringTYPE *)symbol(lib, "fmi2GetString");
    api.do_step = (fmi2DoStepTYPE *)symbol(lib, "fmi2DoStep");
    api.terminate = (fmi2TerminateTYPE *)symbol(lib, "fmi2Terminate");
    api.free_instance = (fmi2FreeInstanceTYPE *)symbol(lib, "fmi2FreeInstance");
    return api;
}

static void read_back(fmi2GetRealTYPE *get_real, fmi2GetStringTYPE *get_string,
                      fmi2Component c, fmi2ValueReference vr_out, fmi2ValueReference vr_str,
                      const char *label) {
    fmi2Real y = 0.0;
    fmi2String text = "unwritten";
    printf("STATUS fmi2GetReal %d\n", (int)get_real(c, &vr_out, 1, &y));
    printf("Y %s %.17g\n", label, y);
    printf("STATUS fmi2GetString %d\n", (int)get_string(c, &vr_str, 1, &text));
    printf("S %s %s\n", label, text ? text : "(null)");
    fflush(stdout);
}

/* The careless host of the second usage line. */
static int careless(const Fmi2Api *api, fmi2Component c, fmi2ValueReference vr_in,
                    fmi2ValueReference vr_out, fmi2ValueReference vr_str, fmi2Real value,
                    fmi2Real dt, long steps) {
    printf("STATUS fmi2SetupExperiment %d\n", (int)api->setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    printf("STATUS fmi2EnterInitializationMode %d\n", (int)api->enter(c));
    printf("STATUS fmi2ExitInitializationMode %d\n", (int)api->leave(c));
    fmi2Real t = 0.0;
    char label[64];
    for (long k = 0; k < steps; ++k) {
        printf("STATUS fmi2SetReal %d\n", (int)api->set_real(c, &vr_in, 1, &value));
        printf("STATUS fmi2DoStep %d\n", (int)api->do_step(c, t, dt, fmi2True));
        t += dt;
        snprintf(label, sizeof label, "%.17g", t);
        read_back(api->get_real, api->get_string, c, vr_out, vr_str, label);
    }
    printf("STATUS fmi2Terminate %d\n", (int)api->terminate(c));
    api->free_instance(c);
    printf("FREED\n");
    read_back(api->get_real, api->get_string, c, vr_out, vr_str, "freed");
    int unknown = 0;
    read_back(api->get_real, api->get_string, (fmi2Component)&unknown, vr_out, vr_str, "unknown");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 9 && argc != 11) {
        fprintf(stderr, "usage: %s BINARY URI GUID VR_IN VR_OUT VALUE DT STEPS [VR_STR STR]\n",
                argv[0]);
        return 64;
    }
    const char *binary = argv[1], *uri = argv[2], *guid = argv[3];
    fmi2ValueReference vr_in = (fmi2ValueReference)strtoul(argv[4], NULL, 10);
    fmi2ValueReference vr_out = (fmi2ValueReference)strtoul(argv[5], NULL, 10);
    fmi2Real value = strtod(argv[6], NULL), dt = strtod(argv[7], NULL);
    long steps = strtol(argv[8], NULL, 10);

    void *lib = dlopen(binary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("FAIL dlopen %s\n", dlerror());
        return 2;
    }
    Fmi2Api api = load_api(lib);

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = api.instantiate("c_host", fmi2CoSimulation, guid, uri, &callbacks, fmi2False,
                                  fmi2True);
    if (argc == 11 && strcmp(argv[9], "ignore") == 0) {
        printf("INSTANCE %s\n", c ? "live" : "NULL");
        return careless(&api, c, vr_in, vr_out,
                        (fmi2ValueReference)strtoul(argv[10], NULL, 10), value, dt, steps);
    }
    if (!c) {
        printf("FAIL fmi2Instantiate NULL\n");
        return 3;
    }
    CHECK("fmi2SetupExperiment", api.setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    CHECK("fmi2EnterInitializationMode", api.enter(c));
    CHECK("fmi2SetReal", api.set_real(c, &vr_in, 1, &value));
    if (argc == 11) {
        fmi2SetStringTYPE *set_string = (fmi2SetStringTYPE *)symbol(lib, "fmi2SetString");
        fmi2ValueReference vr_str = (fmi2ValueReference)strtoul(argv[9], NULL, 10);
        fmi2String text = argv[10];
        CHECK("fmi2SetString", set_string(c, &vr_str, 1, &text));
    }
    CHECK("fmi2ExitInitializationMode", api.leave(c));
    fmi2Real t = 0.0, y = 0.0;
    for (long k = 0; k < steps; ++k) {
        CHECK("fmi2SetReal", api.set_real(c, &vr_in, 1, &value));
        CHECK("fmi2DoStep", api.do_step(c, t, dt, fmi2True));
        t += dt; /* as fmpy's loop in tests/fmu_driver.py accumulates it */
        CHECK("fmi2GetReal", api.get_real(c, &vr_out, 1, &y));
        printf("Y %.17g %.17g\n", t, y);
    }
    CHECK("fmi2Terminate", api.terminate(c));
    api.free_instance(c);
    printf("FREED\n");
    fflush(stdout);
    return 0;
}
