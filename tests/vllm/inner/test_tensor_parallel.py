"""Two tensor-parallel ranks, their outputs joined by vLLM's own aggregator, one scheduler side.

Under tensor parallelism every rank copies its share of each block and reports its own store
completions; vLLM's `KVOutputAggregator` folds the ranks' worker metadata into one, the first
rank's object taking the others in turn, and the scheduler side settles a store once every rank
reported it. A store is settled once both ranks copied their share, and one refused on either rank is released
uncached, whichever rank's object the aggregator starts from.

The ranks here are two connector workers in one process with the recording backend of
test_worker_order (the wiring of real ranks, devices and streams is test_tensor_parallel_ranks.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import torch
from conftest import MakeConfig, plan_kv_cache_config
from test_worker_order import RecordingBackend, backend_of, completed_stores, run_step, store_and_load
from vllm.config import VllmConfig
from vllm.distributed.kv_transfer.kv_connector.utils import KVOutputAggregator
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.v1.core.block_pool import BlockPool
from vllm.v1.outputs import EMPTY_MODEL_RUNNER_OUTPUT, KVConnectorOutput, ModelRunnerOutput
from vllm.v1.simple_kv_offload.manager import TransferMeta
from vllm.v1.simple_kv_offload.metadata import SimpleCPUOffloadMetadata

from kvguard.vllm import KVGuardCPUOffloadConnector
from kvguard.vllm.engine import engine_aligns_cpu_blocks
from kvguard.vllm.worker import GuardedBackendBridge

WORLD_SIZE = 2


@pytest.fixture
def tp_config(make_vllm_config: MakeConfig) -> VllmConfig:
    config = make_vllm_config(tensor_parallel_size=WORLD_SIZE)
    assert config.parallel_config.world_size == WORLD_SIZE
    return config


def make_rank(config: VllmConfig, rank: int, monkeypatch: pytest.MonkeyPatch) -> KVGuardCPUOffloadConnector:
    """A connector worker as rank `rank` of the engine constructs it (torch.distributed's rank)."""
    with monkeypatch.context() as patch:
        patch.setattr(torch.distributed, "is_initialized", lambda: True)
        patch.setattr(torch.distributed, "get_rank", lambda: rank)
        connector = KVGuardCPUOffloadConnector(config, KVConnectorRole.WORKER, plan_kv_cache_config(config))
    assert connector.kvguard_shape is not None
    if connector.kvguard_shape.launch_takes_wait_event:
        monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: "compute stream")
        connector.worker_handler._store_compute_done = _StockEventStandIn()
    connector.attach_bridge(GuardedBackendBridge(RecordingBackend()))
    return connector


class _StockEventStandIn:
    def record(self, stream: Any) -> None:
        self.stream = stream


def runner_output(connector: KVGuardCPUOffloadConnector, worker_meta: Any) -> ModelRunnerOutput:
    """What a rank's model runner returns to the executor: its connector's output."""
    return dataclasses.replace(
        EMPTY_MODEL_RUNNER_OUTPUT,
        kv_connector_output=KVConnectorOutput(
            kv_connector_stats=connector.get_kv_connector_stats(), kv_connector_worker_meta=worker_meta
        ),
    )


@dataclasses.dataclass
class Scheduler:
    connector: KVGuardCPUOffloadConnector
    gpu_pool: BlockPool
    cpu_blocks: list[Any]
    cpu_free: int
    gpu_free: int


