"""The compiled line kernel (``moorings/line_kernel.c``) against the numpy model.

The C derivative is a transcription of ``LineSystem``'s numpy derivative; both are compared
on every test file of ``tests/data/moorings/`` at seeded random states near the static
equilibrium (nodes on the seabed, a coupled body moving, a free point, a line partly out of
the water, MoorDyn's IC drag scale, compression allowed), through a replay, and the
fallback to numpy (forced, no library, a library that does not load, another ABI) is
checked to work and to say so once. The build side compiles the library into the cache;
the run time only loads it (``import hydrofmu`` registers and compiles nothing).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from hydrofmu.cosim.line_stepper import CompiledSteps
from hydrofmu.cosim.replay import Replay
from hydrofmu.export.line_kernel_build import compiled_library
from hydrofmu.export.python_binary import compile_shared_library
from hydrofmu.runtime.errors import ConfigError
from hydrofmu.runtime.moorings import kernel_files, kernel_loader
from hydrofmu.runtime.moorings.equilibrium import initial_profile
from hydrofmu.runtime.moorings.lines import LineSystem
from hydrofmu.runtime.moorings.moordyn_input import read_moordyn
from hydrofmu.runtime.schemes.registry import make_scheme

DATA = Path(__file__).parent / "data" / "moorings"
FILES = sorted(p.name for p in DATA.glob("*.txt"))

# Round-off: each node's net force is a sum of ~10 terms of up to ~1e6 N (tension, weight,
# seabed) that cancel to the small net force near equilibrium; the two codes add them in
# the same order but numpy's einsum and the fully-submerged shortcuts associate a few
# products differently, which moves results by a few ulps of the largest term: ~1e-14 of
# the largest component was measured. 1e-12 is the brief's bound and leaves 100x margin.
REL = 1e-12


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> None:
    """The build side's compiled kernel in the cache (as the API and the replay make it)."""
    assert compiled_library() is not None


def _pair(name: str) -> tuple[LineSystem, LineSystem]:
    model = read_moordyn(DATA / name)
    c, n = LineSystem(model=model, kernel="c"), LineSystem(model=model, kernel="numpy")
    assert c.kernel == "c" and n.kernel == "numpy"
    return c, n


def _coupled(s: LineSystem) -> np.ndarray:
    """The file's coupled positions (bodies' poses, then points)."""
    a = s.arrays
    parts = [np.asarray(s.model.bodies[b].pose, dtype=float) for b in a.coupled_bodies]
    parts += [a.point_r0[i] for i in a.coupled_points]
    return np.concatenate(parts) if parts else np.zeros(0)


def _close(a: np.ndarray, b: np.ndarray, what: str) -> None:
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    err = float(np.max(np.abs(a - b))) if b.size else 0.0
    assert err <= REL * scale, f"{what}: |C - numpy| = {err:.3g}, scale {scale:.3g}"


def _compare(c: LineSystem, n: LineSystem, x: np.ndarray, cp: np.ndarray, cv: np.ndarray,
             label: str) -> None:
    ni = n.arrays.n_internal
    dn, dc = n.derivative(0.0, x, cp, cv), c.derivative(0.0, x, cp, cv)
    # velocities of the nodes, accelerations of the nodes, then the free points' blocks
    blocks = [slice(0, 3 * ni), slice(3 * ni, 6 * ni)]
    nf = n.arrays.n_free
    if nf:
        blocks += [slice(6 * ni, 6 * ni + 3 * nf), slice(6 * ni + 3 * nf, 6 * ni + 6 * nf)]
    for k, sl in enumerate(blocks):
        _close(dc[sl], dn[sl], f"{label} derivative block {k}")
    en, ec = n.evaluate(x, cp, cv), c.evaluate(x, cp, cv)
    for key in ("r", "v", "fnet", "point_r", "point_v", "point_f", "seg_tension"):
        _close(ec[key], en[key], f"{label} evaluate {key}")
    dn2, evn = n.derivative_and_evaluate(x, cp, cv)
    dc2, evc = c.derivative_and_evaluate(x, cp, cv)
    _close(dc2, dn2, f"{label} derivative_and_evaluate")
    _close(evc["point_f"], evn["point_f"], f"{label} derivative_and_evaluate point_f")


