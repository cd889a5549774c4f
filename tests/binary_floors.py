"""What a shared library needs from the system it loads on, read from the file with the
standard library only (no readelf, no otool), for ``tests/test_native_default.py``: the
glibc symbol versions an ELF library requires (``.gnu.version_r``) and, per slice of a
(universal) Mach-O library, the minimum macOS (``LC_BUILD_VERSION`` or
``LC_VERSION_MIN_MACOSX``) and the install name (``LC_ID_DYLIB``)."""

from __future__ import annotations

import struct

SHT_GNU_VERNEED = 0x6FFFFFFE
LC_ID_DYLIB, LC_VERSION_MIN_MACOSX, LC_BUILD_VERSION = 0xD, 0x24, 0x32


def _cstr(data: bytes, start: int) -> str:
    return data[start : data.index(b"\0", start)].decode()


def elf_version_needs(data: bytes) -> dict[str, set[str]]:
    """``{library: {version names}}`` of a 64-bit little-endian ELF file's
    ``.gnu.version_r`` (e.g. ``{"libc.so.6": {"GLIBC_2.2.5", "GLIBC_2.14"}}``)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not an ELF64 LE file"
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize)
                for k in range(shnum)]
    out: dict[str, set[str]] = {}
    for _name, kind, _flags, _addr, offset, _size, link, info, _align, _entsize in sections:
        if kind != SHT_GNU_VERNEED:
            continue
        strtab = sections[link][4]
        pos = offset
        for _ in range(info):  # Elf64_Verneed entries
            _version, cnt, file, aux, nxt = struct.unpack_from("<HHIII", data, pos)
            names = out.setdefault(_cstr(data, strtab + file), set())
            apos = pos + aux
            for _ in range(cnt):  # Elf64_Vernaux entries
                _hash, _flags2, _other, name, anext = struct.unpack_from("<IHHII", data, apos)
                names.add(_cstr(data, strtab + name))
                apos += anext
            pos += nxt
    return out


def glibc_floor(data: bytes) -> tuple[int, ...]:
    """The highest ``GLIBC_x.y`` version an ELF library requires."""
    versions = [tuple(int(p) for p in v[len("GLIBC_"):].split("."))
                for names in elf_version_needs(data).values() for v in names
                if v.startswith("GLIBC_")]
    return max(versions, default=(0,))


def _version(packed: int) -> tuple[int, int, int]:
    return packed >> 16, (packed >> 8) & 0xFF, packed & 0xFF


def macho_slice_facts(data: bytes) -> dict[str, object]:
    """A thin 64-bit Mach-O file's minimum macOS (``minos``) and install name."""
    magic, _, _, _, ncmds = struct.unpack_from("<IiiII", data, 0)
    assert magic == 0xFEEDFACF, f"not a 64-bit Mach-O slice ({magic:#x})"
    pos = 32
    facts: dict[str, object] = {}
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, pos)
        if cmd == LC_BUILD_VERSION:
            _platform, minos = struct.unpack_from("<II", data, pos + 8)
            facts["minos"] = _version(minos)
        elif cmd == LC_VERSION_MIN_MACOSX:
            facts["minos"] = _version(struct.unpack_from("<I", data, pos + 8)[0])
        elif cmd == LC_ID_DYLIB:
            offset, = struct.unpack_from("<I", data, pos + 8)
            facts["install_name"] = _cstr(data, pos + offset)
        pos += size
    return facts


def macho_facts(data: bytes) -> dict[str, dict[str, object]]:
    """:func:`macho_slice_facts` per architecture of a universal (fat) Mach-O file."""
    magic, n = struct.unpack_from(">II", data, 0)
    assert magic == 0xCAFEBABE, "not a universal Mach-O file"
    arch = {0x01000007: "x86_64", 0x0100000C: "arm64"}
    out = {}
    for k in range(n):
        cpu, _, off, size, _ = struct.unpack_from(">iiIII", data, 8 + 20 * k)
        out[arch.get(cpu, hex(cpu))] = macho_slice_facts(data[off : off + size])
    return out
