"""``run --plot`` chooses its panels from the model: four models, their panels read back
from the figure's axes (titles, y labels, legend entries), the legend outside the data,
forces in the unit that fits them.

Each model is built and simulated for a few seconds (enough for every DOF the model moves
to move by far more than the 1e-6 m or rad threshold of :data:`hydrofmu.cosim.plots.MOVING`).
The PNGs are kept under ``tests/.plots/`` (ignored by git) to be looked at.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hydrofmu.cli import main
from hydrofmu.config.configuration import resolve
from hydrofmu.cosim.fmpy_run import output_units, simulate
from hydrofmu.cosim.plots import Panel, choose_panels, make_figure, scale_panel
from hydrofmu.export.fmu import build_fmu
from paths import ROOT, WAMIT_RM3

pytestmark = pytest.mark.fmu

EXAMPLES = ROOT / "examples"
KEEP = Path(__file__).parent / ".plots"

PITCH_ONLY = f"""
[simulation]
max_internal_step = 0.05
[wave]
type = "regular"
height = 2.0
period = 8.0
ramp_time = 4.0
[[bodies]]
name = "float"
hydro = "{WAMIT_RM3}"
hydro_body = "float"
mass = "equilibrium"
inertia = [20907301.0, 21306090.66, 37085481.11]
dofs = ["pitch"]
"""

#: model -> (configuration file or text, stop time s, output interval s)
MODELS = {
    "pitch_only": (PITCH_ONLY, 12.0, 0.1),
    "rm3": (EXAMPLES / "rm3" / "rm3.toml", 12.0, 0.1),
    "moored_body": (EXAMPLES / "moored_body.toml", 8.0, 0.1),
    "decay": (EXAMPLES / "cylinder_capytaine_decay.toml", 3.0, 0.02),
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    name = request.param
    source, stop, h = MODELS[name]
    if isinstance(source, Path):
        data, base = tomllib.loads(source.read_text(encoding="utf-8")), source.parent
    else:
        data, base = tomllib.loads(source), ROOT
    data["simulation"].update(stop_time=stop, output_interval=h)
    bodies, cfg = resolve(data, base)
    fmu = build_fmu(bodies, cfg, tmp_path_factory.mktemp(name) / "Case.fmu")
    result = simulate(fmu, stop_time=stop, output_interval=h)
    units = output_units(fmu)
    fig = make_figure(result, title=f"{name}: test", units=units)
    KEEP.mkdir(exist_ok=True)
    fig.savefig(KEEP / f"{name}.png", dpi=80)
    return {"name": name, "fig": fig, "result": result, "units": units}


def _panels(fig: Any) -> dict[str, dict[str, Any]]:
    """Panel title -> its y label and legend entries."""
    out = {}
    for ax in fig.axes:
        legend = ax.get_legend()
        out[ax.get_title(loc="left")] = {
            "ylabel": ax.get_ylabel(),
            "labels": [t.get_text() for t in legend.get_texts()] if legend else [],
            "ax": ax,
        }
    return out


def test_panels_fit_the_model(model: dict) -> None:
    panels = _panels(model["fig"])
    name = model["name"]
    titles = set(panels)
    if name == "pitch_only":
        # the pitch the body is free in, no flat heave panel
        assert titles == {"wave elevation", "float rotation", "float pitch moment"}, titles
        assert panels["float rotation"]["labels"] == ["pitch"]
        assert panels["float rotation"]["ylabel"] == "[deg]"
        assert "F_excitation" in panels["float pitch moment"]["labels"]
    elif name == "rm3":
        # both bodies, and the prismatic joint's relative motion
        for body in ("float", "spar"):
            assert f"{body} translation" in titles and f"{body} rotation" in titles, titles
        joint = [t for t in titles if t.startswith("joint motion")]
        assert len(joint) == 1 and panels[joint[0]]["labels"] == ["pto"], titles
        assert panels[joint[0]]["ylabel"] == "[m]"
        assert "F_constraint" in panels["float heave force"]["labels"]
        for body in ("float", "spar"):  # a force panel per moving DOF
            assert {f"{body} surge force", f"{body} heave force", f"{body} pitch moment"
                    } <= titles, titles
    elif name == "moored_body":
        assert panels["body translation"]["labels"] == ["surge", "heave"]
        assert panels["body rotation"]["labels"] == ["pitch"]
        for title in ("body surge force", "body heave force", "body pitch moment"):
            assert "F_mooring" in panels[title]["labels"], title
        tension = panels["mooring line tension"]
        assert sorted(tension["labels"]) == sorted(
            f"line{k} {end}" for k in (1, 2, 3) for end in ("fairlead", "anchor"))
        assert tension["ylabel"] == "[kN]"  # ~35 kN fairlead tension
    else:
        # no wave: no elevation panel; the heave forces of a 1 cm release are tens of N
        assert titles == {"cylinder translation", "cylinder heave force"}, titles
        assert panels["cylinder translation"]["labels"] == ["heave"]
        force = panels["cylinder heave force"]
        assert force["ylabel"] == "[N]"
        assert 1.0 <= np.max(np.abs(force["ax"].get_ylim())) < 1000.0


def test_title_and_legends_outside_the_data(model: dict) -> None:
    fig = model["fig"]
    assert fig._suptitle.get_text() == f"{model['name']}: test"
    fig.canvas.draw()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        # every legend starts right of its panel's data area (display coordinates)
        assert legend.get_window_extent().x0 >= ax.get_window_extent().x1, ax.get_title()


def test_force_units_scale_with_the_values() -> None:
    t = np.linspace(0.0, 1.0, 5)
    for peak, unit, scale in ((37.0, "N", 1.0), (4.2e4, "kN", 1e3), (2.5e6, "MN", 1e6),
                              (999.0, "N", 1.0), (1000.0, "kN", 1e3)):
        result = np.zeros(5, dtype=[("time", float), ("b.F_radiation[3]", float)])
        result["time"], result["b.F_radiation[3]"] = t, peak * np.sin(3 * t) / np.sin(3 * t).max()
        panel = scale_panel(Panel("f", "N", [("b.F_radiation[3]", "r", "-")]), result)
        assert (panel.unit, panel.scale) == (unit, scale), peak


def test_a_body_that_does_not_move_is_said_so() -> None:
    result = np.zeros(4, dtype=[("time", float), ("b.pose[3]", float), ("b.pose[1]", float)])
    result["time"] = np.arange(4.0)
    panels = choose_panels(result)
    assert [p.quantity for p in panels] == ["b: no DOF moves; heave"]


def test_run_plot_progress_and_csv_units(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    """The command as a user runs it: progress bars over the build's stages and over the
    simulation on stderr, the CSV with units, the PNG."""
    out, png = tmp_path / "decay.csv", tmp_path / "decay.png"
    code = main(["run", str(EXAMPLES / "cylinder_capytaine_decay.toml"), "--python", "-o", str(out),
                 "--plot", str(png), "--stop-time", "1", "--output-interval", "0.05"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "simulate:" in captured.err and "20/20" in captured.err, captured.err[-500:]
    assert "build:" in captured.err and "5/5" in captured.err, captured.err[-500:]
    header = out.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:4] == ["time [s]", "cylinder.pose[1] [m]", "cylinder.pose[2] [m]",
                          "cylinder.pose[3] [m]"]
    assert "cylinder.F_radiation[5] [N.m]" in header
    assert png.stat().st_size > 10_000


def test_summary_names_every_body() -> None:
    """``run`` prints the amplitudes of every body of a multi-body model, not the first."""
    from hydrofmu.cosim.fmpy_run import summary

    names = ["time", "wave.elevation"] + [f"{b}.pose[{i}]" for b in ("float", "spar")
                                          for i in range(1, 7)]
    result = np.zeros(50, dtype=[(n, float) for n in names])
    result["time"] = np.arange(50.0)
    result["float.pose[3]"] = np.sin(result["time"])
    result["spar.pose[5]"] = 0.1 * np.sin(result["time"])
    lines = summary(result, body=["float", "spar"]).splitlines()
    assert [line.split(" amplitude")[0].strip() for line in lines[1:3]] == [
        "float heave", "spar pitch"]


def test_case_title_names_the_case_the_bodies_and_the_sea() -> None:
    from hydrofmu.cosim.plots import case_title

    cfg = {"bodies": [{"name": "float"}, {"name": "spar"}],
           "wave": {"type": "regular", "height": 2.5, "period": 8.0}}
    assert case_title("rm3", cfg) == "rm3: float, spar; regular waves, H = 2.5 m, T = 8 s"
    cfg = {"bodies": [{"name": "cylinder"}], "wave": {"type": "none"}}
    assert case_title("decay", cfg) == "decay: cylinder; no waves"
