"""Output files checked before any work, and written with the user's permissions.

:func:`check_output_path` is called by ``build``, ``run`` (``-o``, ``--plot``), ``sweep``,
``bem`` and ``mooring replay`` before they load or simulate anything: an existing file
without ``--force``, a missing folder, or a folder where a file cannot be created (``/proc``,
``/sys``, read-only), a file where a folder of the path should be (``/etc/hostname/x.fmu``)
or a wrong suffix is a :class:`~hydrofmu.runtime.errors.ConfigError` naming the user's path. A
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


def check_output_path(path: str | Path, option: str, *, force: bool = False,
                      suffix: str | None = None) -> Path:
    """Refuse, before any work, an output file that could not be written.

    Parameters
    ----------
    path
        The file the user asked for.
    option
        How the user gave it (``"-o"``, ``"--plot"``), named in the message.
    force
        Overwrite an existing file.
    suffix
        The ending the file must have (``".fmu"``, case-insensitive); None: any.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path` (unchanged).

    Raises
    ------
    ConfigError
        The file does not end with ``suffix``, exists (without ``force``) or is a folder,
        its folder does not exist (or a file stands where a folder of its path should
        be), or a file cannot be created in that folder; the message names ``path``.
    """
    path = Path(path)
    if suffix is not None and path.suffix.lower() != suffix.lower():
        raise ConfigError(f"{option} {path} must end with '{suffix}'; e.g. "
                          f"{path.with_suffix(suffix) if path.name else 'model' + suffix}",
                          value=str(path))
    if path.is_dir():
        raise ConfigError(f"{option} {path} is a folder; give a file name", value=str(path))
    if path.exists() and not force:
        raise ConfigError(f"{path} exists; choose another path or pass --force",
                          value=str(path))
    folder = path.expanduser().absolute().parent
    blocker = file_in_the_way(folder)
    if blocker is not None:
        raise ConfigError(
            f"cannot write {option} {path}: {blocker} is a file, not a folder (a file "
            f"cannot be created inside a file); choose another {option}", value=str(path))
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


def file_in_the_way(folder: str | Path) -> Path | None:
    """The nearest existing part of ``folder``'s path when it is a file, not a folder
    (``/etc/hostname`` for ``/etc/hostname/sub``); None when the nearest existing part is a
    folder (``folder`` itself, or the ancestor under which it is missing)."""
    folder = Path(folder).expanduser().absolute()
    for part in (folder, *folder.parents):
        if part.exists():
            return None if part.is_dir() else part
    return None


def prepare_output_folder(path: str | Path, option: str) -> None:
    """Create the folder of ``path`` (with its parents) and check that a file can be
    created there, for :func:`~hydrofmu.export.fmu.build_fmu`, whose Python API creates
    folders. Raises :class:`ConfigError` naming ``path``."""
    folder = Path(path).expanduser().absolute().parent
    blocker = file_in_the_way(folder)
    if blocker is not None:
        raise ConfigError(f"cannot write {option} {path}: {blocker} is a file, not a folder",
                          value=str(path))
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
