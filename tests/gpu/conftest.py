"""GPU tests: they need a CUDA device and are skipped only when none is available.

Figures the proofs measure are collected in `proof_results` and written as JSON to the path in
$KVGUARD_GPU_RESULTS (benchmarks/runtime_gpu_suite.py sets it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import torch


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "tests/gpu" in str(item.path).replace(os.sep, "/"):
            item.add_marker(skip)


_RESULTS: dict[str, Any] = {}


@pytest.fixture(scope="session")
def proof_results() -> Iterator[dict[str, Any]]:
    yield _RESULTS
    path = os.environ.get("KVGUARD_GPU_RESULTS")
    if path:
        with open(path, "w") as handle:
            json.dump(_RESULTS, handle, indent=2, sort_keys=True)


@pytest.fixture
def compute_stream() -> torch.cuda.Stream:
    """The stream the 'model' writes KV blocks on, as vLLM's per-thread current stream."""
    return torch.cuda.Stream()
