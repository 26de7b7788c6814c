"""One tensor-parallel rank of an engine, as a worker process runs it, on a machine without a GPU.

`run_rank` is started once per rank (spawned, as vLLM's multiprocess executor starts its
workers). It joins vLLM's real parallel state over gloo (torch.distributed, then
`ensure_model_parallel_initialized`), makes the rank's device current as vLLM's GPU worker does,
constructs kvguard's connector through vLLM's factory, registers the rank's KV caches through the
stock `register_kv_caches` and drives a store and a load in the model runner's order. What the
rank saw comes back as a `RankReport`; its connector outputs are pickled as the executor's worker
processes send theirs.

CUDA is stood in for, and only CUDA: runtime_sim (the backend's copies become host copies, the
guard's driver event calls are logged), plus a per-device model of the current device and of
each thread's current stream on every device (`DeviceModel`), so that a guard or stream bound to
another device than the rank's would read or record on another stream than the rank's compute
stream. The rank's KV caches are host tensors that report `cuda:<rank>` as their device.
"""

from __future__ import annotations

import contextlib
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch

WORLD_SIZE = 2
STORE_GPU, STORE_CPU = [1, 2], [5, 6]
LOAD_CPU, LOAD_GPU = STORE_CPU, [10, 11]  # the stored blocks, back into other GPU blocks
LOAD_REQUEST = "req-restored"


@dataclass
class RankReport:
    rank: int
    tp_rank: int  # vLLM's get_tensor_model_parallel_rank()
    rank_label: int  # the connector's rank in its engine (the `rank` label)
    cache_device: str  # the device the rank's KV caches report
    compute_stream: int  # the runner thread's current stream on the rank's device
    other_device_stream: int  # its current stream on the other rank's device
    store_stream: tuple[int, int]  # (handle, device index) of the stock worker's streams
    load_stream: tuple[int, int]
    stream_reads: set[int]  # devices whose current stream the guard read
    copy_thread_devices: list[int]  # devices the copy thread made current
    records: list[tuple[int, int]]  # the driver's (event, stream) records, in order
    waits: list[tuple[int, int]]  # the driver's (stream, event) waits, in order
    stored: bool  # the CPU blocks hold the stored GPU blocks
    loaded: bool  # the loaded GPU blocks hold them back
    num_cpu_blocks: int
    outputs: list[Any] = field(default_factory=list)  # each step's KVConnectorOutput


class _Stream:
    """A CUDA stream stand-in that knows its device (runtime_sim's streams do not)."""

    def __init__(self, device: Any = None, priority: int = 0, handle: int | None = None) -> None:
        from tests.runtime import runtime_sim

        self._sim = runtime_sim.SimStream(handle=handle)
        self.cuda_stream = self._sim.cuda_stream
        self.device_index = DEVICES.current_device() if device is None else _index(device)

    @staticmethod
    def priority_range() -> tuple[int, int]:
        return 0, -1

    def wait_event(self, event: Any) -> None:
        self._sim.wait_event(event)

    def synchronize(self) -> None:
        return None

    def query(self) -> bool:
        return True


def _index(device: Any) -> int:
    if isinstance(device, int):
        return device
    index = torch.device(device).index
    return DEVICES.current_device() if index is None else int(index)


class DeviceModel:
    """Each thread's current device and its current stream on every device (the default stream,
    handle 0, until one is made current), as the CUDA runtime keeps them."""

    def __init__(self) -> None:
        self._local = threading.local()
        self.stream_reads: set[int] = set()
        self.set_device_calls: list[tuple[str, int]] = []

    def current_device(self) -> int:
        device: int = getattr(self._local, "device", 0)
        return device

    def set_device(self, device: Any) -> None:
        index = _index(device)
        self.set_device_calls.append((threading.current_thread().name, index))
        self._local.device = index

    def _streams(self) -> dict[int, Any]:
        if not hasattr(self._local, "streams"):
            self._local.streams = {}
        streams: dict[int, Any] = self._local.streams
        return streams

    def current_stream(self, device: Any = None) -> Any:
        index = self.current_device() if device is None else _index(device)
        return self._streams().get(index) or _Stream(index, handle=0)

    def raw_current_stream(self, index: int) -> int:
        """torch._C._cuda_getCurrentRawStream: what the guard reads."""
        self.stream_reads.add(index)
        handle: int = self.current_stream(index).cuda_stream
        return handle

    @contextlib.contextmanager
    def stream(self, use: Any) -> Iterator[None]:
        streams = self._streams()
        previous = streams.get(use.device_index)
        streams[use.device_index] = use
        try:
            yield
        finally:
            if previous is None:
                del streams[use.device_index]
            else:
                streams[use.device_index] = previous

    def install(self, monkeypatch: pytest.MonkeyPatch) -> Any:
        """runtime_sim's stand-ins, made device-aware; returns the driver's logged event calls."""
        from tests.runtime import runtime_sim

        events = runtime_sim.install(monkeypatch)
        for name, value in {
            "Stream": _Stream,
            "current_stream": self.current_stream,
            "stream": self.stream,
            "set_device": self.set_device,
            "current_device": self.current_device,
        }.items():
            monkeypatch.setattr(torch.cuda, name, value)
        monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", self.raw_current_stream, raising=False)
        monkeypatch.setattr(runtime_sim, "current_stream", self.current_stream)
        return events


