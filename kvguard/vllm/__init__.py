"""kvguard's vLLM adapter: `KVGuardCPUOffloadConnector`, loaded by vLLM from this module.

`--kv-transfer-config '{"kv_connector": "KVGuardCPUOffloadConnector",
"kv_connector_module_path": "kvguard.vllm", "kv_role": "kv_both", ...}'`; see docs/vllm.md.

Names are imported on first use: vLLM runs kvguard's general plugin (kvguard.vllm.plugin) in
every process it starts, and that must not pull in the connector and the runtime where
kvguard's connector is not configured.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KVGuardCPUOffloadConnector": "kvguard.vllm.connector",
    "KVGuardWorkerMetadata": "kvguard.vllm.connector",
    "KVGuardConfigError": "kvguard.vllm.settings",
    "KVGuardSettings": "kvguard.vllm.settings",
    "UnsupportedVllmError": "kvguard.vllm.shape",
    "WorkerShape": "kvguard.vllm.shape",
    "KVGuardPromMetrics": "kvguard.vllm.stats",
    "KVGuardStats": "kvguard.vllm.stats",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
