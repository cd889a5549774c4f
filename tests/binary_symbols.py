"""Exported symbol names of a Windows DLL (PE32+, with its machine and imported DLLs) and of a
(universal) Mach-O library, read with the standard library only (no platform tool needed),
for ``tests/test_native_fmu.py`` and ``tests/test_win_shim.py``."""

from __future__ import annotations

import struct


def _pe(data: bytes) -> tuple[int, int, object]:
    """(COFF machine, offset of the optional header, RVA -> file offset) of a PE32+ file."""
    assert data[:2] == b"MZ", "not a PE file"
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    assert data[pe : pe + 4] == b"PE\0\0"
    machine, n_sections = struct.unpack_from("<HH", data, pe + 4)
    opt_size, = struct.unpack_from("<H", data, pe + 20)
    opt = pe + 24
    assert struct.unpack_from("<H", data, opt)[0] == 0x20B, "not PE32+"
    sections = []
    for k in range(n_sections):
        s = opt + opt_size + 40 * k
        vsize, vaddr, rsize, raw = struct.unpack_from("<IIII", data, s + 8)
        sections.append((vaddr, max(vsize, rsize), raw))

    def offset(rva: int) -> int:
        for vaddr, size, raw in sections:
            if vaddr <= rva < vaddr + size:
                return rva - vaddr + raw
        raise ValueError(f"RVA {rva:#x} in no section")

    return machine, opt, offset


def _cstring(data: bytes, start: int) -> str:
    return data[start : data.index(b"\0", start)].decode()


def pe_machine(data: bytes) -> int:
    """The COFF machine of a PE32+ file (0x8664: x86-64)."""
    return _pe(data)[0]


def pe_exports(data: bytes) -> set[str]:
    """Names in the export directory of a PE32+ DLL."""
    _, opt, offset = _pe(data)
    export_rva, _ = struct.unpack_from("<II", data, opt + 112)
    exp = offset(export_rva)
    n_names, _, names_rva = struct.unpack_from("<III", data, exp + 24)
    out = set()
    for k in range(n_names):
        rva, = struct.unpack_from("<I", data, offset(names_rva) + 4 * k)
        out.add(_cstring(data, offset(rva)))
    return out


def pe_imports(data: bytes) -> list[str]:
    """Names of the DLLs a PE32+ file imports, in its import directory's order."""
    _, opt, offset = _pe(data)
    import_rva, _ = struct.unpack_from("<II", data, opt + 120)
    out: list[str] = []
    at = offset(import_rva) if import_rva else None
    while at is not None:
        entry = struct.unpack_from("<IIIII", data, at)
        if entry == (0, 0, 0, 0, 0):
            break
        out.append(_cstring(data, offset(entry[3])))
        at += 20
    return out


def _macho_thin_exports(data: bytes) -> set[str]:
    magic, _, _, _, ncmds = struct.unpack_from("<IiiII", data, 0)
    assert magic == 0xFEEDFACF, f"not a 64-bit Mach-O slice ({magic:#x})"
    pos = 32
    out = set()
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, pos)
        if cmd == 0x2:  # LC_SYMTAB
            symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", data, pos + 8)
            for k in range(nsyms):
                strx, ntype, _, _, _ = struct.unpack_from("<IBBHQ", data, symoff + 16 * k)
                if ntype & 0x01 and (ntype & 0x0E) == 0x0E:  # N_EXT, defined in a section
                    start = stroff + strx
                    out.add(data[start : data.index(b"\0", start)].decode().lstrip("_"))
        pos += size
    return out


def macho_exports(data: bytes) -> dict[str, set[str]]:
    """Exported names per architecture of a universal (fat) Mach-O file."""
    magic, n = struct.unpack_from(">II", data, 0)
    assert magic == 0xCAFEBABE, "not a universal Mach-O file"
    arch = {0x01000007: "x86_64", 0x0100000C: "arm64"}
    out = {}
    for k in range(n):
        cpu, _, off, size, _ = struct.unpack_from(">iiIII", data, 8 + 20 * k)
        out[arch.get(cpu, hex(cpu))] = _macho_thin_exports(data[off : off + size])
    return out