def scheduler_with_a_pending_store(config: VllmConfig) -> Scheduler:
    """The scheduler side with store event 0 scheduled as the manager schedules one."""
    if engine_aligns_cpu_blocks():
        config.cache_config.simple_cpu_offload_num_blocks = 16
    connector = KVGuardCPUOffloadConnector(config, KVConnectorRole.SCHEDULER, plan_kv_cache_config(config))
    manager = connector.scheduler_manager
    assert manager._expected_worker_count == WORLD_SIZE
    gpu_pool = BlockPool(num_gpu_blocks=64, enable_caching=True, hash_block_size=16)
    connector.bind_gpu_block_pool(gpu_pool)
    cpu_pool = manager.cpu_block_pool
    cpu_free, gpu_free = cpu_pool.get_num_free_blocks(), gpu_pool.get_num_free_blocks()
    gpu_blocks = gpu_pool.get_new_blocks(2)
    gpu_pool.free_blocks(gpu_blocks)
    gpu_pool.touch(gpu_blocks)
    cpu_blocks = cpu_pool.get_new_blocks(2)
    manager._store_event_to_blocks[0] = TransferMeta(
        [b.block_id for b in gpu_blocks], [b.block_id for b in cpu_blocks]
    )
    return Scheduler(connector, gpu_pool, cpu_blocks, cpu_free, gpu_free)


@pytest.mark.parametrize("refusing_rank", [0, 1])
def test_a_store_refused_on_one_rank_is_released_uncached_whichever_rank_refused(
    tp_config: VllmConfig, monkeypatch: pytest.MonkeyPatch, refusing_rank: int
) -> None:
    ranks = [make_rank(tp_config, rank, monkeypatch) for rank in range(WORLD_SIZE)]
    for connector in ranks:
        run_step(connector, store_and_load(store_event=0))
    for rank, connector in enumerate(ranks):
        if rank == refusing_rank:
            backend_of(connector).refuse(True, 0)
        else:
            backend_of(connector).complete(True, 0)
    outputs = [runner_output(c, run_step(c, SimpleCPUOffloadMetadata()).worker_meta) for c in ranks]

    aggregated = KVOutputAggregator(expected_finished_count=WORLD_SIZE).aggregate(outputs, output_rank=0)
    assert aggregated is not None
    scheduler = scheduler_with_a_pending_store(tp_config)
    scheduler.connector.update_connector_output(aggregated.kv_connector_output)

    manager = scheduler.connector.scheduler_manager
    assert not manager.has_pending_stores(), "the refusal was lost: the store waits forever"
    assert scheduler.connector.scheduler_manager.cpu_block_pool.get_num_free_blocks() == scheduler.cpu_free
    assert scheduler.gpu_pool.get_num_free_blocks() == scheduler.gpu_free
    assert all(b.block_hash is None and b.ref_cnt == 0 for b in scheduler.cpu_blocks)


def test_a_store_is_settled_only_once_every_rank_reported_it(
    tp_config: VllmConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranks = [make_rank(tp_config, rank, monkeypatch) for rank in range(WORLD_SIZE)]
    for connector in ranks:
        run_step(connector, store_and_load(store_event=0))
    scheduler = scheduler_with_a_pending_store(tp_config)
    settled: list[int] = []
    # The stock settling caches the blocks under the hashes the scheduler stamped; this store
    # was set up without them, so only when it is settled is recorded.
    monkeypatch.setattr(scheduler.connector, "_stock_process_store_event", settled.append)
    aggregator = KVOutputAggregator(expected_finished_count=WORLD_SIZE)

    def step() -> list[Any]:
        metas = [run_step(c, SimpleCPUOffloadMetadata()).worker_meta for c in ranks]
        outputs = [runner_output(c, meta) for c, meta in zip(ranks, metas, strict=True)]
        aggregated = aggregator.aggregate(outputs)
        assert aggregated is not None
        scheduler.connector.update_connector_output(aggregated.kv_connector_output)
        return metas

    backend_of(ranks[1]).complete(True, 0)  # rank 1's share arrives first; rank 0's still copies
    assert [completed_stores(meta) for meta in step()] == [{}, {0: 1}]
    assert settled == []  # half of every block (rank 0's heads) is not on the host yet
    backend_of(ranks[0]).complete(True, 0)
    assert [completed_stores(meta) for meta in step()] == [{0: 1}, {}]
    assert settled == [0]
