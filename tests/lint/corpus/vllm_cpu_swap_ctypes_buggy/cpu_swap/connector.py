from __future__ import annotations

from dataclasses import dataclass, field

import torch

from vllm.logger import init_logger

from . import cudart
from .constants import cudaEventDisableTiming
from .swapper import BlockSwapper, SwapOutJob

logger = init_logger(__name__)


@dataclass
class ReqToSave:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


@dataclass
class SwapConnectorMetadata:
    reqs_to_save: list[ReqToSave] = field(default_factory=list)


class CPUSwapConnectorWorker:
    def __init__(self, kv_caches: dict[str, torch.Tensor], cpu_caches: dict[str, torch.Tensor]):
        # Both layouts: [num_blocks, 2, block_size, num_kv_heads, head_size]
        self.kv_caches = kv_caches
        self.cpu_caches = cpu_caches
        first = next(iter(kv_caches.values()))
        self.block_bytes = first[0].nbytes
        self.swapper = BlockSwapper(first.device.index)
        self._fence_events: list[int] = []
        self._metadata: SwapConnectorMetadata | None = None

    def bind_connector_metadata(self, metadata: SwapConnectorMetadata) -> None:
        self._metadata = metadata

    def _fence_after_compute(self, copy_stream: int) -> None:
        event = cudart.event_create(cudaEventDisableTiming)
        cudart.event_record(event, torch.cuda.current_stream().cuda_stream)
        cudart.stream_wait_event(copy_stream, event)
        self._fence_events.append(event)

    def _block_ptrs(self, req: ReqToSave) -> tuple[list[int], list[int], list[int]]:
        srcs, dsts = [], []
        for name, gpu in self.kv_caches.items():
            cpu = self.cpu_caches[name]
            for g, c in zip(req.gpu_block_ids, req.cpu_block_ids):
                srcs.append(gpu.data_ptr() + g * self.block_bytes)
                dsts.append(cpu.data_ptr() + c * self.block_bytes)
        return srcs, dsts, [self.block_bytes] * len(srcs)

    def wait_for_save(self) -> None:
        """Called by the model runner once the forward pass is enqueued."""
        assert self._metadata is not None
        for req in self._metadata.reqs_to_save:
            srcs, dsts, sizes = self._block_ptrs(req)
            job = SwapOutJob(req.req_id, srcs, dsts, sizes, on_issue=self._fence_after_compute)
            self.swapper.swap_out(job)

    def get_finished(self, finished_req_ids: set[str]) -> tuple[set[str] | None, set[str] | None]:
        for event in self._fence_events:
            cudart.event_destroy(event)
        self._fence_events.clear()
        done_sending = set(self.swapper.poll())
        return (done_sending or None), None
