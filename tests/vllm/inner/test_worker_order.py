"""The worker methods in the order vLLM's model runner calls them, with the real metadata.

No GPU here, so the ordered backend's copy thread is replaced by `RecordingBackend`, a subclass
of kvguard's OrderedCopyBackend that records each request and lets the test complete or refuse
it, noting the thread that requested it. vLLM is real.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from vllm.config import VllmConfig
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole
from vllm.v1.core.block_pool import BlockPool
from vllm.v1.outputs import KVConnectorOutput
from vllm.v1.simple_kv_offload.manager import TransferMeta
from vllm.v1.simple_kv_offload.metadata import SimpleCPUOffloadMetadata

from kvguard.runtime import GuardPolicy, OrderedCopyBackend, RefusedCopy
from kvguard.vllm import KVGuardCPUOffloadConnector, KVGuardWorkerMetadata
from kvguard.vllm.engine import engine_aligns_cpu_blocks
from kvguard.vllm.worker import GuardedBackendBridge


class CpuEvent:
    """Stands for a CUDA completion event."""

    def __init__(self, done: bool = True) -> None:
        self.done = done

    def query(self) -> bool:
        return self.done

    def synchronize(self) -> None:
        self.done = True


@dataclass
class Request:
    phase: str
    is_store: bool
    event_idx: int
    src_blocks: list[int]
    dst_blocks: list[int]
    wait_event: Any
    events_list: list[tuple[int, Any]]
    thread: int


class RecordingBackend(OrderedCopyBackend):
    def __init__(self) -> None:
        super().__init__(GuardPolicy.REFUSE)
        self.phase = ""
        self.requests: list[Request] = []
        self.refusals: list[RefusedCopy] = []
        self.drains = 0
        self.fake_counters: dict[str, int] = {}

    def launch_copy(
        self,
        src_blocks: Any,
        dst_blocks: Any,
        is_store: bool,
        event_idx: int,
        events_list: Any,
        wait_event: Any = None,
    ) -> None:
        self.requests.append(
            Request(
                self.phase,
                is_store,
                event_idx,
                list(src_blocks),
                list(dst_blocks),
                wait_event,
                events_list,
                threading.get_ident(),
            )
        )

    def find(self, is_store: bool, event_idx: int) -> Request:
        return next(r for r in self.requests if (r.is_store, r.event_idx) == (is_store, event_idx))

    def complete(self, is_store: bool, event_idx: int, done: bool = True) -> CpuEvent:
        event = CpuEvent(done)
        self.find(is_store, event_idx).events_list.append((event_idx, event))
        return event

    def refuse(self, is_store: bool, event_idx: int) -> None:
        request = self.find(is_store, event_idx)
        self.refusals.append(
            RefusedCopy(event_idx, is_store, tuple(request.src_blocks), tuple(request.dst_blocks), "no_wait")
        )

    def refused_copies(self) -> list[RefusedCopy]:
        refused, self.refusals = self.refusals, []
        return refused

    def drain(self) -> None:
        self.drains += 1

    @property
    def counters(self) -> dict[str, int]:
        return dict(self.fake_counters)


@dataclass
class StepResult:
    finished_recving: set[str]
    load_errors: set[int]
    worker_meta: Any


class StockEventStandIn:
    """The stock worker's own compute-done event (0.24 and later), on a machine without CUDA."""

    def record(self, stream: Any) -> None:
        self.stream = stream


@pytest.fixture
def worker(
    vllm_config: VllmConfig, kv_cache_config: Any, monkeypatch: pytest.MonkeyPatch
) -> KVGuardCPUOffloadConnector:
    connector = KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.WORKER, kv_cache_config)
    assert connector.kvguard_shape is not None
    if connector.kvguard_shape.launch_takes_wait_event:
        # The stock wait_for_save records its own event on torch's current CUDA stream before
        # launching a store; without a GPU, give it a stand-in (kvguard replaces that event).
        monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: "compute stream")
        connector.worker_handler._store_compute_done = StockEventStandIn()
    bridge = GuardedBackendBridge(RecordingBackend())
    connector.attach_bridge(bridge)
    return connector