@pytest.mark.parametrize("name", FILES)
def test_c_derivative_equals_the_numpy_derivative(name: str) -> None:
    c, n = _pair(name)
    cp0 = _coupled(n)
    x0 = initial_profile(n, cp0)  # the catenary: within centimetres of the equilibrium
    rng = np.random.default_rng(20261123)
    ni, nf = n.arrays.n_internal, n.arrays.n_free
    for trial in range(4):
        x = x0.copy()
        x[:3 * ni] += rng.normal(scale=0.05, size=3 * ni)  # m
        x[3 * ni:6 * ni] = rng.normal(scale=0.5, size=3 * ni)  # m/s
        if nf:
            x[6 * ni:6 * ni + 3 * nf] += rng.normal(scale=0.2, size=3 * nf)
            x[6 * ni + 3 * nf:] = rng.normal(scale=0.3, size=3 * nf)
        cp = cp0 + rng.normal(scale=0.5, size=cp0.size)
        if c.arrays.coupled_bodies.size:  # a body turning by a few degrees
            cp[3:6] += rng.normal(scale=0.05, size=3)
        cv = rng.normal(scale=1.0, size=cp0.size)
        _compare(c, n, x, cp, cv, f"{name} trial {trial}")
    # nodes above the water (the submergence branch): the coupled objects lifted 12 m
    lift = cp0.copy()
    if c.arrays.coupled_bodies.size:
        lift[2] += 12.0
    else:
        lift[2::3] += 12.0
    x = initial_profile(n, lift)
    cv = rng.normal(scale=1.0, size=cp0.size)
    assert np.max(n.evaluate(x, lift, cv)["r"][:, 2]) > 0.0
    _compare(c, n, x, lift, cv, f"{name} lifted")
    # MoorDyn's IC stage: drag scaled; the Newton stage: segments resist compression
    for system in (c, n):
        system.drag_scale, system.compression = 4.0, True
    try:
        _compare(c, n, x0, cp0, rng.normal(scale=1.0, size=cp0.size), f"{name} IC settings")
    finally:
        for system in (c, n):
            system.drag_scale, system.compression = 1.0, False


def test_c_kernel_checks_its_arguments_as_numpy_does() -> None:
    c, n = _pair("chain_1line.txt")
    x = initial_profile(n, _coupled(n))
    for system in (c, n):
        with pytest.raises(ConfigError, match="expect 3 coupled"):
            system.derivative(0.0, x, np.zeros(4), np.zeros(4))
    # a (1, 3) coupled array is flattened, as numpy does
    cp = _coupled(n)
    _close(c.derivative(0.0, x, cp[None, :], 0 * cp[None, :]),
           n.derivative(0.0, x, cp, 0 * cp), "reshaped coupled arguments")
    with pytest.raises(ConfigError, match="kernel 'fortran'"):
        LineSystem(model=read_moordyn(DATA / "chain_1line.txt"), kernel="fortran")


