"""Native by default (issue 31, points 4 and 7): ``hydrofmu build`` and
``Model.build_fmu`` make the native FMU whenever the model allows and the Python FMU
otherwise, each time with a note saying which and why; ``--python`` / ``--native`` ask; a
body key and a section key that disagree are refused; the binaries load on glibc 2.17 and
macOS 11 (read from the files), and a build without the cross-compiler says what it left
out."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import hydrofmu
from binary_floors import glibc_floor, macho_facts
from hydrofmu.cli import main as cli_main
from hydrofmu.export.native import build as native_build
from hydrofmu.export.native import compile as native_compile
from hydrofmu.export.python_binary import c_compiler
from hydrofmu.runtime.errors import ConfigError, ExportError

pytestmark = pytest.mark.fmu

ROOT = Path(__file__).resolve().parents[1]
OSWEC = ROOT / "examples" / "oswec" / "oswec.toml"

#: A model the native runtime refuses for a reason no other work changes: the split
#: added-mass scheme (the native FMU steps the implicit one only).
SPLIT_TOML = """
[added_mass]
method = "split"
{export}
[[bodies]]
name = "body"
hydro = "builtin:sphere"
radiation = "constant"
dofs = ["heave"]
"""


@pytest.fixture
def linux64_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's native builds compile linux64 alone here (the three platforms are
    compiled once, by the ``binaries`` fixture below)."""
    monkeypatch.setattr(native_build, "default_platforms", lambda: (["linux64"], ""))


def _kind(fmu: Path) -> str:
    names = zipfile.ZipFile(fmu).namelist()
    native = "resources/model.bin" in names
    python = any(n.endswith(".py") for n in names)
    assert native != python, names
    return "native" if native else "python"


