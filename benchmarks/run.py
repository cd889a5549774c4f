"""Cost of one communication step of the hydrofmu FMU against an empty pythonfmu FMU: one
command, one table.

Usage::

    python benchmarks/run.py [--steps 1000] [--repeat 3] [--sea-state 10800]
                             [--plot docs/benchmarks/step_cost.png] [--quick]

Builds, in a temporary folder, the FMUs of three configurations (the embedded default
sphere; the RM3 two-body model ``examples/rm3/rm3.toml``; the moored body
``examples/moored_body.toml``) and, for each, a trivial pythonfmu FMU with the same numbers
of Real, Integer and String parameters, inputs and outputs, written the usual pythonfmu way
(one attribute per variable) and whose ``do_step`` does nothing. All are driven with
fmpy's ``FMU2Slave`` in this process; one step is: set every input, ``doStep``, get every
output, at the configuration's output interval (0.1 s). The runs are interleaved, the best
of ``--repeat`` is kept. Rows:

(a) the empty FMU (default body's interface); (b) the default body with constant
coefficients; (c) convolution; (d) state space with rk4; (e) state space with the ``exact``
scheme; (f) RM3; (g) the moored body (MoorDyn lines,
``midpoint5``); ratios to the empty FMU of the same interface, and ``Simulator.step``
alone (no FMI) for the physics part.

Then the real-time factor of a ``--sea-state`` s irregular sea state at 0.1 s steps
through the FMU with (e), and a
plot of the physics cost against the number of wave components and of bodies.
``--quick`` is a smoke run (few steps, a 60 s sea state, two sizes per curve).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from hydrofmu.config.configuration import default_config, default_config_data, load_config, resolve
from hydrofmu.export.fmu import build_fmu
from hydrofmu.runtime.fmi.slave import guard_interpreter_exit
from hydrofmu.runtime.simulator.layout import parameter_table
from hydrofmu.runtime.simulator.simulator import Simulator
from hydrofmu.statespace.payload import add_realisation

_TRIVIAL = '''"""Empty pythonfmu FMU with the interface sizes of a hydrofmu FMU (benchmark)."""

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real, String


class {cls}(Fmi2Slave):
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


def build_trivial(folder: Path, counts: dict[str, int], cls: str = "TrivialFMU") -> Path:
    """Build the empty FMU with the given interface sizes; return its path. Several empty
    FMUs in one process need distinct class names ``cls`` (pythonfmu imports the slave's
    module by that name)."""
    from pythonfmu.builder import FmuBuilder

    script = folder / f"{cls}.py"
    script.write_text(_TRIVIAL.format(cls=cls, **counts))
    return FmuBuilder.build_FMU(script, dest=folder / f"{cls}.fmu", needsExecutionTool=False)


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


ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {"rm3": ROOT / "examples" / "rm3" / "rm3.toml",
           "moored": ROOT / "examples" / "moored_body.toml"}


def interface_counts(bodies: list, config: dict) -> dict[str, int]:
    """Numbers of parameters by type, inputs and outputs of a model's FMU."""
    table = parameter_table(bodies, config)
    return {
        "n_real_par": sum(p.kind == "Real" for p in table),
        "n_int_par": sum(p.kind == "Integer" for p in table),
        "n_str_par": sum(p.kind == "String" for p in table),
        "n_in": len(Simulator.input_names(bodies, config)),
        "n_out": len(Simulator.output_names(bodies, config)),
    }




