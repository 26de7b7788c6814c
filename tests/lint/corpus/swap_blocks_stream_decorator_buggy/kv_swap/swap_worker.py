from collections import deque
from dataclasses import dataclass, field

import torch
from vllm import _custom_ops as ops

from kv_swap.streams import run_on_stream


@dataclass
class SwapMetadata:
    # (src block, dst block) pairs
    swap_out: list[tuple[int, int]] = field(default_factory=list)
    swap_in: list[tuple[int, int]] = field(default_factory=list)
    swap_out_reqs: list[str] = field(default_factory=list)
    swap_in_reqs: list[str] = field(default_factory=list)


class CPUSwapWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._meta: SwapMetadata | None = None
        self._inflight: deque[tuple[torch.cuda.Event, bool, list[str]]] = deque()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.gpu_cache = kv_caches
        self.cpu_cache = {
            name: torch.empty((t.shape[0], self.num_cpu_blocks, *t.shape[2:]), dtype=t.dtype,
                              pin_memory=True)
            for name, t in kv_caches.items()
        }
        low, _ = torch.cuda.Stream.priority_range()
        self.swap_out_stream = torch.cuda.Stream(priority=low)
        self.swap_in_stream = torch.cuda.Stream(priority=low)

    def bind_connector_metadata(self, meta: SwapMetadata) -> None:
        self._meta = meta

    @staticmethod
    def _mapping(pairs: list[tuple[int, int]]) -> torch.Tensor:
        return torch.tensor(pairs, dtype=torch.int64, device="cpu").view(-1, 2)

    @run_on_stream("swap_out_stream")
    def _swap_out(self, mapping: torch.Tensor) -> None:
        for name, gpu in self.gpu_cache.items():
            cpu = self.cpu_cache[name]
            for kv in range(gpu.shape[0]):  # K and V planes
                # expect: KVG001
                ops.swap_blocks(gpu[kv], cpu[kv], mapping)

    @run_on_stream("swap_in_stream")
    def _swap_in(self, mapping: torch.Tensor) -> None:
        for name, gpu in self.gpu_cache.items():
            cpu = self.cpu_cache[name]
            for kv in range(gpu.shape[0]):
                # expect: KVG004
                ops.swap_blocks(cpu[kv], gpu[kv], mapping)

    def start_load_kv(self) -> None:
        meta = self._meta
        if meta and meta.swap_in:
            self._swap_in(self._mapping(meta.swap_in))
            self._track(self.swap_in_stream, False, meta.swap_in_reqs)

    def wait_for_save(self) -> None:
        meta = self._meta
        if meta and meta.swap_out:
            self._swap_out(self._mapping(meta.swap_out))
            self._track(self.swap_out_stream, True, meta.swap_out_reqs)

    def _track(self, stream: torch.cuda.Stream, is_store: bool, reqs: list[str]) -> None:
        done = torch.cuda.Event()
        done.record(stream)
        self._inflight.append((done, is_store, list(reqs)))

    def get_finished(self) -> tuple[set[str], set[str]]:
        sent: set[str] = set()
        received: set[str] = set()
        while self._inflight and self._inflight[0][0].query():
            _, is_store, reqs = self._inflight.popleft()
            (sent if is_store else received).update(reqs)
        return sent, received