DEVICES = DeviceModel()


class OnDevice(torch.Tensor):
    """A host tensor that reports a CUDA device: a rank's KV cache as the stock worker reads it."""

    __torch_function__ = torch._C._disabled_torch_function_impl
    sim_device: torch.device

    @property  # type: ignore[override]
    def device(self) -> torch.device:
        return self.sim_device


class _HostTorch(types.ModuleType):
    """`torch` as the stock worker module sees it: device memory is host memory here."""

    def __getattr__(self, name: str) -> Any:
        return getattr(torch, name)

    @staticmethod
    def empty(*args: Any, device: Any = None, **kwargs: Any) -> torch.Tensor:
        on_host = device is not None and torch.device(device).type == "cuda"
        return torch.empty(*args, device="cpu" if on_host else device, **kwargs)


def _mark_pinned(tensor: torch.Tensor) -> None:
    tensor.sim_pinned_host = True  # type: ignore[attr-defined]  # runtime_sim's pinned memory


def stand_in_for_cuda_in_the_stock_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm.v1.simple_kv_offload import worker as stock_worker
    from vllm.v1.simple_kv_offload.copy_backend import DmaCopyBackend

    monkeypatch.setattr(stock_worker, "torch", _HostTorch("torch"))
    monkeypatch.setattr(stock_worker, "pin_tensor", _mark_pinned)
    if hasattr(stock_worker, "PIN_MEMORY"):
        monkeypatch.setattr(stock_worker, "PIN_MEMORY", True)
    else:
        monkeypatch.setattr(stock_worker, "is_pin_memory_available", lambda: True)
    # Later releases initialise the stock copy backend (driver copy parameters) before kvguard
    # replaces it; it never copies.
    monkeypatch.setattr(DmaCopyBackend, "init", lambda self, *args, **kwargs: None)


def rank_kv_caches(kv_cache_config: Any, rank: int) -> dict[str, torch.Tensor]:
    """The rank's KV caches as vLLM's model runner allocates them (one allocation per planned
    tensor, shared by its layers), filled with values of this rank."""
    generator = torch.Generator().manual_seed(rank)
    caches: dict[str, torch.Tensor] = {}
    for planned in kv_cache_config.kv_cache_tensors:
        allocation = torch.randint(-128, 127, (planned.size,), dtype=torch.int8, generator=generator)
        view = allocation.view(torch.float16).view(kv_cache_config.num_blocks, -1).as_subclass(OnDevice)
        view.sim_device = torch.device("cuda", rank)
        for layer in getattr(planned, "layers", None) or planned.shared_by:
            caches[layer] = view
    return caches


