"""KVGuardCPUOffloadConnector: vLLM's SimpleCPUOffloadConnector with kvguard's ordered copies.

    vllm serve MODEL --enable-prefix-caching --kv-transfer-config '{"kv_connector":
      "KVGuardCPUOffloadConnector", "kv_connector_module_path": "kvguard.vllm",
      "kv_role": "kv_both", "kv_connector_extra_config": {"cpu_bytes_to_use": 8589934592,
      "kvguard": {"policy": "refuse", "verify_fraction": 0.0}}}'

The stock connector does the scheduling, the CPU block pool and the bookkeeping and reads every
extra-config key it knows; kvguard replaces the worker's copy backend (worker.py), settles
refused copies on both sides, exports its counters (stats.py) and keeps the engine's name-based
treatment of the stock connector (engine.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.distributed.kv_transfer.kv_connector.v1.simple_cpu_offload_connector import (
    SimpleCPUOffloadConnector,
)
from vllm.logger import init_logger
from vllm.v1.simple_kv_offload.metadata import SimpleCPUOffloadWorkerMetadata

from kvguard.runtime import OrderedCopyBackend
from kvguard.vllm.engine import (
    KVGUARD_CONNECTOR,
    check_engine_aligned_cpu_blocks,
    install_stock_name_treatment,
)
from kvguard.vllm.settings import KVGuardSettings
from kvguard.vllm.shape import (
    UnsupportedVllmError,
    WorkerShape,
    check_scheduler_shape,
    detect_worker_shape,
)
from kvguard.vllm.stats import KVGuardPromMetrics, KVGuardStats
from kvguard.vllm.worker import GuardedBackendBridge

# A child of vLLM's logger, so `vllm serve` prints it with its own lines.
logger = init_logger("vllm.kvguard")

install_stock_name_treatment()


@dataclass
class KVGuardWorkerMetadata(SimpleCPUOffloadWorkerMetadata):  # type: ignore[misc]
    """The stock worker's completed stores, plus the stores kvguard refused on this rank."""

    refused_store_events: dict[int, int] = field(default_factory=dict)

    def aggregate(self, other: Any) -> KVGuardWorkerMetadata:
        refused = dict(self.refused_store_events)
        for event_idx, count in getattr(other, "refused_store_events", {}).items():
            refused[event_idx] = refused.get(event_idx, 0) + count
        completed = dict(self.completed_store_events)
        for event_idx, count in other.completed_store_events.items():
            completed[event_idx] = completed.get(event_idx, 0) + count
        return KVGuardWorkerMetadata(completed_store_events=completed, refused_store_events=refused)


