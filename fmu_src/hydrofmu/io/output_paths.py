"""Output files checked before any work, and written with the user's permissions.

:func:`check_output_path` is called by ``build``, ``run`` (``-o``, ``--plot``), ``sweep``,
``bem`` and ``mooring replay`` before they load or simulate anything: an existing file
without ``--force``, a missing folder, or a folder where a file cannot be created (``/proc``,
``/sys``, read-only) is a :class:`~hydrofmu.runtime.errors.ConfigError` naming the user's path. A
missing folder is not created: the message names it and says to create it, so that a typo
in a path never leaves a stray folder tree behind. :func:`public_permissions` gives a file
made private by :func:`tempfile.mkstemp` the mode any tool's output has (``0666 & ~umask``,
0644 under the usual umask). Build time only.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ..runtime.errors import ConfigError


def check_output_path(path: str | Path, option: str, *, force: bool = False) -> Path:
    """Refuse, before any work, an output file that could not be written.

    Parameters
    ----------
    path
        The file the user asked for.
    option
        How the user gave it (``"-o"``, ``"--plot"``), named in the message.
    force
        Overwrite an existing file.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path` (unchanged).

    Raises
    ------
    ConfigError
        The file exists (without ``force``) or is a folder, its folder does not exist, or
        a file cannot be created in that folder; the message names ``path``.
    """
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{option} {path} is a folder; give a file name", value=str(path))
    if path.exists() and not force:
        raise ConfigError(f"{path} exists; choose another path or pass --force",
                          value=str(path))
    folder = path.expanduser().absolute().parent
    if not folder.is_dir():
        raise ConfigError(
            f"cannot write {option} {path}: the folder {folder} does not exist (hydrofmu "
            f"does not create folders; create it first, e.g. mkdir -p {folder})",
            value=str(path))
    try:  # os.access says yes to root in /proc and /sys: try for real
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {option} {path}: no file can be created in {folder} "
            f"({exc.strerror or exc}); choose another {option}", value=str(path)) from exc
    os.close(fd)
    with contextlib.suppress(OSError):
        os.remove(probe)
    return path


def prepare_output_folder(path: str | Path, option: str) -> None:
    """Create the folder of ``path`` (with its parents) and check that a file can be
    created there, for :func:`~hydrofmu.export.fmu.build_fmu`, whose Python API creates
    folders. Raises :class:`ConfigError` naming ``path``."""
    folder = Path(path).expanduser().absolute().parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write {option} {path}: the folder {folder} cannot be "
                          f"created ({exc.strerror or exc})", value=str(path)) from exc
    check_output_path(path, option, force=True)


def public_permissions(path: str | Path) -> None:
    """Give ``path`` the mode a newly created file gets (``0666 & ~umask``, e.g. 0644)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)