def backend_of(connector: KVGuardCPUOffloadConnector) -> RecordingBackend:
    assert isinstance(connector.kvguard_backend, RecordingBackend)
    return connector.kvguard_backend


def run_step(connector: KVGuardCPUOffloadConnector, metadata: Any) -> StepResult:
    """One step as the model runner drives the connector (KVConnectorModelRunnerMixin)."""
    backend = backend_of(connector)
    backend.phase = "handle_preemptions"
    connector.handle_preemptions(metadata)
    backend.phase = "bind_connector_metadata"
    connector.bind_connector_metadata(metadata)
    backend.phase = "start_load_kv"
    connector.start_load_kv(None)  # the stock connector does not read the forward context
    backend.phase = "wait_for_save"
    connector.wait_for_save()
    backend.phase = "get_finished"
    _, finished_recving = connector.get_finished(set())
    load_errors = connector.get_block_ids_with_load_errors()
    worker_meta = connector.build_connector_worker_meta()
    connector.clear_connector_metadata()
    return StepResult(set(finished_recving or ()), load_errors, worker_meta)


def store_and_load(store_event: int, load_event: int = -1) -> SimpleCPUOffloadMetadata:
    fields: dict[str, Any] = {}
    if store_event >= 0:
        fields.update(
            store_event=store_event,
            store_gpu_blocks=[1 + store_event, 20],
            store_cpu_blocks=[5 + store_event, 30],
        )
    if load_event >= 0:
        fields.update(
            load_event=load_event,
            load_gpu_blocks=[10, 11],
            load_cpu_blocks=[3, 4],
            load_event_to_reqs={load_event: [f"req-{load_event}"]},
        )
    return SimpleCPUOffloadMetadata(**fields)


def completed_stores(meta: Any) -> dict[int, int]:
    return dict(meta.completed_store_events) if meta is not None else {}


def refused_stores(meta: Any) -> dict[int, int]:
    return dict(getattr(meta, "refused_store_events", {}) or {})


def test_copies_reach_the_backend_from_the_runner_thread_with_no_wait_event_of_their_own(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=0, load_event=0))
    run_step(worker, store_and_load(store_event=1))
    shape = worker.kvguard_shape
    assert shape is not None
    assert [(r.is_store, r.event_idx) for r in backend.requests] == [(False, 0), (True, 0), (True, 1)] or [
        (r.is_store, r.event_idx) for r in backend.requests
    ] == [(True, 0), (False, 0), (True, 1)]
    store = backend.find(True, 0)
    assert store.src_blocks == [1, 20] and store.dst_blocks == [5, 30]
    assert store.phase in shape.store_launch_sites
    assert backend.find(False, 0).phase in shape.load_launch_sites
    # The guard records its event on the requesting thread's compute stream: that thread must be
    # the model runner's, and the stock worker's own event adds nothing to it.
    assert {r.thread for r in backend.requests} == {threading.get_ident()}
    assert [r.wait_event for r in backend.requests] == [None] * 3


def test_completed_copies_are_reported_to_the_scheduler(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    first = run_step(worker, store_and_load(store_event=0, load_event=0))
    assert completed_stores(first.worker_meta) == {} and not first.finished_recving
    backend.complete(True, 0)
    backend.complete(False, 0)
    second = run_step(worker, SimpleCPUOffloadMetadata())
    assert completed_stores(second.worker_meta) == {0: 1}
    assert refused_stores(second.worker_meta) == {}
    assert isinstance(second.worker_meta, KVGuardWorkerMetadata)


def test_a_completion_waits_behind_an_earlier_copy_still_in_flight(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=0))
    run_step(worker, store_and_load(store_event=1))
    backend.complete(True, 1)  # store 1 done while store 0 is still being copied
    held = run_step(worker, SimpleCPUOffloadMetadata())
    assert completed_stores(held.worker_meta) == {}
    backend.complete(True, 0)
    released = run_step(worker, SimpleCPUOffloadMetadata())
    assert completed_stores(released.worker_meta) == {0: 1, 1: 1}