@pytest.mark.parametrize("name", ["chain_1line.txt", "clump_2lines.txt"])
def test_replay_with_both_kernels_agrees(name: str) -> None:
    model = read_moordyn(DATA / name)
    probe = LineSystem(model=model, kernel="numpy")
    cp0 = _coupled(probe)
    t = np.arange(0.0, 1.5 + 1e-9, 0.1)
    coords = np.repeat(cp0[None, :], t.size, axis=0)
    coords[:, 0] += 3.0 * np.sin(2 * np.pi * t / 3.0)  # 3 m surge of the fairlead(s)
    tables = {}
    for k in ("c", "numpy"):
        rep = Replay(model=model, t=t, coords=coords, kernel=k)
        assert rep.system.kernel == k
        header, table, info = rep.run()
        assert info["converged"]
        tables[k] = table
    # 1500 steps of rk2: round-off of ~1e-14 per step, damped lines (no growth of it);
    # 1e-9 of each column's largest value is the brief's bound
    for j, col in enumerate(header):
        scale = float(np.max(np.abs(tables["numpy"][:, j])))
        err = float(np.max(np.abs(tables["c"][:, j] - tables["numpy"][:, j])))
        assert err <= 1e-9 * max(scale, 1e-300), f"{name} {col}: {err:.3g} of {scale:.3g}"


def _with_options(name: str, tmp_path: Path, scheme: str, dtm: float) -> Path:
    text = (DATA / name).read_text()
    assert "rk2           tScheme" in text and "0.001         dtM" in text
    path = tmp_path / name
    path.write_text(text.replace("rk2           tScheme", f"{scheme}  tScheme")
                    .replace("0.001         dtM", f"{dtm}  dtM"))
    return path


@pytest.mark.parametrize(("name", "scheme"), [("body_3lines.txt", "rk4"),
                                              ("clump_2lines.txt", "rk3"),
                                              ("body_3lines.txt", "midpoint5"),
                                              ("chain_1line.txt", "beuler3")])
def test_compiled_stepping_matches_python_stepping(name: str, scheme: str,
                                                   tmp_path: Path) -> None:
    """Whole sample intervals in C (motion, scheme constants, derivative; the semi-implicit
    schemes' derivative carried across intervals) against one Python scheme step at a time
    with the same C derivative; a body rolling, pitching and yawing (the angular velocity
    from the angle rates), samples unevenly spaced."""
    model = read_moordyn(_with_options(name, tmp_path, scheme, 0.002))
    cp0 = _coupled(LineSystem(model=model, kernel="numpy"))
    rng = np.random.default_rng(5)
    t = np.concatenate([[0.0], np.cumsum(rng.uniform(0.07, 0.13, 12))])
    coords = np.repeat(cp0[None, :], t.size, axis=0)
    coords[:, 0] += 2.0 * np.sin(2 * np.pi * t / 2.0)
    if "body" in name:
        coords[:, 3] += 0.05 * np.sin(2 * np.pi * t / 1.3)  # rad
        coords[:, 4] += 0.04 * np.sin(2 * np.pi * t / 1.7)
        coords[:, 5] += 0.2 * t
    tables = []
    for compiled in (True, False):
        rep = Replay(model=model, t=t, coords=coords, kernel="c")
        rep.compiled_steps = compiled
        header, table, _ = rep.run()
        tables.append(table)
        assert CompiledSteps.applies(rep.system, make_scheme(scheme))
    # same arithmetic but for the order of a few sums (BLAS dot products of the tableau,
    # numpy's polynomial evaluation): ~1e-15 per step over ~700 steps, damped lines
    for j, col in enumerate(header):
        scale = float(np.max(np.abs(tables[1][:, j])))
        err = float(np.max(np.abs(tables[0][:, j] - tables[1][:, j])))
        assert err <= 1e-9 * max(scale, 1e-300), f"{name} {col}: {err:.3g} of {scale:.3g}"


def test_compiled_stepping_reports_a_diverging_step(tmp_path: Path) -> None:
    from hydrofmu.runtime.errors import IntegrationError

    # dtM = 0.05 s: 50 times the chain's explicit stability limit (~1 ms)
    model = read_moordyn(_with_options("chain_1line.txt", tmp_path, "rk2", 0.05))
    cp0 = _coupled(LineSystem(model=model, kernel="numpy"))
    t = np.arange(0.0, 5.0 + 1e-9, 0.5)
    coords = np.repeat(cp0[None, :], t.size, axis=0)
    coords[:, 0] += np.sin(t)
    with pytest.raises(IntegrationError, match="time scheme 'rk2' produced"):
        Replay(model=model, t=t, coords=coords, kernel="c").run()


