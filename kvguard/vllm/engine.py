"""vLLM's name-based special case for SimpleCPUOffloadConnector, extended to kvguard's class.

From 0.24 on, `EngineCore` asks `kv_transfer_config.has_connector("SimpleCPUOffloadConnector")`
once the workers have allocated their pinned CPU pools and, if so, hands the workers' block
count to the scheduler side (`cache_config.simple_cpu_offload_num_blocks`), so that the
scheduler never hands out a CPU block the workers do not have. A renamed subclass does not match
the name. Importing kvguard.vllm widens `has_connector`: asked for the stock name, it also answers
yes where the configured connector (directly or as a MultiConnector child) is kvguard's. Releases
without `has_connector` (0.19 to 0.23) have no such special case and are left alone.

Installed as a package, kvguard registers a `vllm.general_plugins` entry point
(kvguard/vllm/plugin.py) that applies this in every process vLLM starts, before the engine
asks. Without it (kvguard only on PYTHONPATH), the engine process has it only when it imported
kvguard.vllm first: the connector's worker side lives in it, or it forked from the process that
built the VllmConfig. Where none of these holds, the scheduler side finds the count missing and
refuses to start (`check_engine_aligned_cpu_blocks`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from vllm.config import CacheConfig, KVTransferConfig

STOCK_CONNECTOR = "SimpleCPUOffloadConnector"
KVGUARD_CONNECTOR = "KVGuardCPUOffloadConnector"
KVGUARD_MODULE = "kvguard.vllm"


def engine_aligns_cpu_blocks() -> bool:
    """Whether this release hands the workers' CPU block count to the scheduler by name."""
    fields = {f.name for f in dataclasses.fields(CacheConfig)}
    return "simple_cpu_offload_num_blocks" in fields and hasattr(KVTransferConfig, "has_connector")


def selects_kvguard(connector: str | None, module_path: str | None) -> bool:
    return connector == KVGUARD_CONNECTOR and (module_path or "").startswith(KVGUARD_MODULE)


def install_stock_name_treatment() -> None:
    """Make `has_connector("SimpleCPUOffloadConnector")` true for kvguard's connector too."""
    original: Callable[[Any, str], bool] | None = getattr(KVTransferConfig, "has_connector", None)
    if original is None or getattr(original, "kvguard_extended", False):
        return

    def has_connector(self: KVTransferConfig, connector_name: str) -> bool:
        if original(self, connector_name):
            return True
        if connector_name != STOCK_CONNECTOR:
            return False
        if selects_kvguard(self.kv_connector, self.kv_connector_module_path):
            return True
        children: list[Mapping[str, Any]] = (
            self.kv_connector_extra_config.get("connectors", [])
            if self.kv_connector == "MultiConnector"
            else []
        )
        return any(
            selects_kvguard(child.get("kv_connector"), child.get("kv_connector_module_path"))
            for child in children
        )

    has_connector.kvguard_extended = True  # type: ignore[attr-defined]
    has_connector.__doc__ = original.__doc__
    KVTransferConfig.has_connector = has_connector


def check_engine_aligned_cpu_blocks(vllm_config: Any, extra_config: Mapping[str, Any]) -> None:
    """Refuse to start a scheduler side that the engine's special case passed over."""
    if not engine_aligns_cpu_blocks() or extra_config.get("num_cpu_blocks") is not None:
        return
    if vllm_config.cache_config.simple_cpu_offload_num_blocks is None:
        raise RuntimeError(
            f"{KVGUARD_CONNECTOR}: vLLM's engine did not pass the workers' CPU block count to "
            f"the scheduler side (it does so only for connectors that has_connector("
            f"'{STOCK_CONNECTOR}') names, and kvguard.vllm was not imported in the engine "
            "process before it asked). The scheduler could hand out CPU blocks the workers do "
            "not have. Install kvguard as a package (pip install 'kvguard[vllm]'): its "
            "vllm.general_plugins entry point fixes this in every engine process; or set "
            "kv_connector_extra_config.num_cpu_blocks to a count every worker can hold."
        )
