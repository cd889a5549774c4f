/* hydrofmu native runtime: what every file of the runtime shares.
 *
 * HFN_HIDDEN marks a function that one file of the runtime calls in another: it stays out
 * of the shared library's exported symbols (only the fmi2* functions are exported, as
 * fmi2Functions.h declares them), so two FMUs loaded in one process never bind to each
 * other's helpers. A test build may define HFN_HIDDEN as empty to reach the helpers.
 */
#ifndef HFN_INTERNAL_H
#define HFN_INTERNAL_H

#ifndef HFN_HIDDEN
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#define HFN_HIDDEN __attribute__((visibility("hidden")))
#else
#define HFN_HIDDEN
#endif
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#endif
