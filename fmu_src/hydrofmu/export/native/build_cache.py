"""The build cache of the native runtime's libraries (build time).

The native runtime does not depend on the model (the model is data, ``resources/model.bin``),
so a library compiled once is reused by every later build that would compile it the same
way. An entry's key is the SHA-256 of everything the compile reads or is told
(:func:`cache_key`): the compiler's identity (the ziglang wheel's version, or ``cc
--version`` and its path), the whole command line (flags, targets, extra arguments such as
darwin64's install name, the output's file name; the ``-I`` folders by their place, not
their path: the libraries hold no folder, see
:data:`~hydrofmu.export.native.compile.FLAGS`, so two checkouts share them) and the bytes
of every C file and header in those folders. The value is the library's bytes.

Entries live in ``<cache folder>/native/`` (:func:`cache_folder`: the folder the compiled
kernels use, ``$HYDROFMU_CACHE_DIR``, else ``$XDG_CACHE_HOME/hydrofmu``, else
``~/.cache/hydrofmu``). Each is written to a temporary file and renamed into place
(``os.replace``), so two builds racing (pytest-xdist workers, two users) both read whole
files; each holds the SHA-256 of its bytes, and an entry that is corrupt or unreadable is
compiled again and rewritten, never trusted. ``HYDROFMU_NO_CACHE=1`` bypasses the cache
(every library compiled, nothing read or written).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ...runtime.moorings.kernel_files import cache_dir

LOG = logging.getLogger("hydrofmu.native.cache")

#: The environment variable that bypasses the cache (``1``, ``true`` or ``yes``).
NO_CACHE_ENV = "HYDROFMU_NO_CACHE"
#: An entry's first bytes; a new layout of the entries (or of the key) changes it.
MAGIC = b"HFNCACHE1\n"
_DIGEST = 32


def cache_enabled() -> bool:
    """False when ``$HYDROFMU_NO_CACHE`` asks to bypass the cache."""
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() not in ("1", "true", "yes")


def cache_folder() -> Path:
    """The folder of the native libraries' entries (it may not exist)."""
    return cache_dir() / "native"


@functools.lru_cache(maxsize=16)
def compiler_identity(command: tuple[str, ...]) -> str:
    """What names the compiler of ``command`` (a compiler's command prefix): the ziglang
    wheel's version for ``python -m ziglang cc``, else the output of ``<cc> --version``
    (empty when it cannot be run; the path stays in the key through the command)."""
    if "ziglang" in command:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"ziglang {version('ziglang')}"
        except PackageNotFoundError:
            return "ziglang unknown"
    try:
        proc = subprocess.run([command[0], "--version"], capture_output=True, text=True,
                              check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout + proc.stderr


def source_digest(folders: Iterable[Path]) -> str:
    """SHA-256 of every ``.c`` and ``.h`` file (name and bytes) in ``folders``: all a
    compile with these ``-I`` folders can read of the project's sources."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(Path(folder).iterdir()):
            if path.suffix in (".c", ".h") and path.is_file():
                digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(compiler: Sequence[str], command: Sequence[str], folders: Iterable[Path]) -> str:
    """The key of a library: the compiler's identity, the ``command`` (with the output's
    file name, not its folder) and :func:`source_digest` of ``folders``."""
    digest = hashlib.sha256(MAGIC)
    for part in (compiler_identity(tuple(compiler)), *command, source_digest(folders)):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def entry_path(key: str) -> Path:
    """The file of the entry ``key``."""
    return cache_folder() / f"{key}.lib"


def read_entry(key: str) -> bytes | None:
    """The library stored under ``key``; None when there is none, or it is unreadable or
    corrupt (its checksum does not match: logged, to be compiled again)."""
    path = entry_path(key)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        LOG.info("native cache: %s unreadable (%s); compiling again", path, exc)
        return None
    head = len(MAGIC) + _DIGEST
    body = data[head:]
    if data[: len(MAGIC)] != MAGIC or hashlib.sha256(body).digest() != data[len(MAGIC):head]:
        LOG.info("native cache: %s is corrupt; compiling again", path)
        return None
    return body


def write_entry(key: str, library: bytes) -> None:
    """Store ``library`` under ``key`` atomically (a temporary file renamed into place); a
    folder that cannot be written is logged and skipped (the build goes on)."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".partial-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + hashlib.sha256(library).digest() + library)
            os.replace(tmp, entry_path(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        LOG.info("native cache: cannot write into %s (%s)", folder, exc)


def cached_library(key: str, compile_now: Callable[[], bytes]) -> bytes:
    """The library of ``key``: from the cache when it holds a sound entry, else
    ``compile_now()`` (stored for the next build). With the cache bypassed
    (:func:`cache_enabled`), always ``compile_now()``."""
    if not cache_enabled():
        return compile_now()
    found = read_entry(key)
    if found is not None:
        return found
    library = compile_now()
    write_entry(key, library)
    return library
