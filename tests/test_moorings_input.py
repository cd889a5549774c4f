"""Reading MoorDyn v2 input files; what is not supported is refused by name."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hydrofmu.runtime.moorings.moordyn_input import MoorDynInputError, parse_moordyn, read_moordyn

DATA = Path(__file__).parent / "data" / "moorings"
TEXT = (DATA / "chain_1line.txt").read_text()


def test_the_file_is_read_as_written() -> None:
    m = read_moordyn(DATA / "chain_1line.txt")
    lt = m.line_types["chain"]
    assert (lt.diameter, lt.mass_per_length, lt.ea, lt.ba) == (0.1, 100.0, 5e8, -0.8)
    assert (lt.cd, lt.ca, lt.cdax, lt.caax) == (1.2, 1.0, 0.2, 0.0)
    assert [p.kind for p in m.points] == ["fixed", "coupled"]
    assert m.points[0].position == (-220.0, 0.0, -100.0)
    ln = m.lines[0]
    assert (ln.point_a, ln.point_b, ln.length, ln.n_segments) == (1, 2, 250.0, 20)
    o = m.options
    assert (o.dtM, o.tScheme, o.WtrDpth, o.kBot, o.cBot) == (0.001, "rk2", 100.0, 3e6, 3e5)
    assert (o.dtIC, o.TmaxIC, o.CdScaleIC, o.threshIC, o.rho) == (1.0, 60.0, 4.0, 1e-6, 1025.0)
    assert o.g == 9.80665 and math.isnan(m.options.dtOut) is False
    assert m.outputs == ["FairTen1", "AnchTen1"]


def test_bodies_and_free_points_are_read() -> None:
    text = TEXT.replace(
        "---------------------- POINTS",
        "---------------------- BODIES ----\nID Attachment X0 Y0 Z0 r0 p0 y0 Mass CG* I* "
        "Volume CdA* Ca*\n(#) (-) (m) (m) (m) (deg) (deg) (deg) (kg) (m) (kg-m^2) (m^3) "
        "(m^2) (-)\n1 Coupled 0 0 0 0 0 90 0 0 0 0 0 0\n---------------------- POINTS",
    ).replace("2     Coupled     0.0     0.0     -10.0   0      0       0      0",
              "2     Body1       5.0     0.0     -10.0   0      0       0      0\n"
              "3     Free        -100    0       -60     500    0.2     1.0    1.0")
    m = parse_moordyn(text)
    assert m.bodies[0].kind == "coupled"
    assert m.bodies[0].pose[5] == pytest.approx(math.pi / 2)  # degrees in the file
    assert m.points[1].kind == "body" and m.points[1].body == 1
    assert m.points[2].kind == "free" and m.points[2].mass == 500.0


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ("---------------------- OPTIONS", "---------------------- RODS ----\n"
         "---------------------- OPTIONS", "RODS"),
        ("rk2           tScheme", "1             WaveKin", "WaveKin"),
        ("1e-6          threshIC", "1e-6          threshIC\nseabed.txt    SeafloorFile",
         "SeafloorFile"),
        ("AnchTen1", "AnchTen1\nL1N3Ax", "L1N3Ax"),
        ("FairTen1", "FairTen3", "line 3"),
        ("5.0e8      -0.8        0  ", "5.0e8      -0.8        1e4", "EI"),
        ("5.0e8 ", "1e8|2e8 ", r"'\|'"),
        ("1     chain      1        2 ", "1     rope       1        2 ", "rope"),
        ("0.001         dtM", "0.001         dtMM", "dtMM"),
        ("2     Coupled", "2     Floating", "Floating"),
        ("250.0     20", "250.0     0 ", "NumSegs"),
    ],
)
def test_unsupported_or_wrong_content_is_refused_by_name(old: str, new: str, match: str) -> None:
    assert old in TEXT
    with pytest.raises(MoorDynInputError, match=match):
        parse_moordyn(TEXT.replace(old, new, 1))


def test_harmless_options_are_noted_not_silently_dropped() -> None:
    m = parse_moordyn(TEXT.replace("rk2           tScheme", "rk2  tScheme\n2  writeLog"))
    assert any("writeLog" in n for n in m.notes)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(MoorDynInputError, match=r"nope\.txt"):
        read_moordyn(tmp_path / "nope.txt")
