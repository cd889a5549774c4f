"""``hydrofmu doctor FMU``: the report an importer's user reads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hydrofmu.cli.commands import main
from hydrofmu.config.configuration import default_config
from hydrofmu.cosim.doctor import diagnose
from hydrofmu.export import bundle
from hydrofmu.export.fmu import build_fmu
from hydrofmu.export.python_binary import shared_libpython
from hydrofmu.runtime.errors import InputError

pytestmark = pytest.mark.fmu


@pytest.fixture(scope="module")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("doctor")
    bodies, config = default_config()
    with pytest.warns(UserWarning, match="URI shim handles it"):
        accent = build_fmu(bodies, config, folder / "tëst ü" / "HydroFMU.fmu")
    with pytest.warns(UserWarning, match="decodes only"):  # flagged at build time too
        bare = build_fmu(
            bodies, config, folder / "tëst ü" / "Bare.fmu", model_name="Bare", uri_shim=False
        )
    return {
        "bare": bare,
        "plain": build_fmu(bodies, config, folder / "plain" / "HydroFMU.fmu"),
        "linked": build_fmu(
            bodies, config, folder / "linked" / "HydroFMU.fmu", link_libpython=True
        ),
        "accent": accent,
    }


def test_plain_fmu_report_gives_the_preload_line(fmus: dict[str, Path]) -> None:
    d = diagnose(fmus["plain"], python=sys.executable)
    assert d.ok, d.findings
    assert d.linux_binary_links_libpython is False
    assert d.python["version"] == sys.version.split()[0]
    assert d.commands[0].startswith(f"LD_PRELOAD={shared_libpython()} ")
    assert str(Path(sys.executable).parent) in d.commands[0]
    texts = " | ".join(f.text for f in d.findings)
    assert "binaries: linux64" in texts and "numpy " in texts
    assert ("imports scipy" in texts) == ("scipy" in bundle.RUNTIME_DEPENDENCIES)


def test_linked_fmu_needs_no_preload(fmus: dict[str, Path]) -> None:
    d = diagnose(fmus["linked"], python=sys.executable)
    assert d.ok
    assert d.linux_binary_links_libpython is True
    assert not any("LD_PRELOAD" in c for c in d.commands)


def test_non_ascii_folder(fmus: dict[str, Path], capsys) -> None:
    """A problem for pythonfmu's binary alone; handled when the URI shim is in."""
    d = diagnose(fmus["bare"], python=sys.executable)
    assert not d.ok
    problems = [f.text for f in d.findings if f.level == "problem"]
    assert len(problems) == 1 and "FMU folder" in problems[0] and "'ëü'" in problems[0]
    assert main(["doctor", str(fmus["bare"]), "--python", sys.executable]) == 1
    assert "PROBLEM" in capsys.readouterr().out
    d = diagnose(fmus["accent"], python=sys.executable)
    assert d.ok, d.findings
    assert any("handled by the shim" in f.text for f in d.findings)


def test_missing_python_and_bad_file(fmus: dict[str, Path], tmp_path: Path) -> None:
    d = diagnose(fmus["plain"], python=str(tmp_path / "no-such-python"))
    assert not d.ok and any("no working" in f.text for f in d.findings)
    bad = tmp_path / "bad.fmu"
    bad.write_text("not a zip")
    with pytest.raises(InputError, match="not a readable FMU"):
        diagnose(bad)


def test_fmu_without_the_shim_is_flagged_with_the_fix(fmus: dict[str, Path]) -> None:
    """Built without a compiler (uri_shim=False): the report says what is lost and how to
    get it; with the shim it says what the shim does."""
    bare = " | ".join(f.text for f in diagnose(fmus["bare"], python=sys.executable).findings)
    assert "no hydrofmu shim" in bare and "fmi2OK" in bare
    assert "pip install 'hydrofmu[native]'" in bare
    plain = " | ".join(f.text for f in diagnose(fmus["plain"], python=sys.executable).findings)
    assert "refused calls return fmi2Error" in plain and "no hydrofmu shim" not in plain



def test_verdict_agrees_with_the_findings(tmp_path: Path) -> None:
    """The last line never says "no problem found" alone beside warnings."""
    from hydrofmu.cosim.doctor import Diagnosis, format_report

    d = Diagnosis(fmu=tmp_path / "x.fmu")
    d.add("ok", "fine")
    assert format_report(d).splitlines()[-1] == "verdict: no problem found, no warning"
    d.add("warning", "one")
    d.add("warning", "two")
    last = format_report(d).splitlines()[-1]
    assert last.startswith("verdict: no problem found, 2 warning(s)"), last
    assert d.ok
    d.add("problem", "three")
    assert format_report(d).splitlines()[-1] == (
        "verdict: 1 problem(s) and 2 warning(s) found (see above)")
    assert not d.ok
