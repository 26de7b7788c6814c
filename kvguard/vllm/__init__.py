"""kvguard's vLLM adapter: `KVGuardCPUOffloadConnector`, loaded by vLLM from this module.

`--kv-transfer-config '{"kv_connector": "KVGuardCPUOffloadConnector",
"kv_connector_module_path": "kvguard.vllm", "kv_role": "kv_both", ...}'`; see docs/vllm.md.
"""

from kvguard.vllm.connector import KVGuardCPUOffloadConnector, KVGuardWorkerMetadata
from kvguard.vllm.settings import KVGuardConfigError, KVGuardSettings
from kvguard.vllm.shape import UnsupportedVllmError, WorkerShape
from kvguard.vllm.stats import KVGuardPromMetrics, KVGuardStats

__all__ = [
    "KVGuardCPUOffloadConnector",
    "KVGuardConfigError",
    "KVGuardPromMetrics",
    "KVGuardSettings",
    "KVGuardStats",
    "KVGuardWorkerMetadata",
    "UnsupportedVllmError",
    "WorkerShape",
]
