"""Cost of one communication step of the hydrofmu FMU against an empty pythonfmu FMU.

Usage::

    python benchmarks/run.py [--steps 2000] [--step-size 0.1] [--repeat 3] [--config F.toml]

``--config`` benchmarks that configuration instead of the default one (e.g.
``examples/rm3/rm3.toml``, two bodies and two joints).

Builds, in a temporary folder, the default FMU (the embedded sphere, regular waves,
convolution radiation, rk4) and a trivial pythonfmu FMU with the same numbers of Real,
Integer and String parameters, inputs and outputs, written the usual pythonfmu way (one
attribute per variable) and whose ``do_step`` does nothing. Both are driven with fmpy's
``FMU2Slave`` in this process; one step is: set every input, ``doStep``, get every output.
The hydrofmu FMU runs with each radiation method (``radiation.method`` = convolution,
constant, state_space; one FMU, the realisation stored at export). The best of
``--repeat`` runs of ``--steps`` steps is reported, in microseconds per step, with the
ratio to the empty FMU. For context the script also times ``Simulator.step`` alone (no FMI), so
that the FMI share of the hydrofmu step can be read off.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from hydrofmu.config import default_config, load_config
from hydrofmu.export import build_fmu
from hydrofmu.fmi_slave import guard_interpreter_exit
from hydrofmu.parameters import parameter_table
from hydrofmu.statespace_payload import add_realisation
from hydrofmu.system import Simulator

_TRIVIAL = '''"""Empty pythonfmu FMU with the interface sizes of a hydrofmu FMU (benchmark)."""

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real, String


class TrivialFMU(Fmi2Slave):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        fixed = dict(
            causality=Fmi2Causality.parameter,
            variability=Fmi2Variability.fixed,
            initial=Fmi2Initial.exact,
        )
        for i in range({n_real_par}):
            setattr(self, f"rp{{i}}", 0.0)
            self.register_variable(Real(f"rp{{i}}", **fixed))
        for i in range({n_int_par}):
            setattr(self, f"ip{{i}}", 0)
            self.register_variable(Integer(f"ip{{i}}", **fixed))
        for i in range({n_str_par}):
            setattr(self, f"sp{{i}}", "a")
            self.register_variable(String(f"sp{{i}}", **fixed))
        for i in range({n_in}):
            setattr(self, f"u{{i}}", 0.0)
            self.register_variable(Real(f"u{{i}}", causality=Fmi2Causality.input))
        for i in range({n_out}):
            setattr(self, f"y{{i}}", 0.0)
            self.register_variable(Real(f"y{{i}}", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        return True
'''


def build_trivial(folder: Path, counts: dict[str, int]) -> Path:
    """Build the empty FMU with the given interface sizes; return its path."""
    from pythonfmu.builder import FmuBuilder

    script = folder / "TrivialFMU.py"
    script.write_text(_TRIVIAL.format(**counts))
    return FmuBuilder.build_FMU(script, dest=folder / "TrivialFMU.fmu", needsExecutionTool=False)


class Driver:
    """An initialized fmpy FMU2Slave with its input and output value references."""

    def __init__(self, fmu: Path, name: str, parameters: dict[str, str | float] | None = None
                 ) -> None:
        md = read_model_description(str(fmu))
        variables = {v.name: v for v in md.modelVariables}
        self.unzipdir = extract(str(fmu))
        self.fmu = FMU2Slave(
            guid=md.guid,
            unzipDirectory=self.unzipdir,
            modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName=name,
        )
        self.inputs = [v.valueReference for v in md.modelVariables if v.causality == "input"]
        self.outputs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        self.fmu.instantiate()
        # pythonfmu 0.7.0's binary may abort this process at exit; hydrofmu FMUs guard
        # themselves, the empty FMU is guarded here.
        guard_interpreter_exit(Path(self.unzipdir) / "resources", md.coSimulation.modelIdentifier)
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        for key, value in (parameters or {}).items():
            vr = [variables[key].valueReference]
            if isinstance(value, str):
                self.fmu.setString(vr, [value])
            else:
                self.fmu.setReal(vr, [float(value)])
        self.fmu.exitInitializationMode()
        self.time = 0.0

    def run(self, steps: int, h: float) -> float:
        """Seconds for ``steps`` of: set inputs, doStep, get outputs."""
        fmu, vin, vout = self.fmu, self.inputs, self.outputs
        values = [0.0] * len(vin)
        t = self.time
        start = time.perf_counter()
        for k in range(steps):
            values[0] = 1.0e3 * (k % 7)
            fmu.setReal(vin, values)
            fmu.doStep(t, h)
            fmu.getReal(vout)
            t += h
        elapsed = time.perf_counter() - start
        self.time = t
        return elapsed

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()
        shutil.rmtree(self.unzipdir, ignore_errors=True)


def best_per_step(
    runs: dict[str, Callable[[int], float]], steps: int, repeat: int
) -> dict[str, float]:
    """Best time per step of each run, in microseconds.

    The runs are interleaved (one timed run of each in turn, ``repeat`` times, after a
    warm-up) so that a slower period of a shared machine does not bias one of them.
    """
    for run in runs.values():
        run(max(steps // 20, 10))
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            best[name] = min(best[name], run(steps) / steps * 1e6)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2000, help="steps per timed run")
    parser.add_argument(
        "--step-size",
        type=float,
        default=None,
        help="communication step, s (default: the configuration's output interval)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is kept")
    parser.add_argument("--config", default=None,
                        help="TOML configuration to benchmark (default: the embedded sphere)")
    args = parser.parse_args(argv)

    bodies, config = load_config(args.config) if args.config else default_config()
    h = args.step_size or float(config["simulation"]["output_interval"])
    table = parameter_table(bodies, config)
    counts = {
        "n_real_par": sum(p.kind == "Real" for p in table),
        "n_int_par": sum(p.kind == "Integer" for p in table),
        "n_str_par": sum(p.kind == "String" for p in table),
        "n_in": len(Simulator.input_names(bodies, config)),
        "n_out": len(Simulator.output_names(bodies, config)),
    }
    u = np.zeros(counts["n_in"])
    methods = ("convolution", "constant", "state_space")
    # The realisation the FMU stores (build_fmu makes it too), so that the Simulator rows
    # run the same model.
    add_realisation(bodies, config)

    def pure_run(method: str) -> Callable[[int], float]:
        sim = Simulator.from_payload(bodies, config, {"radiation.method": method})
        sim.initialize(0.0)
        clock = {"t": 0.0}

        def pure(steps: int) -> float:
            start = time.perf_counter()
            for k in range(steps):
                u[0] = 1.0e3 * (k % 7)
                sim.set_input_vector(u)
                sim.step(clock["t"], h)
                sim.output_vector()
                clock["t"] += h
            return time.perf_counter() - start

        return pure

    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_") as tmp:
        folder = Path(tmp)
        fmu = build_fmu(bodies, config, folder / "HydroFMU.fmu")
        drivers = {m: Driver(fmu, m, {"radiation.method": m}) for m in methods}
        trivial = Driver(build_trivial(folder, counts), "trivial")
        runs: dict[str, Callable[[int], float]] = {"trivial": lambda n: trivial.run(n, h)}
        for m in methods:
            runs[f"fmu {m}"] = lambda n, d=drivers[m]: d.run(n, h)
            runs[f"sim {m}"] = pure_run(m)
        best = best_per_step(runs, args.steps, args.repeat)
        for d in drivers.values():
            d.close()
        trivial.close()
    t_trivial = best["trivial"]

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    print(
        f"interface: {counts['n_in']} inputs, {counts['n_out']} outputs, parameters "
        f"{counts['n_real_par']} Real + {counts['n_int_par']} Integer + {counts['n_str_par']} "
        f"String; communication step {h:g} s, internal step "
        f"{config['simulation']['max_internal_step']:g} s ({config['simulation']['time_scheme']})"
    )
    print(
        f"empty pythonfmu FMU          : {t_trivial:9.1f} us/step (set inputs + doStep + get "
        "outputs)"
    )
    for m in methods:
        t_fmu, t_sim = best[f"fmu {m}"], best[f"sim {m}"]
        print(f"hydrofmu FMU, {m:<12}   : {t_fmu:9.1f} us/step, {t_fmu / t_trivial:6.1f} x empty; "
              f"Simulator alone {t_sim:9.1f} us/step")
    physics = {m: best[f"sim {m}"] for m in methods}
    print(f"Simulator.step, convolution / state_space: "
          f"{physics['convolution'] / physics['state_space']:.2f} x")
    # The rest of the model (hydrostatics, excitation, scheme) is the constant method's
    # cost: what is left is the radiation's own.
    own = {m: physics[m] - physics["constant"] for m in ("convolution", "state_space")}
    print(f"radiation's own cost (Simulator minus constant): convolution "
          f"{own['convolution']:.1f}, state_space {own['state_space']:.1f} us/step, "
          f"ratio {own['convolution'] / own['state_space']:.2f} x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
