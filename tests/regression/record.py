"""Record the outputs of today's model into ``recorded.npz`` (see ``cases.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from regression.cases import CASES, RECORD, output_names, run_case


def main() -> None:
    arrays = {}
    for name in CASES:
        arrays[name] = run_case(name)
        arrays[f"{name}:names"] = np.array(output_names(name))
        print(f"{name}: {arrays[name].shape}")
    np.savez_compressed(RECORD, **arrays)
    print(f"wrote {RECORD} ({RECORD.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
