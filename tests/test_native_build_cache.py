"""The native runtime's build cache (``export/native/build_cache.py``): a library is
compiled once per compiler, command line and sources, and the FMU is byte-identical with
and without the cache.

Most tests replace the compiler with a stand-in that records its calls and writes bytes
made of its arguments (a compile takes tens of seconds); one compiles for real and builds
the same model cold, warm and with the cache bypassed.
"""

from __future__ import annotations

import shutil
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hydrofmu.config.configuration import default_config
from hydrofmu.export.native import build_cache, build_native_fmu
from hydrofmu.export.native import compile as native_compile
from hydrofmu.export.python_binary import c_compiler

#: A stand-in compiler command (its identity is read once: ``--version`` of ``true``).
FAKE = ("true",)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of this test, the cache enabled."""
    monkeypatch.setenv("HYDROFMU_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(build_cache.NO_CACHE_ENV, raising=False)
    return tmp_path / "cache" / "native"


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[str, ...]]]:
    """The stand-in compiler's calls (output file name, extra arguments)."""
    made: list[tuple[str, tuple[str, ...]]] = []

    def fake(compiler: Any, output: Path, *, extra: Any = ()) -> Path:
        made.append((output.name, tuple(extra)))
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(b"library " + output.name.encode() + repr(tuple(extra)).encode())
        return output

    monkeypatch.setattr(native_compile, "compile_library", fake)
    return made


def _build(folder: Path, name: str = "lib.so", **kw: Any) -> bytes:
    return native_compile.built_library(FAKE, folder / name, **kw).read_bytes()


def test_cold_compiles_warm_reads(cache: Path, calls: list, tmp_path: Path) -> None:
    """The first build compiles and stores one entry; the second reads it, same bytes."""
    cold = _build(tmp_path / "a")
    assert len(calls) == 1 and len(list(cache.glob("*.lib"))) == 1
    warm = _build(tmp_path / "b")
    assert len(calls) == 1
    assert warm == cold


