"""Run a native FMU's win64 DLL under Wine and compare it with its linux64 library (by hand).

A small C host (written here, compiled twice: ``cc`` for Linux, ``x86_64-w64-mingw32-gcc``
for Windows) loads the FMU's library, instantiates it (logging off: a refused call's reason
is printed all the same), steps it ``--steps`` times with a PTO input that changes at every
step and prints every output after every step as the bits of the double (hexadecimal, so
that no printf of either C library rounds anything). The Windows host runs under
``wine64`` with the win64 DLL, the Linux host with the linux64 library; the two tables are
compared output by output: how many values are bit-identical, and the largest difference
relative to the output's peak.

Needs: Debian's ``wine64`` and ``mingw-w64`` (``apt-get install wine64 mingw-w64``) and the
ziglang wheel (the win64 library). Not run by the tests.

Usage (from the repository root)::

    .venv/bin/python build_scripts/wine_check.py                    # OSWEC and sphere
    .venv/bin/python build_scripts/wine_check.py --fmu MODEL.fmu --input "float.F_pto[3]"

Exit status 0 when every output agrees to ``--rtol`` of its peak, 1 otherwise, 2 when a
tool is missing. The default 1e-13: the two C libraries' ``sin``, ``cos`` and ``exp``
(glibc; MinGW-w64's msvcrt) may differ in their last bit, and the runtime sums and solves
with them; measured by hand (2000 steps of 0.1 s, PTO input changing every step): the
sphere with state space 121,997 of 122,000 values bit-identical, largest difference
1.65e-16 of the output's peak; the OSWEC 246,879 of 262,000, largest 1.7e-15
(``base.F_constraint[2]``, a reaction force, the difference of large terms).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HOST_C = r"""
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#define LOAD(p) ((void *)LoadLibraryA(p))
#define SYM(h, n) ((void *)GetProcAddress((HMODULE)(h), (n)))
#else
#include <dlfcn.h>
#define LOAD(p) dlopen((p), RTLD_NOW | RTLD_LOCAL)
#define SYM(h, n) dlsym((h), (n))
#endif
#include "fmi2FunctionTypes.h"

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list ap;
    (void)env;
    va_start(ap, message);
    fprintf(stderr, "LOG %d %s %s: ", (int)status, name ? name : "", category ? category : "");
    vfprintf(stderr, message, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* host LIB GUID URI DT STEPS INPUT_VR OUTPUT_VR... */
int main(int argc, char **argv) {
    if (argc < 8) { fprintf(stderr, "usage\n"); return 2; }
    void *lib = LOAD(argv[1]);
    if (!lib) { fprintf(stderr, "cannot load %s\n", argv[1]); return 3; }
    fmi2InstantiateTYPE *inst = (fmi2InstantiateTYPE *)SYM(lib, "fmi2Instantiate");
    fmi2SetupExperimentTYPE *setup = (fmi2SetupExperimentTYPE *)SYM(lib, "fmi2SetupExperiment");
    fmi2EnterInitializationModeTYPE *enter =
        (fmi2EnterInitializationModeTYPE *)SYM(lib, "fmi2EnterInitializationMode");
    fmi2ExitInitializationModeTYPE *leave =
        (fmi2ExitInitializationModeTYPE *)SYM(lib, "fmi2ExitInitializationMode");
    fmi2SetRealTYPE *set = (fmi2SetRealTYPE *)SYM(lib, "fmi2SetReal");
    fmi2GetRealTYPE *get = (fmi2GetRealTYPE *)SYM(lib, "fmi2GetReal");
    fmi2DoStepTYPE *step = (fmi2DoStepTYPE *)SYM(lib, "fmi2DoStep");
    fmi2FreeInstanceTYPE *release = (fmi2FreeInstanceTYPE *)SYM(lib, "fmi2FreeInstance");
    if (!inst || !setup || !enter || !leave || !set || !get || !step || !release) {
        fprintf(stderr, "missing fmi2 functions\n");
        return 4;
    }
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    double dt = atof(argv[4]);
    int steps = atoi(argv[5]);
    fmi2ValueReference in = (fmi2ValueReference)strtoul(argv[6], NULL, 10);
    int n = argc - 7;
    fmi2ValueReference *vr = calloc((size_t)n, sizeof *vr);
    double *y = calloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++) vr[i] = (fmi2ValueReference)strtoul(argv[7 + i], NULL, 10);
    fmi2Component c = inst("host", fmi2CoSimulation, argv[2], argv[3], &cb, fmi2False,
                           fmi2False);
    if (!c) return 5;
    if (setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK || enter(c) != fmi2OK
        || leave(c) != fmi2OK)
        return 6;
    for (int k = 0; k < steps; k++) {
        double u = 1.0e4 * sin(0.37 * k) + 3.0e3 * cos(1.91 * k);
        if (set(c, &in, 1, &u) != fmi2OK) return 7;
        if (step(c, k * dt, dt, fmi2True) != fmi2OK) return 8;
        if (get(c, vr, (size_t)n, y) != fmi2OK) return 9;
        for (int i = 0; i < n; i++) {
            unsigned long long bits;
            memcpy(&bits, &y[i], sizeof bits);
            printf("%016llx%c", bits, i + 1 < n ? ' ' : '\n');
        }
    }
    release(c);
    return 0;
}
"""

#: The configurations checked by default and the PTO input each is driven with: the
#: sphere with state-space radiation (the internal regular wave, six DOFs) and the OSWEC
#: (two bodies, a revolute joint, its PTO torque).
DEFAULT_CASES = (
    ("DefaultSphereSS", None, {"radiation": {"method": "state_space"}}, "body.F_pto[3]"),
    ("Oswec", "examples/oswec/oswec.toml", {}, None),
)


def _tool(name: str) -> str:
    path = shutil.which(name) or (f"/usr/lib/wine/{name}" if Path(f"/usr/lib/wine/{name}")
                                  .is_file() else None)
    if path is None:
        sys.exit(f"error: {name} not found (Debian: apt-get install wine64 mingw-w64)")
    return path


def _compile(compiler: list[str], out: Path, *extra: str) -> Path:
    from hydrofmu.export.native.compile import RUNTIME_DIR

    src = out.parent / "wine_host.c"
    src.write_text(HOST_C, encoding="utf-8")
    subprocess.run([*compiler, "-O2", "-std=c99", f"-I{RUNTIME_DIR}", "-o", str(out), str(src),
                    *extra], check=True)
    return out


def _interface(fmu: Path, input_name: str | None) -> tuple[str, str, int, list[str], list[int]]:
    """(model identifier, GUID, input value reference, output names, their references)."""
    root = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))
    ident = root.find("CoSimulation").get("modelIdentifier")
    inputs = {v.get("name"): int(v.get("valueReference")) for v in root.iter("ScalarVariable")
              if v.get("causality") == "input"}
    name = input_name or next(n for n in inputs if "pto" in n.lower())
    outputs = [(v.get("name"), int(v.get("valueReference"))) for v in root.iter("ScalarVariable")
               if v.get("causality") == "output"]
    return ident, root.get("guid"), inputs[name], [n for n, _ in outputs], [r for _, r in outputs]


def _run(command: list[str], env: dict[str, str] | None = None) -> list[list[float]]:
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800,
                          check=False)
    if proc.returncode != 0:
        sys.exit(f"error: {command[0]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return [[struct.unpack("<d", bytes.fromhex(h)[::-1])[0] for h in line.split()]
            for line in proc.stdout.splitlines()]


def check(fmu: Path, input_name: str | None, steps: int, dt: float, work: Path,
          hosts: tuple[Path, Path], wine: str) -> dict[str, float]:
    """Both libraries of ``fmu`` stepped the same way; the comparison's figures."""
    ident, guid, in_vr, names, vrs = _interface(fmu, input_name)
    unpacked = work / fmu.stem
    with zipfile.ZipFile(fmu) as z:
        z.extractall(unpacked)
    resources = unpacked / "resources"
    args = [guid, "", f"{dt!r}", str(steps), str(in_vr), *map(str, vrs)]
    linux = _run([str(hosts[0]), str(unpacked / "binaries" / "linux64" / f"{ident}.so"),
                  args[0], resources.as_uri(), *args[2:]])
    dll = unpacked / "binaries" / "win64" / f"{ident}.dll"
    uri = "file:///Z:" + str(resources).replace(os.sep, "/")
    env = {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(work / "wineprefix")}
    windows = _run([wine, str(hosts[1]), "Z:" + str(dll).replace("/", "\\"), args[0], uri,
                    *args[2:]], env=env)
    assert len(linux) == len(windows) == steps, (len(linux), len(windows))
    same = total = 0
    worst, worst_name = 0.0, ""
    for j, name in enumerate(names):
        a = [row[j] for row in linux]
        b = [row[j] for row in windows]
        same += sum(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))
        total += steps
        peak = max(max(abs(x) for x in a), 1e-300)
        err = max(abs(x - y) for x, y in zip(a, b, strict=True)) / peak
        if err > worst:
            worst, worst_name = err, name
    print(f"{fmu.name}: {len(names)} outputs x {steps} steps of {dt:g} s: {same} of {total} "
          f"values bit-identical; largest difference {worst:.3g} of the peak"
          + (f" ({worst_name})" if worst_name else ""))
    return {"identical": same, "values": total, "worst": worst}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fmu", type=Path, help="a native FMU with linux64 and win64 libraries "
                   "(default: build the sphere with state space and the OSWEC)")
    p.add_argument("--input", default=None, help="the input driven (default: the first PTO)")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--dt", type=float, default=0.1, help="communication step, s")
    p.add_argument("--rtol", type=float, default=1e-13,
                   help="largest difference accepted, relative to each output's peak")
    a = p.parse_args(argv)
    wine = _tool("wine64")
    mingw = _tool("x86_64-w64-mingw32-gcc")
    cc = shutil.which("cc") or _tool("gcc")
    with tempfile.TemporaryDirectory(prefix="wine_check_") as tmp:
        work = Path(tmp)
        (work / "lin").mkdir()
        (work / "win").mkdir()
        hosts = (_compile([cc], work / "lin" / "host", "-ldl", "-lm"),
                 _compile([mingw], work / "win" / "host.exe", "-static"))
        cases = [(a.fmu, a.input)] if a.fmu else []
        if not a.fmu:
            import hydrofmu

            for name, config, overrides, input_name in DEFAULT_CASES:
                model = (hydrofmu.Model.from_toml(ROOT / config, **overrides) if config
                         else hydrofmu.Model.default(**overrides))
                fmu = model.build_fmu(work / f"{name}.fmu", native=True, model_name=name,
                                      platforms=("linux64", "win64"))
                cases.append((fmu, input_name))
        worst = max(check(fmu, name, a.steps, a.dt, work, hosts, wine)["worst"]
                    for fmu, name in cases)
    return 0 if worst <= a.rtol else 1


if __name__ == "__main__":
    raise SystemExit(main())