# ------------------------------------------------------------------------------ fallback

@pytest.fixture
def fresh_kernel(monkeypatch, tmp_path: Path):
    """An empty cache folder and a loader that has loaded nothing and noted nothing (a
    new process, as far as the kernel modules know)."""
    monkeypatch.setenv("HYDROFMU_CACHE_DIR", str(tmp_path / "cache"))
    kernel_loader.forget()
    yield monkeypatch
    kernel_loader.forget()


def _notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hydrofmu.moorings.kernel"]


def test_import_registers_and_compiles_nothing(tmp_path: Path) -> None:
    """``import hydrofmu`` leaves the kernel modules alone: a fresh interpreter with an
    empty cache imports the package and finds no library there afterwards."""
    import subprocess
    import sys

    code = ("import hydrofmu, sys; from hydrofmu.runtime.moorings import kernel_files as f; "
            "sys.exit(f.cached_library().exists())")
    env = {**__import__("os").environ, "HYDROFMU_CACHE_DIR": str(tmp_path / "cache")}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0
    assert not (tmp_path / "cache").exists()


def test_cli_replay_kernel_option(tmp_path: Path, capsys, fresh_kernel) -> None:
    from hydrofmu.cli.commands import main

    motion = tmp_path / "motion.csv"
    t = np.arange(0.0, 1.0 + 1e-9, 0.25)
    motion.write_text("t,point2.x,point2.y,point2.z\n" + "".join(
        f"{ti},{0.5 * ti},0.0,-10.0\n" for ti in t))
    lines = DATA / "chain_1line.txt"
    tables = {}
    for k in ("c", "numpy"):  # the replay compiles the kernel into the empty cache
        out = tmp_path / f"{k}.csv"
        assert main(["mooring", "replay", str(lines), str(motion), "-o", str(out), "--quiet",
                     "--kernel", k]) == 0
        tables[k] = np.genfromtxt(out, delimiter=",", skip_header=1)
    assert kernel_files.cached_library().is_file()
    # as the replay test above: 1e-9 of each column's peak
    scale = np.max(np.abs(tables["numpy"]), axis=0)
    assert np.all(np.abs(tables["c"] - tables["numpy"]) <= 1e-9 * scale)
    # auto without a usable library (one that does not load, in another cache folder: the
    # process keeps the first one loaded under its name): numpy, and the command says so
    fresh_kernel.setenv("HYDROFMU_CACHE_DIR", str(tmp_path / "cache2"))
    kernel_files.cache_dir().mkdir()
    kernel_files.cached_library().write_bytes(b"not a shared library")
    kernel_loader.forget()
    capsys.readouterr()
    assert main(["mooring", "replay", str(lines), str(motion), "-o",
                 str(tmp_path / "auto.csv"), "--quiet"]) == 0
    assert "numpy kernel runs" in capsys.readouterr().err
    assert main(["mooring", "replay", str(lines), str(motion), "-o",
                 str(tmp_path / "c2.csv"), "--quiet", "--kernel", "c"]) == 2
    assert "kernel 'c' requested" in capsys.readouterr().err


def test_forced_numpy_runs_numpy_and_says_so_once(fresh_kernel, caplog) -> None:
    model = read_moordyn(DATA / "chain_1line.txt")
    with caplog.at_level(logging.INFO, logger="hydrofmu.moorings.kernel"):
        systems = [LineSystem(model=model, kernel="numpy") for _ in range(3)]
    assert all(s.kernel == "numpy" and s.compiled is None for s in systems)
    notes = _notes(caplog)
    assert len(notes) == 1 and "kernel = 'numpy'" in notes[0]
    assert not kernel_files.cache_dir().exists()  # nothing compiled