def run_rank(rank: int, init_method: str, model: str, reports: Any) -> None:
    """A worker process of an engine with tensor_parallel_size=2: rank `rank`."""
    from conftest import build_vllm_config, plan_kv_cache_config
    from vllm.config import set_current_vllm_config
    from vllm.distributed import parallel_state
    from vllm.distributed.kv_transfer.kv_connector.factory import KVConnectorFactory
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorRole

    config = build_vllm_config(Path(model), tensor_parallel_size=WORLD_SIZE)
    kv_cache_config = plan_kv_cache_config(config)
    monkeypatch = pytest.MonkeyPatch()
    with set_current_vllm_config(config):
        parallel_state.init_distributed_environment(
            world_size=WORLD_SIZE,
            rank=rank,
            distributed_init_method=init_method,
            local_rank=rank,
            backend="gloo",
        )
        parallel_state.ensure_model_parallel_initialized(WORLD_SIZE, 1)
        events = DEVICES.install(monkeypatch)
        stand_in_for_cuda_in_the_stock_worker(monkeypatch)
        torch.cuda.set_device(rank)  # as vLLM's GPU worker does in init_device
        compute = torch.cuda.Stream()
        # The runner thread also has a current stream on the other rank's device: a guard bound
        # to that device would record there rather than fail.
        other_device = torch.cuda.Stream(device=WORLD_SIZE - 1 - rank)
        connector = KVConnectorFactory.create_connector(config, KVConnectorRole.WORKER, kv_cache_config)
        handler = connector.worker_handler
        if hasattr(handler, "_store_compute_done"):  # the stock worker's own event (0.24 and later)
            from tests.runtime import runtime_sim

            handler._store_compute_done = runtime_sim.SimEvent()
        kv_caches = rank_kv_caches(kv_cache_config, rank)
        # The model runner's thread runs the forward on `compute`.
        with torch.cuda.stream(other_device), torch.cuda.stream(compute):
            connector.register_kv_caches(kv_caches)
            outputs = drive(connector)
        gpu, cpu = handler.gpu_kv_caches, handler.cpu_kv_caches
        report = RankReport(
            rank=rank,
            tp_rank=parallel_state.get_tensor_model_parallel_rank(),
            rank_label=connector._rank,
            cache_device=str(next(iter(kv_caches.values())).device),
            compute_stream=compute.cuda_stream,
            other_device_stream=other_device.cuda_stream,
            store_stream=(handler.store_stream.cuda_stream, handler.store_stream.device_index),
            load_stream=(handler.load_stream.cuda_stream, handler.load_stream.device_index),
            stream_reads=set(DEVICES.stream_reads),
            copy_thread_devices=[i for name, i in DEVICES.set_device_calls if name == "kvguard-copy"],
            records=[(c[1], c[2]) for c in events.calls if c[0] == "record"],
            waits=[(c[1], c[2]) for c in events.calls if c[0] == "wait"],
            stored=all(torch.equal(cpu[n][STORE_CPU], gpu[n][STORE_GPU]) for n in gpu),
            loaded=all(torch.equal(gpu[n][LOAD_GPU], gpu[n][STORE_GPU]) for n in gpu),
            num_cpu_blocks=handler.num_cpu_blocks,
            outputs=outputs,
        )
        connector.shutdown()
        monkeypatch.undo()
        reports.put(report)
        parallel_state.destroy_model_parallel()
        parallel_state.destroy_distributed_environment()


def drive(connector: Any) -> list[Any]:
    """A store, then a load of the stored blocks, in the model runner's order; each step's
    connector output as the worker returns it to the executor."""
    from vllm.v1.outputs import KVConnectorOutput
    from vllm.v1.simple_kv_offload.metadata import SimpleCPUOffloadMetadata

    steps = [
        SimpleCPUOffloadMetadata(store_event=0, store_gpu_blocks=STORE_GPU, store_cpu_blocks=STORE_CPU),
        SimpleCPUOffloadMetadata(
            load_event=0,
            load_gpu_blocks=LOAD_GPU,
            load_cpu_blocks=LOAD_CPU,
            load_event_to_reqs={0: [LOAD_REQUEST]},
        ),
        # The scheduler names the requests of loads in flight in every step's metadata.
        SimpleCPUOffloadMetadata(load_event_to_reqs={0: [LOAD_REQUEST]}),
    ]
    outputs = []
    for metadata in steps:
        connector.handle_preemptions(metadata)
        connector.bind_connector_metadata(metadata)
        connector.start_load_kv(None)
        connector.wait_for_save()
        finished_sending, finished_recving = connector.get_finished(set())
        outputs.append(
            KVConnectorOutput(
                finished_sending=finished_sending,
                finished_recving=finished_recving,
                kv_connector_stats=connector.get_kv_connector_stats(),
                kv_connector_worker_meta=connector.build_connector_worker_meta(),
                invalid_block_ids=connector.get_block_ids_with_load_errors(),
            )
        )
        connector.clear_connector_metadata()
        connector.kvguard_backend.drain()  # the GPU catches up between steps
    return outputs