def test_a_copy_thread_error_stops_the_engine_at_the_next_get_finished(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    """Under policy raise a stopped copy's GuardViolation waits in the backend; the worker raises
    it when it next collects finished copies, not only on a later copy request."""
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=0))
    backend._errors.add(RuntimeError("store 0 stopped by the guard"))
    with pytest.raises(RuntimeError, match="store 0 stopped by the guard"):
        worker.get_finished(set())
    backend.complete(True, 0)
    assert completed_stores(run_step(worker, SimpleCPUOffloadMetadata()).worker_meta) == {0: 1}


def test_a_refused_store_is_never_reported_as_stored(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=0))
    run_step(worker, store_and_load(store_event=1))
    backend.complete(True, 1)
    run_step(worker, SimpleCPUOffloadMetadata())  # store 1's completion is held behind 0
    backend.refuse(True, 0)  # the stock worker would now take store 1 as covering store 0
    step = run_step(worker, SimpleCPUOffloadMetadata())
    assert completed_stores(step.worker_meta) == {1: 1}
    assert refused_stores(step.worker_meta) == {0: 1}
    later = run_step(worker, SimpleCPUOffloadMetadata())
    assert later.worker_meta is None


def test_a_refused_load_finishes_its_request_and_reports_load_errors(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=-1, load_event=0))
    backend.refuse(False, 0)
    # The stock worker reads load_event_to_reqs from the metadata bound this step.
    step = run_step(worker, SimpleCPUOffloadMetadata(load_event_to_reqs={0: ["req-0"]}))
    assert step.finished_recving == {"req-0"}
    assert step.load_errors == {10, 11}
    assert run_step(worker, SimpleCPUOffloadMetadata()).load_errors == set()


def test_a_preemption_flush_brings_every_copy_in_first(
    worker: KVGuardCPUOffloadConnector,
) -> None:
    backend = backend_of(worker)
    run_step(worker, store_and_load(store_event=0))
    pending = backend.complete(True, 0, done=False)
    run_step(worker, SimpleCPUOffloadMetadata(need_flush=True))
    assert backend.drains == 1
    assert pending.done  # the stock flush synchronized it: it was in the stock list in time


# Scheduler side: a store refused on any rank leaves the CPU cache untouched.


def test_a_refused_store_frees_its_blocks_without_caching_them(
    vllm_config: VllmConfig, kv_cache_config: Any
) -> None:
    if engine_aligns_cpu_blocks():
        vllm_config.cache_config.simple_cpu_offload_num_blocks = 16
    connector = KVGuardCPUOffloadConnector(vllm_config, KVConnectorRole.SCHEDULER, kv_cache_config)
    manager = connector.scheduler_manager
    gpu_pool = BlockPool(num_gpu_blocks=64, enable_caching=True, hash_block_size=16)
    connector.bind_gpu_block_pool(gpu_pool)
    cpu_pool = manager.cpu_block_pool
    cpu_free, gpu_free = cpu_pool.get_num_free_blocks(), gpu_pool.get_num_free_blocks()
    # A store as the manager schedules one: CPU blocks allocated, GPU blocks held by a touch.
    gpu_blocks = gpu_pool.get_new_blocks(2)
    gpu_pool.free_blocks(gpu_blocks)
    gpu_pool.touch(gpu_blocks)
    cpu_blocks = cpu_pool.get_new_blocks(2)
    manager._store_event_to_blocks[0] = TransferMeta(
        [b.block_id for b in gpu_blocks], [b.block_id for b in cpu_blocks]
    )
    assert manager.has_pending_stores()
    connector.update_connector_output(
        KVConnectorOutput(
            kv_connector_worker_meta=KVGuardWorkerMetadata(
                completed_store_events={}, refused_store_events={0: 1}
            )
        )
    )
    assert 0 not in manager._store_event_to_blocks and not manager.has_pending_stores()
    assert cpu_pool.get_num_free_blocks() == cpu_free
    assert gpu_pool.get_num_free_blocks() == gpu_free
    assert all(b.block_hash is None and b.ref_cnt == 0 for b in cpu_blocks)
