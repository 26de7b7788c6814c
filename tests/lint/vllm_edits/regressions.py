"""Six ways a fork of vLLM 0.33.0 re-introduces the store race, each one edit to the fixed
offload path: ANY for stores (as a constant or as a literal in the attributes), or the
compute-done barrier lost (the event not passed, not recorded, passed as None, or not waited
on by the copy thread). Each must be reported by a check of the whole package."""

from __future__ import annotations

from pathlib import Path

OFFLOAD = Path("vllm") / "v1" / "simple_kv_offload"

# name -> (file, text in 0.33.0, text of the regression, the code that must report it)
REGRESSIONS = {
    "store order ANY by constant": (
        "copy_backend.py",
        "            store_stream,\n            src_access_order=CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,",
        "            store_stream,\n            src_access_order=CU_MEMCPY_SRC_ACCESS_ORDER_ANY,",
        "KVG002",
    ),
    "attributes ANY by literal": (
        "cuda_mem_ops.py",
        "attrs = _CUmemcpyAttributes(srcAccessOrder=src_access_order)",
        "attrs = _CUmemcpyAttributes(srcAccessOrder=3)",
        "KVG002",
    ),
    "event not passed": ("worker.py", "                wait_event=self._store_compute_done,\n", "", "KVG001"),
    "event not recorded": (
        "worker.py",
        "            self._store_compute_done.record(torch.cuda.current_stream())\n",
        "",
        "KVG001",
    ),
    "event passed as None": (
        "worker.py",
        "                wait_event=self._store_compute_done,\n",
        "                wait_event=None,\n",
        "KVG001",
    ),
    "copy thread does not wait": (
        "copy_backend.py",
        "            if wait_event is not None:\n                stream.wait_event(wait_event)\n",
        "",
        "KVG001",
    ),
}


def apply(root: Path, name: str) -> Path:
    """Make the regression in the package copied under ``root``; returns the edited file."""
    file, before, after, _ = REGRESSIONS[name]
    path = root / OFFLOAD / file
    text = path.read_text()
    if text.count(before) != 1:
        raise ValueError(f"{path}: the 0.33.0 text to replace is not there once: {before!r}")
    path.write_text(text.replace(before, after))
    return path
