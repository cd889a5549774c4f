"""Record (or compare) the outputs of every example configuration, before and after a reshaping.

For each shipped configuration: ``Model.simulate`` in process, its Python FMU in fmpy and,
where the model allows one, its native FMU in fmpy, over ``--steps`` communication steps with
a PTO input that changes every step (a seeded sequence). The arrays go into one ``.npz``;
``--compare`` reads a recording and reports, per run, whether every output is byte-identical.

Usage (from the repository root)::

    .venv/bin/python build_scripts/record_outputs.py --out before.npz
    .venv/bin/python build_scripts/record_outputs.py --compare before.npz

A refactoring that must not change the physics keeps every run byte-identical.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np

import hydrofmu
from hydrofmu.api.dimensions import flat_names

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = [
    "examples/default_sphere_regular.toml",
    "examples/sphere_bemio_regular.toml",
    "examples/cylinder_capytaine_decay.toml",
    "examples/moored_body.toml",
    "examples/rm3/rm3.toml",
    "examples/oswec/oswec.toml",
    "examples/oswec/oswec_decay.toml",
]
# Variants that the native FMU accepts today (state-space radiation), so both runtimes are
# recorded for more than one model.
NATIVE_VARIANTS = {
    "examples/sphere_bemio_regular.toml": {"radiation": {"method": "state_space"}},
    "examples/rm3/rm3.toml": {"radiation": {"method": "state_space", "ss_max_order": 20}},
}


def _pto_signal(model: hydrofmu.Model, times: np.ndarray) -> dict[str, tuple]:
    """A seeded PTO input on the first input of each kind, new at every step."""
    rng = np.random.default_rng(20261127)
    signals = {}
    for name in model.input_names:
        if "F_pto[3]" in name or name.endswith("T_pto") or name.endswith(".F_pto"):
            signals[name] = (times, 1e4 * rng.standard_normal(times.size))
    return signals


def _models(config: str) -> list[tuple[str, hydrofmu.Model, bool]]:
    out = [(config, hydrofmu.Model.from_toml(ROOT / config), False)]
    if config in NATIVE_VARIANTS:
        data = tomllib.loads((ROOT / config).read_text())
        for section, values in NATIVE_VARIANTS[config].items():
            data.setdefault(section, {}).update(values)
        for body in data.get("bodies", []):
            body.pop("radiation", None)  # the section's method, not the body's
        out.append((config + "+ss", hydrofmu.Model.from_dict(data, (ROOT / config).parent),
                    True))
    return out


def record(steps: int) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for config in CONFIGS:
            for key, model, native_wanted in _models(config):
                h = float(model.config.get("simulation", {}).get("output_interval", 0.1))
                stop = steps * h
                times = np.arange(steps + 1) * h
                inputs = _pto_signal(model, times)
                ds = model.simulate(stop_time=stop, output_interval=h, inputs=inputs)
                arrays[f"{key}|simulate"] = np.stack([ds[v].values for v in flat_names(ds)])
                fmu = model.build_fmu(Path(tmp) / "py.fmu", model_name="Rec", overwrite=True,
                                      native=False)
                ds = hydrofmu.simulate_fmu(fmu, stop_time=stop, output_interval=h,
                                           input=inputs)
                arrays[f"{key}|python_fmu"] = np.stack([ds[v].values for v in flat_names(ds)])
                if native_wanted or key == "examples/oswec/oswec.toml":
                    fmu = model.build_fmu(Path(tmp) / "nat.fmu", model_name="RecN",
                                          overwrite=True, native=True, platforms=("linux64",))
                    ds = hydrofmu.simulate_fmu(fmu, stop_time=stop, output_interval=h,
                                               input=inputs)
                    arrays[f"{key}|native_fmu"] = np.stack([ds[v].values
                                                            for v in flat_names(ds)])
                print(f"recorded {key}", flush=True)
    return arrays


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path)
    p.add_argument("--compare", type=Path)
    p.add_argument("--steps", type=int, default=200)
    a = p.parse_args(argv)
    arrays = record(a.steps)
    if a.out:
        np.savez(a.out, **arrays)
    if a.compare:
        ref = np.load(a.compare)
        bad = 0
        for k in sorted(set(ref.files) | set(arrays)):
            if k not in ref.files or k not in arrays:
                print(f"MISSING {k}")
                bad += 1
                continue
            same = ref[k].shape == arrays[k].shape and ref[k].tobytes() == arrays[k].tobytes()
            diff = (np.nanmax(np.abs(ref[k] - arrays[k])) if ref[k].shape == arrays[k].shape
                    else float("nan"))
            print(f"{'same' if same else 'DIFFERENT'} {k} {ref[k].shape} max diff {diff:.3g}")
            bad += not same
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
