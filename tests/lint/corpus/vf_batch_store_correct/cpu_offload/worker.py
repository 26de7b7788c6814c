"""Worker-side handler that moves KV blocks between GPU and pinned CPU."""

from __future__ import annotations

from collections import deque

import torch

from cpu_offload import envs
from cpu_offload.cuda_batch import block_spans, make_memcpy_attributes, submit_batch


class CpuGpuBatchOffloader:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], device_id: int = 0):
        self.layer_names = list(gpu_caches)
        self.gpu_caches = [gpu_caches[name] for name in self.layer_names]
        self.cpu_caches = [
            torch.empty(
                (envs.NUM_CPU_BLOCKS, *t.shape[1:]),
                dtype=t.dtype,
                device="cpu",
                pin_memory=True,
            )
            for t in self.gpu_caches
        ]
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self._store_attr = make_memcpy_attributes(
            envs.STORE_SRC_ACCESS_ORDER, src_on_device=True, device_id=device_id
        )
        self._load_attr = make_memcpy_attributes(
            envs.LOAD_SRC_ACCESS_ORDER, src_on_device=False, device_id=device_id
        )
        self._inflight: deque[tuple[int, bool, torch.cuda.Event]] = deque()

    def store_async(self, job_id: int, gpu_ids: list[int], cpu_ids: list[int]) -> None:
        # The model runner wrote these blocks on its current stream.
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        srcs, dsts, sizes = block_spans(self.gpu_caches, self.cpu_caches, gpu_ids, cpu_ids)
        submit_batch(dsts, srcs, sizes, self._store_attr, self.d2h_stream)
        self._finish(job_id, True, self.d2h_stream)

    def load_async(self, job_id: int, cpu_ids: list[int], gpu_ids: list[int]) -> None:
        # Destination GPU blocks may still be read by the previous step.
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        srcs, dsts, sizes = block_spans(self.cpu_caches, self.gpu_caches, cpu_ids, gpu_ids)
        submit_batch(dsts, srcs, sizes, self._load_attr, self.h2d_stream)
        self._finish(job_id, False, self.h2d_stream)

    def _finish(self, job_id: int, is_store: bool, stream: torch.cuda.Stream) -> None:
        event = torch.cuda.Event()
        event.record(stream)
        self._inflight.append((job_id, is_store, event))

    def wait_for_loads(self) -> None:
        """Make the compute stream consume loaded blocks in order."""
        torch.cuda.current_stream().wait_stream(self.h2d_stream)

    def get_finished(self) -> list[tuple[int, bool]]:
        done: list[tuple[int, bool]] = []
        while self._inflight and self._inflight[0][2].query():
            job_id, is_store, _ = self._inflight.popleft()
            done.append((job_id, is_store))
        return done