def simulator_run(bodies: list, config: dict, parameters: dict, h: float
                  ) -> Callable[[int], float]:
    """A timed loop of ``Simulator.step`` alone (set inputs, step, outputs): seconds for
    ``steps`` communication steps of ``h`` s, continuing the same run on every call."""
    sim = Simulator.from_payload(bodies, config, parameters)
    sim.initialize(0.0)
    u = np.zeros(sim.u.size)
    clock = {"k": 0}

    def pure(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            k = clock["k"]
            u[0] = 1.0e3 * (k % 7)
            sim.set_input_vector(u)
            sim.step(k * h, h)
            sim.output_vector()
            clock["k"] = k + 1
        return time.perf_counter() - start

    return pure


def sphere_config(n_bodies: int = 1, *, state_space: bool = True, **wave: Any
                  ) -> tuple[list, dict]:
    """``n_bodies`` default spheres 30 m apart (no body-to-body coupling) in an irregular
    sea, with the realisation of the state-space radiation stored if ``state_space``."""
    data = default_config_data(wave={"type": "irregular", "height": 2.0, "period": 8.0,
                                     **wave})
    body = data["bodies"][0]
    data["bodies"] = [{**body, "name": f"b{k}",
                       "initial_pose": [30.0 * k, 0, 0, 0, 0, 0]} for k in range(n_bodies)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bodies, config = resolve(data, ROOT)
        if state_space:
            add_realisation(bodies, config)
    return bodies, config


def cost_curve(sizes: list[int], make: Callable[[int], tuple[list, dict]], parameters: dict,
               steps: int, repeat: int, h: float = 0.1) -> list[float]:
    """``Simulator.step`` µs per ``h`` step for each size (model ``make(size)``)."""
    out = []
    for size in sizes:
        bodies, config = make(size)
        run = simulator_run(bodies, config, parameters, h)
        out.append(best_per_step({"x": run}, steps, repeat)["x"])
    return out


def plot_costs(path: Path, components: list[int], by_components: dict[str, list[float]],
               n_bodies: list[int], by_bodies: dict[str, list[float]]) -> None:
    """The two cost curves side by side (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for label, ys in by_components.items():
        axes[0].plot(components, ys, "o-", label=label)
    axes[0].set_xlabel("wave components (irregular sea)")
    axes[0].set_xscale("log")
    for label, ys in by_bodies.items():
        axes[1].plot(n_bodies, ys, "o-", label=label)
    axes[1].set_xlabel("bodies (6 DOFs each)")
    axes[1].set_xticks(n_bodies)
    for ax in axes:
        ax.set_ylabel("Simulator.step, µs per 0.1 s step")
        ax.set_ylim(bottom=0.0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle("hydrofmu: cost of a communication step (physics, no FMI)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1000, help="steps per timed run")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is kept")
    parser.add_argument("--sea-state", type=float, default=10800.0,
                        help="duration of the irregular sea state for the real-time factor, s")
    parser.add_argument("--plot", default=str(ROOT / "docs" / "benchmarks" / "step_cost.png"),
                        help="PNG of the cost curves ('' for none)")
    parser.add_argument("--quick", action="store_true", help="smoke run: few steps, short sea")
    args = parser.parse_args(argv)
    if args.quick:
        args.steps, args.repeat, args.sea_state = 30, 1, 60.0
    components = [1, 10] if args.quick else [1, 10, 50, 100, 200, 400]
    n_bodies = [1, 2] if args.quick else [1, 2, 3, 4]

    default = default_config()
    add_realisation(*default)  # the realisation the FMU stores, for the Simulator rows
    models = {"default": default}
    for name, path in CONFIGS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models[name] = load_config(path)
    h = 0.1
    rows = [("(b) constant", "default", {"radiation.method": "constant"}),
            ("(c) convolution", "default", {"radiation.method": "convolution"}),
            ("(d) state space, rk4", "default", {"radiation.method": "state_space"}),
            ("(e) state space, exact", "default",
             {"radiation.method": "state_space", "time_scheme": "exact"}),
            ("(f) RM3 (2 bodies, 2 joints)", "rm3", {}),
             ("(g) moored body (MoorDyn lines)", "moored", {})]

    with tempfile.TemporaryDirectory(prefix="hydrofmu_bench_") as tmp:
        folder = Path(tmp)
        fmus, empties, drivers = {}, {}, []
        for name, (bodies, config) in models.items():
            sub = folder / name
            sub.mkdir()
            fmus[name] = build_fmu(bodies, config, sub / "HydroFMU.fmu")
            empty = Driver(build_trivial(sub, interface_counts(bodies, config),
                                         f"Trivial{name.capitalize()}"), f"e_{name}")
            empties[name] = empty
        runs: dict[str, Callable[[int], float]] = {
            f"empty {n}": (lambda k, d=d: d.run(k, h)) for n, d in empties.items()}
        for label, model, params in rows:
            d = Driver(fmus[model], label[:4], params)
            drivers.append(d)
            runs[f"fmu {label}"] = lambda k, d=d: d.run(k, h)
            runs[f"sim {label}"] = simulator_run(*models[model], params, h)
        best = best_per_step(runs, args.steps, args.repeat)
        for d in [*drivers, *empties.values()]:
            d.close()

        # The sea state through the FMU with (e).
        sea_params = {"radiation.method": "state_space", "wave.type": "irregular",
                      "wave.height": 3.0, "wave.period": 9.0, "time_scheme": "exact"}
        sea = Driver(fmus["default"], "sea", sea_params)
        n_sea = round(args.sea_state / h)
        elapsed = sea.run(n_sea, h)
        sea.close()

    t_empty = best["empty default"]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}; communication step "
          f"{h:g} s; best of {args.repeat} x {args.steps} steps, runs interleaved")
    c = interface_counts(*models["default"])
    print(f"default interface: {c['n_in']} inputs, {c['n_out']} outputs, parameters "
          f"{c['n_real_par']} Real + {c['n_int_par']} Integer + {c['n_str_par']} String; "
          f"rk4 at {models['default'][1]['simulation']['max_internal_step']:g} s\n")
    print("| row | FMU µs/step | ratio to (a) | Simulator.step µs/step |")
    print("|---|---|---|---|")
    print(f"| (a) empty pythonfmu FMU | {t_empty:.1f} | 1 | - |")
    for label, model, _ in rows:
        ref = best[f"empty {model}"]
        note = "" if model == "default" else f" (own empty FMU {ref:.1f} µs)"
        fmu, sim = best[f"fmu {label}"], best[f"sim {label}"]
        print(f"| {label} | {fmu:.1f} | {fmu / ref:.1f}{note} | {sim:.1f} |")
    phys = {k: best[f"sim {k}"] for k in ("(b) constant", "(c) convolution",
                                          "(d) state space, rk4")}
    print(f"\nSimulator.step, convolution / state space (rk4): "
          f"{phys['(c) convolution'] / phys['(d) state space, rk4']:.2f} x")
    # The rest of the model (hydrostatics, excitation, scheme) is the constant method's
    # cost: what is left is the radiation's own.
    own = {k: phys[k] - phys["(b) constant"] for k in ("(c) convolution",
                                                      "(d) state space, rk4")}
    print(f"radiation's own cost (Simulator minus constant): convolution "
          f"{own['(c) convolution']:.1f}, state space {own['(d) state space, rk4']:.1f} "
          f"µs/step (ratio {own['(c) convolution'] / max(own['(d) state space, rk4'], 1e-9):.0f}"
          " x; a difference of two noisy figures)")
    print(f"{args.sea_state:g} s irregular sea state at {h:g} s steps through the FMU, "
          f"(e) exact: {elapsed:.1f} s, {args.sea_state / elapsed:.0f}x real time")

    if args.plot:
        curve_params = {"radiation.method": "state_space"}
        curves_c = {"state space, rk4": cost_curve(
            components, lambda n: sphere_config(n_components=n), curve_params,
            max(args.steps // 5, 10), args.repeat)}
        curves_b = {"state space, rk4": cost_curve(
            n_bodies, sphere_config, curve_params, max(args.steps // 5, 10), args.repeat)}
        ex = {**curve_params, "time_scheme": "exact"}
        curves_c["state space, exact"] = cost_curve(
            components, lambda n: sphere_config(n_components=n), ex,
            max(args.steps // 5, 10), args.repeat)
        curves_b["state space, exact"] = cost_curve(
            n_bodies, sphere_config, ex, max(args.steps // 5, 10), args.repeat)
        plot_costs(Path(args.plot), components, curves_c, n_bodies, curves_b)
        for label, ys in curves_c.items():
            print(f"cost vs components {components}, {label}: "
                  + ", ".join(f"{y:.0f}" for y in ys) + " µs")
        for label, ys in curves_b.items():
            print(f"cost vs bodies {n_bodies}, {label}: "
                  + ", ".join(f"{y:.0f}" for y in ys) + " µs")
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
