"""Run the Python FMU's win64 shim (``export/uri_shim.c``) under Wine in front of a stub of
pythonfmu's binary, and check what it does (by hand; not run by the tests).

The shim is cross-compiled as a build does (:func:`hydrofmu.export.python_binary.compile_uri_shim`
with ``windows=True``: ziglang, ``x86_64-windows-gnu``). The stub, ``T_pythonfmu.dll``,
stands in for pythonfmu's win64 binary, which needs a Windows Python: it reads the resource
location as pythonfmu 0.7 does on Windows (``%20`` to a space, then the 8 characters of
``file:///`` stripped) and logs the path it gets, marks a refused step as the Python slave
does (category ``hydrofmu.refused``) and answers the flagged ``fmi2SetReal``/``fmi2GetReal``
of the derivative protocol with ``vr * sum(seeds)``. A small Windows host loads the shim,
instantiates it with eight resource locations, steps, asks a directional derivative, frees
twice and steps a freed instance. The script checks each line of its output.

Needs: Debian's ``wine64`` and ``mingw-w64`` (``apt-get install wine64 mingw-w64``) and the
ziglang wheel. Exit status 0 when every check holds, 1 otherwise, 2 when a tool is missing.

Usage (from the repository root)::

    .venv/bin/python build_scripts/wine_shim_check.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hydrofmu.export.python_binary import compile_uri_shim, fmi_headers

STUB_C = r"""/* A stand-in for pythonfmu's win64 binary: logs what it receives. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "fmi2Functions.h"
typedef struct { fmi2CallbackFunctions cb; char name[64]; double seeds[8]; int n; } Stub;
#define LOG(s, st, cat, ...) do { char b_[1024]; snprintf(b_, sizeof b_, __VA_ARGS__); \
    (s)->cb.logger((s)->cb.componentEnvironment, (s)->name, st, cat, b_); } while (0)
FMI2_Export fmi2Component fmi2Instantiate(fmi2String n, fmi2Type t, fmi2String g,
        fmi2String loc, const fmi2CallbackFunctions *f, fmi2Boolean v, fmi2Boolean l) {
    Stub *s = calloc(1, sizeof *s); s->cb = *f; snprintf(s->name, 64, "%s", n);
    /* pythonfmu 0.7 on MSVC: %20 -> space, then strip 8 chars at "file://" */
    char r[2048]; snprintf(r, sizeof r, "%s", loc);
    char *p;
    while ((p = strstr(r, "%20"))) { *p = ' '; memmove(p + 1, p + 3, strlen(p + 3) + 1); }
    p = strstr(r, "file://"); if (p) memmove(p, p + 8, strlen(p + 8) + 1);
    LOG(s, fmi2OK, "logAll", "STUB got location [%s] -> path [%s]", loc, r);
    return s;
}
FMI2_Export void fmi2FreeInstance(fmi2Component c) { free(c); }
FMI2_Export fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean x) {
    Stub *s = c;
    if (h < 0) LOG(s, fmi2Error, "hydrofmu.refused", "STUB refused step %g", h);
    return fmi2OK; }