def test_build_is_native_when_the_model_allows(tmp_path: Path, linux64_only: None,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The OSWEC (constant coefficients) as shipped: the native FMU with no flag, the
    Python FMU with ``--python``; each build says which it made."""
    out = tmp_path / "Oswec.fmu"
    assert cli_main(["build", str(OSWEC), "-o", str(out), "--name", "Oswec", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "note: built the native FMU (no Python at run time" in text, text
    assert "(native: no Python at run time)" in text
    assert _kind(out) == "native"
    py = tmp_path / "OswecPy.fmu"
    assert cli_main(["build", str(OSWEC), "-o", str(py), "--name", "Oswec", "--python",
                     "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "note: built the Python FMU, as --python asks" in text, text
    assert _kind(py) == "python"


def test_build_falls_back_to_python_saying_why(tmp_path: Path, linux64_only: None,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A model the native runtime cannot step: the Python FMU, the note naming the reason;
    ``--native`` refuses with the reason and the way out; ``--python`` overriding
    ``[export] runtime = "native"`` says so."""
    toml = tmp_path / "split.toml"
    toml.write_text(SPLIT_TOML.format(export=""))
    out = tmp_path / "Split.fmu"
    assert cli_main(["build", str(toml), "-o", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "note: built the Python FMU" in text and "added_mass.method = split" in text, text
    assert _kind(out) == "python"
    assert cli_main(["build", str(toml), "-o", str(tmp_path / "N.fmu"), "--native"]) == 2
    err = capsys.readouterr().err
    assert "the native FMU was asked for (--native)" in err and "--python" in err, err
    assert "added_mass.method = split" in err and not (tmp_path / "N.fmu").exists()
    toml.write_text(SPLIT_TOML.format(export='[export]\nruntime = "native"'))
    assert cli_main(["build", str(toml), "-o", str(tmp_path / "P.fmu"), "--python",
                     "--quiet"]) == 0
    assert "--python overrides [export] runtime = 'native'" in capsys.readouterr().out


def test_native_and_link_libpython_are_refused_before_any_data(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "not_there.toml"  # never read: the options are refused first
    assert cli_main(["build", str(missing), "-o", str(tmp_path / "x.fmu"), "--native",
                     "--link-libpython"]) == 2
    err = capsys.readouterr().err
    assert "--link-libpython" in err and "--native" in err and "not_there" not in err, err


class _Nothing(hydrofmu.Part):
    """A user part with no force (only Python runs it)."""

    kind = "user.nothing"

    def force(self, ctx: hydrofmu.Context):
        import numpy as np

        return np.zeros(6)


def test_api_default_follows_the_cli(tmp_path: Path) -> None:
    """``Model.build_fmu`` makes the same choice and reports it through ``on_note``; a
    user part makes the Python FMU (``tests/test_api.py`` builds one through the default),
    and ``native=True`` with one is refused naming it."""
    notes: list[str] = []
    model = hydrofmu.Model.from_toml(OSWEC)
    fmu = model.build_fmu(tmp_path / "A.fmu", model_name="A", on_note=notes.append,
                          platforms=("linux64",))
    assert _kind(fmu) == "native" and notes[0].startswith("built the native FMU")
    model = hydrofmu.Model.default(bodies=[{"name": "body", "hydro": "builtin:sphere",
                                            "radiation": "constant", "dofs": ["heave"]}],
                                   parts=[_Nothing])
    choice = native_build.choose_runtime(model.bodies, model.config, model.parts)
    assert not choice.native and "user parts" in choice.note and "_Nothing" in choice.note
    with pytest.raises(ExportError, match=r"user parts.*_Nothing.*native=False"):
        model.build_fmu(tmp_path / "V.fmu", model_name="V", native=True)


def test_body_and_section_radiation_keys_that_disagree_are_refused() -> None:
    """``[radiation] method`` and a body's ``radiation`` both written and different: refused
    with both named (the body's key won in silence before); the same method in both is
    accepted."""
    body = {"name": "body", "hydro": "builtin:sphere", "radiation": "convolution",
            "dofs": ["heave"]}
    with pytest.raises(ConfigError) as info:
        hydrofmu.Model.default(bodies=[body], radiation={"method": "state_space"})
    text = str(info.value)
    assert "radiation = 'convolution'" in text and "[radiation] method = 'state_space'" in text
    model = hydrofmu.Model.default(bodies=[{**body, "radiation": "constant"}],
                                   radiation={"method": "constant"})
    assert model.config["radiation"]["method"] == "constant"


def test_moordyn_options_that_are_not_used_are_noted() -> None:
    """The shipped moored body's MoorDyn file says tScheme = rk4, dtM = 0.005 s; the model
    steps the lines by [simulation]: a note says so."""
    notes = hydrofmu.Model.from_toml(ROOT / "examples" / "moored_body.toml").config["notes"]
    assert any("tScheme = rk4 (time_scheme = midpoint5)" in n and "dtM = 0.005 s" in n
               for n in notes), notes


# ------------------------------------------------------------------ where binaries load
@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    if not native_compile.has_ziglang():
        pytest.skip("the ziglang wheel (a base dependency) is not installed")
    folder = tmp_path_factory.mktemp("floors")
    built = native_compile.compile_all("Floor", folder)
    return {member.split("/")[1]: path.read_bytes() for member, path in built.items()}


def test_linux64_needs_glibc_2_17_at_most(binaries: dict[str, bytes], tmp_path: Path) -> None:
    """No symbol version above GLIBC_2.17 (``.gnu.version_r`` read from the file). The same
    reader sees the versions a plain build against this machine's glibc needs (gcc links
    ``exp``/``log``/``pow`` at GLIBC_2.29 on glibc >= 2.29)."""
    floor = glibc_floor(binaries["linux64"])
    assert (2, 2, 5) <= floor <= native_compile.GLIBC_FLOOR, floor
    compiler = c_compiler()
    if compiler is not None and "ziglang" not in " ".join(compiler):
        host = native_compile.compile_library(compiler, tmp_path / "host.so")
        assert glibc_floor(host.read_bytes()) >= (2, 2, 5)  # the reader reads a real file


def test_darwin64_loads_on_macos_11_without_a_build_path(binaries: dict[str, bytes]) -> None:
    """Both slices of the universal library: minos <= 11.0 (``LC_BUILD_VERSION``) and the
    install name ``@rpath/<model>.dylib`` (``LC_ID_DYLIB``), no folder of this machine."""
    facts = macho_facts(binaries["darwin64"])
    assert set(facts) == {"x86_64", "arm64"}
    for arch, f in facts.items():
        assert f["minos"][:2] <= native_compile.MACOS_FLOOR, (arch, f)
        assert f["install_name"] == "@rpath/Floor.dylib", (arch, f)


def test_without_the_cross_compiler_the_build_says_what_it_left_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ziglang: linux64 alone with a note naming the missing platforms and the install;
    a platform asked for by name is refused naming the install."""
    if c_compiler() is None or "ziglang" in " ".join(c_compiler()):
        pytest.skip("needs a C compiler other than ziglang")
    monkeypatch.setattr(native_compile, "has_ziglang", lambda: False)
    platforms, note = native_compile.default_platforms()
    assert platforms == ["linux64"]
    assert "win64" in note and "darwin64" in note and "pip install ziglang" in note
    notes: list[str] = []
    model = hydrofmu.Model.from_toml(OSWEC)
    fmu = native_build.build_native_fmu(model.bodies, model.config, tmp_path / "L.fmu",
                                        model_name="L", on_note=notes.append, validate=False)
    members = [n for n in zipfile.ZipFile(fmu).namelist() if n.startswith("binaries/")]
    assert members == ["binaries/linux64/L.so"] and notes == [note]
    with pytest.warns(UserWarning, match="win64"):  # no on_note: a warning, never silence
        native_build.build_native_fmu(model.bodies, model.config, tmp_path / "W.fmu",
                                      model_name="W", validate=False)
    with pytest.raises(ExportError, match=r"win64.*pip install ziglang"):
        native_compile.compile_all("X", tmp_path / "x", ["win64"])