def test_build_side_compiles_once_and_the_run_time_loads_it(fresh_kernel, caplog) -> None:
    """The run time never compiles: with an empty cache the lines run numpy and say why;
    once the build side has compiled the library (once: a second call reuses it), the
    next lines find it, and a new process too."""
    model = read_moordyn(DATA / "chain_1line.txt")
    with caplog.at_level(logging.INFO, logger="hydrofmu.moorings.kernel"):
        assert LineSystem(model=model).kernel == "numpy"
    assert any("hydrofmu compiles it there" in m for m in _notes(caplog)), _notes(caplog)
    assert not kernel_files.cache_dir().exists()
    path = compiled_library()
    assert path is not None and path.parent == kernel_files.cache_dir()
    assert kernel_files.source_hash() in path.name
    stamp = path.stat().st_mtime_ns
    assert compiled_library() == path and path.stat().st_mtime_ns == stamp  # not rebuilt
    assert LineSystem(model=model).kernel == "c"
    kernel_loader.forget()  # a new process: the cached library is found, not rebuilt
    assert LineSystem(model=model).kernel == "c"
    assert path.stat().st_mtime_ns == stamp


def test_a_library_that_does_not_load_falls_back_once(fresh_kernel, caplog) -> None:
    out = kernel_files.cached_library()
    out.parent.mkdir(parents=True)
    out.write_bytes(b"not a shared library")
    model = read_moordyn(DATA / "clump_2lines.txt")
    with caplog.at_level(logging.INFO, logger="hydrofmu.moorings.kernel"):
        systems = [LineSystem(model=model) for _ in range(2)]
    assert [s.kernel for s in systems] == ["numpy", "numpy"]
    notes = _notes(caplog)
    assert len(notes) == 1 and "does not load" in notes[0], notes
    with pytest.raises(ConfigError, match=r"kernel .c. requested.*does not load"):
        LineSystem(model=model, kernel="c")
    # the fallback computes: the numpy derivative at the catenary profile
    x = initial_profile(systems[0], _coupled(systems[0]))
    cp = _coupled(systems[0])
    assert np.all(np.isfinite(systems[0].derivative(0.0, x, cp, 0 * cp)))


def test_a_library_of_another_abi_is_refused(fresh_kernel, caplog) -> None:
    compile_shared_library(kernel_files.SOURCE, kernel_files.cached_library(),
                           flags=("-DHF_LINE_KERNEL_ABI=999",))
    model = read_moordyn(DATA / "chain_1line.txt")
    with caplog.at_level(logging.INFO, logger="hydrofmu.moorings.kernel"):
        assert LineSystem(model=model).kernel == "numpy"
    assert any("ABI 999" in m for m in _notes(caplog)), _notes(caplog)


def test_the_installed_package_alone_reads_the_cache() -> None:
    """The cache is the installed package's; an FMU's bundled copy (another package name)
    uses its bundled library or none."""
    assert kernel_files.reads_cache()
    assert kernel_files.__name__.rpartition(".")[0] == kernel_files.INSTALLED_PACKAGE


def test_default_kernel_here_is_compiled() -> None:
    """The test environment has a C compiler (cc or the ziglang wheel of the test extra),
    so the MoorDyn-C comparisons of the other test files run the C kernel."""
    model = read_moordyn(DATA / "body_3lines.txt")
    assert LineSystem(model=model).kernel == "c"
    assert Replay(model=model, t=np.array([0.0, 1.0]),
                  coords=np.zeros((2, 6))).system.kernel == "c"