FMI2_Export fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   const fmi2Real v[]) {
    Stub *s = c;
    s->n = 0;
    for (size_t i = 0; i < n && vr[i] != 0xFFFFFFFFu; i++) {
        s->seeds[s->n++] = v[i];
        LOG(s, fmi2OK, "logAll", "STUB seed vr=0x%08x value %g", vr[i], v[i]);
    }
    return fmi2OK;
}
FMI2_Export fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                   fmi2Real v[]) {
    Stub *s = c;
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += s->seeds[i];
    for (size_t i = 0; i < n; i++)
        v[i] = vr[i] == 0xFFFFFFFFu ? 0.0 : (double)(vr[i] & 0x7FFFFFFFu) * sum;
    return fmi2OK;
}
"""

HOST_C = r"""#include <windows.h>
#include <stdio.h>
#include <stdarg.h>
#include "fmi2FunctionTypes.h"
static void logger(fmi2ComponentEnvironment e, fmi2String n, fmi2Status st, fmi2String cat,
                   fmi2String msg, ...) {
    va_list a;
    va_start(a, msg);
    printf("  [%d %s] ", st, cat);
    vprintf(msg, a);
    printf("\n");
    va_end(a);
}
int main(int argc, char **argv) {
    HMODULE h = LoadLibraryA(argv[1]);
    if (!h) { printf("LoadLibrary failed %lu\n", GetLastError()); return 1; }
    fmi2InstantiateTYPE *inst = (fmi2InstantiateTYPE *)GetProcAddress(h, "fmi2Instantiate");
    fmi2FreeInstanceTYPE *fr = (fmi2FreeInstanceTYPE *)GetProcAddress(h, "fmi2FreeInstance");
    fmi2DoStepTYPE *step = (fmi2DoStepTYPE *)GetProcAddress(h, "fmi2DoStep");
    fmi2GetDirectionalDerivativeTYPE *dd =
        (fmi2GetDirectionalDerivativeTYPE *)GetProcAddress(h, "fmi2GetDirectionalDerivative");
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    const char *uris[] = {"file:///C:/dir%20with%20space/t%C3%BCst/resources",
        "file:/C:/fmu/resources", "file://localhost/C:/fmu/resources",
        "file:///C|/fmu/resources", "file:///C%3A/fmu/resources",
        "file://server/share/fmu/resources", "C:\\plain\\resources", "http://x/y"};
    for (int i = 0; i < 8; i++) {
        printf("instantiate %s\n", uris[i]);
        fmi2Component c = inst("t", fmi2CoSimulation, "g", uris[i], &cb, 0, 1);
        printf("  -> %s\n", c ? "component" : "NULL");
        if (c) fr(c);
    }
    fmi2Component c = inst("t", fmi2CoSimulation, "g", "file:///C:/fmu/resources", &cb, 0, 1);
    printf("doStep ok: %d\n", step(c, 0, 0.1, 0));
    printf("doStep refused: %d (expect 3)\n", step(c, 0, -1, 0));
    fmi2ValueReference unk[2] = {5, 7}, kn[2] = {1, 2};
    double seed[2] = {1.0, 0.5}, out[2] = {0, 0};
    int st = dd(c, unk, 2, kn, 2, seed, out);
    printf("derivative: %d -> %g %g (expect 0: 7.5 10.5)\n", st, out[0], out[1]);
    fmi2ValueReference bad[1] = {0x80000001u};
    st = dd(c, bad, 1, kn, 1, seed, out);
    printf("flagged vr: %d -> %g (expect 3 nan)\n", st, out[0]);
    fr(c);
    printf("free again:\n"); fr(c);
    printf("step on freed: %d (expect 3)\n", step(c, 0, 0.1, 0));
    return 0;
}
"""

#: Each line the host must print (in order), with why.
EXPECTED = [
    "path [C:/dir with space/t\u00fcst/resources]",  # every %XX decoded, UTF-8 kept
    "path [C:/fmu/resources]",  # file:/C:/...
    "path [C:/fmu/resources]",  # file://localhost/C:/...
    "path [C:/fmu/resources]",  # file:///C|/...
    "path [C:/fmu/resources]",  # file:///C%3A/...
    "path [//server/share/fmu/resources]",  # a UNC share
    "path [C:\\plain\\resources]",  # a plain path, taken as it is
    "doStep ok: 0",
    "doStep refused: 3",  # the slave's refusal mark: fmi2Error
    "derivative: 0 -> 7.5 10.5",  # through the flagged set/get
    "flagged vr: 3 -> nan",  # a host's flagged reference refused, NaN filled
    "already freed: ignored",  # a second fmi2FreeInstance
    "step on freed: 3",
]


def _tool(name: str) -> str | None:
    return shutil.which(name) or (f"/usr/lib/wine/{name}"
                                  if Path(f"/usr/lib/wine/{name}").is_file() else None)


def main() -> int:
    wine, gcc = _tool("wine64"), shutil.which("x86_64-w64-mingw32-gcc")
    if not wine or not gcc:
        print("error: wine64 or x86_64-w64-mingw32-gcc not found "
              "(Debian: apt-get install wine64 mingw-w64)")
        return 2
    with tempfile.TemporaryDirectory(prefix="hydrofmu_wine_shim_") as tmp:
        work = Path(tmp)
        (work / "stub.c").write_text(STUB_C)
        (work / "host.c").write_text(HOST_C)
        headers = f"-I{fmi_headers()}"
        compile_uri_shim(work / "T.dll", "T_pythonfmu.dll", windows=True)
        subprocess.run([gcc, "-shared", "-O2", headers, "-o", str(work / "T_pythonfmu.dll"),
                        str(work / "stub.c")], check=True)
        subprocess.run([gcc, "-O2", headers, "-o", str(work / "host.exe"),
                        str(work / "host.c")], check=True)
        env = {**os.environ, "WINEPREFIX": str(work / "prefix"), "WINEDEBUG": "-all"}
        out = subprocess.run([wine, "host.exe", "T.dll"], cwd=work, env=env,
                             capture_output=True, text=True, timeout=600, check=False).stdout
    print(out)
    lines, at, failed = out.splitlines(), 0, []
    for want in EXPECTED:
        found = next((i for i in range(at, len(lines)) if want in lines[i]), None)
        if found is None:
            failed.append(want)
        else:
            at = found + 1
    for want in failed:
        print(f"MISSING: {want}")
    print(f"{len(EXPECTED) - len(failed)} of {len(EXPECTED)} checks hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
