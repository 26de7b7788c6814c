"""Rebuild compare.ptx from compare.cu: `python3 -m kvguard.runtime.build_compare` (NVRTC 12.8,
`pip install nvidia-cuda-nvrtc-cu12==12.8.93`). A module of its own, which the package does
not import, so that running it does not re-import kvguard.runtime.compare."""

from __future__ import annotations

from kvguard.runtime.compare import PTX, compile_ptx


def main() -> None:
    PTX.write_bytes(compile_ptx())
    print(f"wrote {PTX}")


if __name__ == "__main__":
    main()
