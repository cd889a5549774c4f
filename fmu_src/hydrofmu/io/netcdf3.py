"""Is a NetCDF3 file whole? Its header against its size (build time; standard library).

The netCDF-C library reads a truncated NetCDF3 (classic, 64-bit offset or CDF-5) file
without an error: the missing bytes come back as fill values or zeros, which a reader then
reports as missing DOFs, a missing variable or ``rho = 0.0``. The header says where every
variable's data begins and how large it is (and how many records there are), so the size
the file must have is known before reading any data: :func:`netcdf3_problem` compares it
with the file's size. The layout is the one of the NetCDF classic format specification
(Unidata, "NetCDF File Format Specification", classic and 64-bit offset; CDF-5).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

#: Magic bytes and format names of the NetCDF3 variants (the 4th byte is the version).
MAGIC = {b"CDF\x01": "classic", b"CDF\x02": "64-bit offset", b"CDF\x05": "CDF-5"}
_NC_DIMENSION, _NC_VARIABLE, _NC_ATTRIBUTE = 10, 11, 12
#: Bytes of one value of each nc_type (1 byte, 2 char, 3 short, 4 int, 5 float, 6 double;
#: CDF-5: 7 ubyte, 8 ushort, 9 uint, 10 int64, 11 uint64).
_TYPE_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8}
_STREAMING = (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)


class _Truncated(Exception):
    """The header ends before its own description does."""


class _Header:
    """A reader of the header's big-endian integers and padded names."""

    def __init__(self, fh: BinaryIO, version: int) -> None:
        self.fh = fh
        self.count_fmt = ">Q" if version == 5 else ">I"    # nelems, dim lengths, numrecs
        self.offset_fmt = ">I" if version == 1 else ">Q"   # a variable's begin

    def read(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) < n:
            raise _Truncated
        return data

    def unpack(self, fmt: str) -> int:
        return int(struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0])

    def count(self) -> int:
        return self.unpack(self.count_fmt)

    def name(self) -> str:
        n = self.count()
        return self.read(n + (-n) % 4)[:n].decode("utf-8", "replace")

    def skip_attributes(self) -> None:
        tag, n = self.unpack(">I"), self.count()
        if tag not in (0, _NC_ATTRIBUTE):
            raise ValueError(f"attribute list tag {tag}")
        for _ in range(n):
            self.name()
            nc_type = self.unpack(">I")
            size = _TYPE_SIZE.get(nc_type)
            if size is None:
                raise ValueError(f"unknown nc_type {nc_type}")
            nbytes = self.count() * size
            self.read(nbytes + (-nbytes) % 4)


def _required_size(h: _Header) -> tuple[int, int]:
    """``(bytes the data needs, bytes of the header)`` from a header after its magic."""
    numrecs = h.count()
    tag, n_dims = h.unpack(">I"), h.count()
    if tag not in (0, _NC_DIMENSION):
        raise ValueError(f"dimension list tag {tag}")
    dims = []
    for _ in range(n_dims):
        h.name()
        dims.append(h.count())
    h.skip_attributes()  # global attributes
    tag, n_vars = h.unpack(">I"), h.count()
    if tag not in (0, _NC_VARIABLE):
        raise ValueError(f"variable list tag {tag}")
    end = 0
    records = []  # (begin, bytes per record) of each record variable
    for _ in range(n_vars):
        h.name()
        ids = [h.count() for _ in range(h.count())]
        h.skip_attributes()
        size = _TYPE_SIZE.get(h.unpack(">I"))
        if size is None or any(i >= len(dims) for i in ids):
            raise ValueError("bad variable type or dimension id")
        h.count()  # vsize (capped for large variables: recomputed from the shape)
        begin = h.unpack(h.offset_fmt)
        shape = [dims[i] for i in ids]
        if shape and shape[0] == 0:  # the record dimension
            nbytes = size
            for d in shape[1:]:
                nbytes *= d
            records.append((begin, nbytes))
        else:
            nbytes = size
            for d in shape:
                nbytes *= d
            end = max(end, begin + nbytes)
    if records and numrecs not in _STREAMING and numrecs > 0:
        # One record holds every record variable, each padded to 4 bytes unless it is the
        # only one.
        recsize = (records[0][1] if len(records) == 1
                   else sum(n + (-n) % 4 for _, n in records))
        end = max(end, *(b + (numrecs - 1) * recsize + n for b, n in records))
    return end, h.fh.tell()


def netcdf3_problem(path: str | Path) -> str | None:
    """Why a NetCDF3 file cannot be whole, or None (also None for any other format).

    Parameters
    ----------
    path
        The file.

    Returns
    -------
    str or None
        ``"<path>: truncated <format> NetCDF3 file: ..."`` with the size the header implies
        and the file's size, or a sentence on a header that cannot be parsed, or on an
        empty file (whatever its format).
    """
    p = Path(path)
    with p.open("rb") as fh:
        magic = fh.read(4)
        if not magic:
            return f"{p}: empty file (0 bytes): truncated or never written; regenerate it"
        if len(magic) < 4 and b"CDF".startswith(magic[:3]):
            return (f"{p}: truncated NetCDF3 file: the file ends inside its 4-byte "
                    f"signature ({len(magic)} bytes); regenerate or re-download it")
        if magic not in MAGIC:
            return None
        kind = MAGIC[magic]
        try:
            needed, header = _required_size(_Header(fh, magic[3]))
        except _Truncated:
            return (f"{p}: truncated {kind} NetCDF3 file: the file ends inside its own "
                    f"header ({p.stat().st_size} bytes); regenerate or re-download it")
        except (ValueError, struct.error) as exc:
            return (f"{p}: corrupt {kind} NetCDF3 file: its header cannot be parsed ({exc}); "
                    "regenerate or re-download it")
    size = p.stat().st_size
    if size < needed:
        return (f"{p}: truncated {kind} NetCDF3 file: its header ({header} bytes) places "
                f"data up to byte {needed} but the file has {size} bytes "
                f"({needed - size} missing); regenerate or re-download it")
    return None