class KVGuardCPUOffloadConnector(SimpleCPUOffloadConnector):  # type: ignore[misc]
    """The stock CPU offload connector, with every copy ordered behind the compute stream."""

    def __init__(self, vllm_config: Any, role: KVConnectorRole, kv_cache_config: Any) -> None:
        extra_config = vllm_config.kv_transfer_config.kv_connector_extra_config or {}
        self.kvguard_settings = KVGuardSettings.from_extra_config(extra_config)
        super().__init__(vllm_config, role, kv_cache_config)
        self.kvguard_backend: OrderedCopyBackend | None = None
        self.kvguard_shape: WorkerShape | None = None
        self._bridge: GuardedBackendBridge | None = None
        self._rank = self._rank_in_engine(vllm_config)
        self._reported_counters: dict[str, int] = {}
        self._refused_store_events: set[int] = set()
        if self.scheduler_manager is not None:
            check_scheduler_shape(self.scheduler_manager)
            check_engine_aligned_cpu_blocks(vllm_config, extra_config)
            self._stock_process_store_event = self.scheduler_manager._process_store_event
            self.scheduler_manager._process_store_event = self._process_store_event
        if self.worker_handler is not None:
            self._set_up_worker()
        if self.scheduler_manager is not None or self.worker_handler is not None:
            logger.info(
                "kvguard active: %s role=%s rank=%d policy=%s verify_fraction=%g%s",
                KVGUARD_CONNECTOR,
                role.name,
                self._rank,
                self.kvguard_settings.policy.value,
                self.kvguard_settings.verify_fraction,
                f" ({self.kvguard_shape.describe()})" if self.kvguard_shape else "",
            )

    @staticmethod
    def _rank_in_engine(vllm_config: Any) -> int:
        """This worker's rank within its engine: the `rank` label, which the frontend exports
        at 0 for ranks 0 to world_size - 1 of every engine (stats.py)."""
        if not torch.distributed.is_initialized():
            return 0
        # Under data parallelism vLLM numbers global ranks data_parallel_rank * world_size +
        # rank; the engine label already tells the engines apart.
        return int(torch.distributed.get_rank()) % int(vllm_config.parallel_config.world_size)

    # Worker side.

    def _set_up_worker(self) -> None:
        handler = self.worker_handler
        if getattr(handler, "disk_mode", False):
            raise UnsupportedVllmError(
                f"{KVGUARD_CONNECTOR} orders copies to pinned CPU memory only; "
                'kv_offload_backend="disk" is not supported. Use the "cpu" backend.'
            )
        self.kvguard_shape = detect_worker_shape(handler)
        self.kvguard_backend = OrderedCopyBackend(
            self.kvguard_settings.policy, self.kvguard_settings.verify_fraction
        )
        self._bridge = GuardedBackendBridge(self.kvguard_backend)
        if self.kvguard_shape.backend_created_in_constructor:
            # The stock register_kv_caches will init() the bridge with its caches and streams.
            handler._backend.shutdown()
            handler._backend = self._bridge

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        super().register_kv_caches(kv_caches)
        handler = self.worker_handler
        if handler is None or self._bridge is None or handler._backend is self._bridge:
            return
        if handler._backend is None:  # no KV caches to offload: the stock worker made none
            return
        # This release creates its stock backend here: swap it before any copy is requested.
        handler._backend.shutdown()
        self._bridge.init(
            handler.gpu_kv_caches,
            handler.cpu_kv_caches,
            handler.device,
            handler.load_stream,
            handler.store_stream,
        )
        handler._backend = self._bridge

    def attach_bridge(self, bridge: GuardedBackendBridge) -> None:
        """Put an initialised bridge in place of the worker's backend (tests without a GPU)."""
        assert self.worker_handler is not None
        self._bridge = bridge
        self.kvguard_backend = bridge.backend
        self.worker_handler._backend = bridge

    def get_finished(self, finished_req_ids: set[str]) -> tuple[set[str] | None, set[str] | None]:
        self._settle_copies()
        finished: tuple[set[str] | None, set[str] | None] = super().get_finished(finished_req_ids)
        return finished

    def handle_preemptions(self, kv_connector_metadata: Any) -> None:
        if self._bridge is not None and kv_connector_metadata.need_flush:
            # The stock flush synchronizes the events it holds; bring every copy in first.
            self._bridge.drain()
            self._settle_copies()
        super().handle_preemptions(kv_connector_metadata)

    def _settle_copies(self) -> None:
        if self._bridge is None or self.worker_handler is None:
            return
        refused_stores, _ = self._bridge.settle()
        # A refused store must not be taken as done when a later store completes.
        self.worker_handler._pending_store_event_indices.difference_update(refused_stores)

    def build_connector_worker_meta(self) -> Any:
        stock = super().build_connector_worker_meta()
        if self._bridge is None or not (stock or self._bridge.refused_store_events):
            return stock
        refused, self._bridge.refused_store_events = self._bridge.refused_store_events, {}
        completed = stock.completed_store_events if stock is not None else {}
        return KVGuardWorkerMetadata(completed_store_events=completed, refused_store_events=refused)

    def get_block_ids_with_load_errors(self) -> set[int]:
        errors: set[int] = set(super().get_block_ids_with_load_errors())
        if self._bridge is not None:
            errors |= self._bridge.load_error_blocks
            self._bridge.load_error_blocks = set()
        return errors

    def get_kv_connector_stats(self) -> Any:
        if self.kvguard_backend is None:  # the scheduler side: the stock stats, if any
            return super().get_kv_connector_stats()
        counters = self.kvguard_backend.counters
        deltas = {name: value - self._reported_counters.get(name, 0) for name, value in counters.items()}
        self._reported_counters = counters
        stats = KVGuardStats.from_counter_deltas(self._rank, deltas)
        return None if stats.is_empty() else stats

    @classmethod
    def build_kv_connector_stats(cls, data: dict[str, Any] | None = None) -> KVGuardStats:
        return KVGuardStats(data=data) if data is not None else KVGuardStats()

    @classmethod
    def build_prom_metrics(
        cls,
        vllm_config: Any,
        metric_types: dict[type, type],
        labelnames: list[str],
        per_engine_labelvalues: dict[int, list[object]],
    ) -> KVGuardPromMetrics:
        return KVGuardPromMetrics(vllm_config, metric_types, labelnames, per_engine_labelvalues)

    def shutdown(self) -> None:
        super().shutdown()
        if self._bridge is not None:
            self._bridge.shutdown()

    # Scheduler side.

    def update_connector_output(self, connector_output: Any) -> None:
        meta = connector_output.kv_connector_worker_meta
        if isinstance(meta, KVGuardWorkerMetadata) and meta.refused_store_events:
            # A store refused on any rank lacks that rank's part of the blocks: count its
            # refusals as reports, so it is settled once every rank answered, then release it.
            self._refused_store_events.update(meta.refused_store_events)
            reports = dict(meta.completed_store_events)
            for event_idx, count in meta.refused_store_events.items():
                reports[event_idx] = reports.get(event_idx, 0) + count
            connector_output = dataclasses.replace(
                connector_output,
                kv_connector_worker_meta=SimpleCPUOffloadWorkerMetadata(completed_store_events=reports),
            )
        super().update_connector_output(connector_output)

    def _process_store_event(self, event_idx: int) -> None:
        manager = self.scheduler_manager
        if event_idx not in self._refused_store_events:
            self._stock_process_store_event(event_idx)
            return
        self._refused_store_events.discard(event_idx)
        # The stock bookkeeping runs as for a completed store, but nothing enters the CPU cache.
        manager._process_store_completion = self._release_refused_blocks
        try:
            self._stock_process_store_event(event_idx)
        finally:
            del manager._process_store_completion

    def _release_refused_blocks(self, gpu_block_ids: list[int], cpu_block_ids: list[int], *_: Any) -> None:
        manager = self.scheduler_manager
        cpu_blocks = [manager.cpu_block_pool.blocks[block_id] for block_id in cpu_block_ids]
        for block in cpu_blocks:
            block.reset_hash()  # stamped when the store was scheduled; the copy never happened
        manager.cpu_block_pool.free_blocks(cpu_blocks)
        manager._gpu_block_pool.free_blocks(
            manager._gpu_block_pool.blocks[block_id] for block_id in gpu_block_ids
        )
        logger.debug(
            "kvguard: store of %d blocks refused; they were not added to the CPU cache",
            len(cpu_block_ids),
        )