def test_a_corrupt_or_truncated_entry_is_compiled_again(cache: Path, calls: list,
                                                        tmp_path: Path) -> None:
    """A flipped byte of the library, a cut file, another file's bytes: each fails the
    checksum or the magic, is compiled again and the entry rewritten sound."""
    good = _build(tmp_path / "a")
    (entry,) = cache.glob("*.lib")
    sound = entry.read_bytes()
    damaged = [sound[:-1] + bytes([sound[-1] ^ 1]), sound[: len(sound) // 2], b"", b"x" * 80]
    for n, data in enumerate(damaged, start=2):
        entry.write_bytes(data)
        assert _build(tmp_path / f"d{n}") == good
        assert len(calls) == n, data
        assert entry.read_bytes() == sound


def test_bypass_compiles_every_time_and_writes_nothing(cache: Path, calls: list,
                                                       tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build_cache.NO_CACHE_ENV, "1")
    first, second = _build(tmp_path / "a"), _build(tmp_path / "b")
    assert first == second and len(calls) == 2
    assert not cache.exists()


def test_an_unwritable_cache_folder_does_not_stop_the_build(
        tmp_path: Path, calls: list, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache folder's place is a file: the library is compiled and written anyway."""
    blocker = tmp_path / "not a folder"
    blocker.write_text("")
    monkeypatch.setenv("HYDROFMU_CACHE_DIR", str(blocker))
    monkeypatch.delenv(build_cache.NO_CACHE_ENV, raising=False)
    assert _build(tmp_path / "a") == _build(tmp_path / "b")
    assert len(calls) == 2


def test_linux64_one_entry_for_every_model_darwin64_one_per_install_name(
        cache: Path, calls: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """linux64 is compiled under one file name (an ELF library without ``-soname`` holds
    none), so two models share it; darwin64's install name holds the model's name, so it is
    in the key; win64's DLL holds its own file name (its export table), so that too."""
    monkeypatch.setattr(native_compile, "has_ziglang", lambda: True)
    one = native_compile.compile_all("One", tmp_path / "one", ["linux64", "win64", "darwin64"])
    assert [c[0] for c in calls] == [native_compile.LINUX_COMPILE_NAME, "One.dll",
                                     "One.dylib", "One.dylib"]
    assert calls[1][1] == native_compile.WIN64_EXTRA
    assert calls[2][1] == ("-Wl,-install_name,@rpath/One.dylib",)
    two = native_compile.compile_all("Two", tmp_path / "two", ["linux64", "win64", "darwin64"])
    assert [c[0] for c in calls[4:]] == ["Two.dll", "Two.dylib", "Two.dylib"]
    assert set(one) == {"binaries/linux64/One.so", "binaries/win64/One.dll",
                        "binaries/darwin64/One.dylib"}
    assert one["binaries/linux64/One.so"].read_bytes() == two[
        "binaries/linux64/Two.so"].read_bytes()
    again = native_compile.compile_all("One", tmp_path / "again", ["linux64", "win64",
                                                                    "darwin64"])
    assert len(calls) == 7
    for member, path in again.items():
        assert path.read_bytes() == one[member].read_bytes(), member


def _copied_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The ``-I`` folders copied to ``tmp_path``, the compile pointed at the copies."""
    copies = []
    for n, folder in enumerate(native_compile.INCLUDE_DIRS):
        copy = tmp_path / "src" / f"{n}_{folder.name}"
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__",
                                                                    "*.so", "*.dll"))
        copies.append(copy)
    monkeypatch.setattr(native_compile, "INCLUDE_DIRS", tuple(copies))
    return copies


@pytest.mark.parametrize("changed", ["hfn_model.h", "fmi2Functions.c", "line_kernel.c",
                                     "panel_kernel.c", "body_kernel.c"])
def test_a_changed_source_or_header_misses_the_cache(
        changed: str, cache: Path, calls: list, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One comment added to one file of the runtime or of an included kernel: the same
    command compiles again (the file's bytes are in the key, not only its name)."""
    copies = _copied_sources(tmp_path, monkeypatch)
    _build(tmp_path / "a")
    _build(tmp_path / "b")
    assert len(calls) == 1
    (path,) = [p for c in copies for p in c.glob(changed)]
    path.write_bytes(path.read_bytes() + b"\n/* changed */\n")
    _build(tmp_path / "c")
    assert len(calls) == 2


def test_the_key_does_not_depend_on_where_the_sources_are(
        cache: Path, calls: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same sources in another folder (another checkout; the libraries hold no folder,
    FLAGS' ``-g0``): the same key, so a fresh clone reuses the libraries; the command
    still names them where they are."""
    here = native_compile.key_command(FAKE, "x.so", ())
    _build(tmp_path / "a")
    copies = _copied_sources(tmp_path, monkeypatch)
    assert any(str(copies[0]) in arg for arg in native_compile.compile_command(
        FAKE, Path("x.so"), ()))
    assert native_compile.key_command(FAKE, "x.so", ()) == here
    assert not any(str(tmp_path) in arg for arg in here)
    _build(tmp_path / "b")
    assert len(calls) == 1


def test_the_compiler_flags_and_extra_arguments_are_in_the_key(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = native_compile.INCLUDE_DIRS

    def key(compiler: tuple[str, ...], extra: tuple[str, ...] = ()) -> str:
        return build_cache.cache_key(compiler, native_compile.key_command(
            compiler, "x.so", extra), folders)

    base = key(FAKE)
    assert key(FAKE) == base
    assert key(("false",)) != base  # another compiler
    assert key(FAKE, ("-Wl,-install_name,@rpath/A.dylib",)) != base
    monkeypatch.setattr(native_compile, "FLAGS", (*native_compile.FLAGS, "-DX=1"))
    assert key(FAKE) != base
    monkeypatch.setattr(build_cache, "compiler_identity", lambda c: "another version")
    monkeypatch.setattr(native_compile, "FLAGS", native_compile.FLAGS[:-1])
    assert key(FAKE) != base


def test_racing_writers_and_readers_see_whole_entries(cache: Path) -> None:
    """Eight threads store and read one key (as xdist workers and two users' builds may):
    every read is None (not there yet) or the whole library, never a part."""
    library = bytes(range(256)) * 4000
    seen: list[bytes | None] = []

    def work() -> None:
        for _ in range(20):
            build_cache.write_entry("race", library)
            seen.append(build_cache.read_entry("race"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s == library for s in seen)
    assert [p.name for p in cache.iterdir()] == ["race.lib"]  # no temporary file left


def _binaries(fmu: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(fmu) as z:
        return {n: z.read(n) for n in z.namelist() if n.startswith("binaries/")}


def test_the_fmu_is_byte_identical_cold_warm_and_without_the_cache(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real compiler (linux64, the one every machine builds): the same model built with
    the cache empty, full, and bypassed has the same binaries, byte for byte."""
    if c_compiler() is None and not native_compile.has_ziglang():
        pytest.skip("no C compiler")
    bodies, config = default_config(radiation={"method": "state_space"})
    kw: dict[str, Any] = {"model_name": "Twin", "platforms": ["linux64"], "validate": False}
    cold = _binaries(build_native_fmu(bodies, config, tmp_path / "cold.fmu", **kw))
    assert len(list(cache.glob("*.lib"))) == 1
    warm = _binaries(build_native_fmu(bodies, config, tmp_path / "warm.fmu", **kw))
    monkeypatch.setenv(build_cache.NO_CACHE_ENV, "1")
    fresh = _binaries(build_native_fmu(bodies, config, tmp_path / "fresh.fmu", **kw))
    assert list(cold) == ["binaries/linux64/Twin.so"]
    assert cold == warm == fresh