# ------------------------------------------------------------------------------ the FMU
@pytest.mark.slow
def test_fmu_carries_the_kernel_and_runs_without_it(tmp_path: Path) -> None:
    """The export compiles the kernel into the FMU; an FMU whose library is not of this
    platform (renamed, as on another OS) runs the numpy kernel, says so, and agrees to the
    accuracy of MoorDyn's IC stage (its lines start there: no catenary solve without the
    library)."""
    import shutil
    import zipfile

    from hydrofmu.config.configuration import load_config
    from hydrofmu.export.fmu import build_fmu
    from test_fmu import drive

    root = Path(__file__).resolve().parents[1]
    bodies, cfg = load_config(root / "examples" / "moored_body.toml")
    fmu = build_fmu(bodies, cfg, tmp_path / "c" / "Moored.fmu", validate=False,
                    uri_shim=False)
    with zipfile.ZipFile(fmu) as z:
        libs = [n for n in z.namelist() if "/moorings/line_kernel." in n
                and not n.endswith((".py", ".c"))]  # the compiled libraries only
        assert libs == [n for n in libs if n.endswith(kernel_files.bundled_library_name())]
        assert len(libs) == 1
        members = {i.filename: z.read(i) for i in z.infolist()}
    other = tmp_path / "other" / "Moored.fmu"
    other.parent.mkdir()
    with zipfile.ZipFile(other, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name.replace(kernel_files.bundled_library_name(),
                                    "line_kernel.other-platform.so"), data)
    tensions = [f"mooring.line{k}.T_fairlead" for k in (1, 2, 3)]
    forces = ["body.F_mooring[1]", "body.F_mooring[3]"]  # surge (a small net), heave
    moments = ["body.F_mooring[5]"]  # pitch
    names = tensions + forces + moments
    runs = {}
    for label, path in (("c", fmu), ("numpy", other)):
        work = tmp_path / f"run_{label}"
        work.mkdir()
        runs[label] = drive("series", {"fmu": str(path), "steps": 20, "dt": 0.1,
                                       "outputs": names}, work)
        shutil.rmtree(work / "unpack dir", ignore_errors=True)
    for label in ("c", "numpy"):
        said = [m for _, _, m in runs[label]["messages"] if "kernel" in m]
        assert len(said) == 1 and f"{label} kernel" in said[0], said
    # and why: no library of this platform, and an FMU compiles nothing at run time
    assert "not available" in said[0] and kernel_files.bundled_library_name() in said[0], said
    out = {k: {n: np.array(runs[k]["outputs"][n]) for n in names} for k in runs}
    # Scale of each output: the forces that are summed into it, not its own peak (the surge
    # force is the ~70 N net of three ~36 kN line tensions). A component of F_mooring is a sum
    # of the three fairlead tensions' components: scale sum_k max_t T_k (~107 kN); a moment
    # adds T_k times the fairlead's lever arm |r_k| (a body-frame length, so fixed);
    # a tension is its own scale.
    model = read_moordyn(root / "examples" / "data" / "moored_body_lines.txt")
    arms = [float(np.linalg.norm(p.position)) for p in model.points if p.kind == "coupled"]
    peaks = [float(np.max(np.abs(out["numpy"][n]))) for n in tensions]
    assert len(arms) == len(peaks) == 3
    scale = {n: peaks[k] for k, n in enumerate(tensions)}
    scale.update({n: sum(peaks) for n in forces})
    scale.update({n: sum(t * r for t, r in zip(peaks, arms, strict=True)) for n in moments})
    # Without any library the catenary solve (C only, no numpy copy) is not there either,
    # so the lines start from MoorDyn's own IC stage (a straight profile relaxed until the
    # fairlead tensions change by less than threshIC = 0.1 %: Newton does not converge
    # from a straight chain), not from the Newton equilibrium of the catenary profile: the
    # two runs differ by that stage's accuracy, measured 3.7e-4 of a tension; bound 1e-3
    # (threshIC). The two kernels' own agreement (1e-14 a derivative) is the derivative
    # test's above.
    for n in names:
        err = float(np.max(np.abs(out["c"][n] - out["numpy"][n])))
        assert err <= 1e-3 * scale[n], f"{n}: |C - numpy| = {err:.3g}, scale {scale[n]:.3g}"
