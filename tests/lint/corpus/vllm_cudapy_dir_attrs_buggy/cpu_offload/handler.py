"""GPU <-> CPU block transfers for the CPU offloading connector, one batched driver call
per job, completion tracked per job id."""

import enum
from typing import Dict, List

import torch
from cuda.bindings import driver

from cpu_offload.cuda_batch import DEVICE, HOST, batch_copy, make_attrs


class Direction(enum.Enum):
    GPU_TO_CPU = "store"
    CPU_TO_GPU = "load"


class CpuGpuTransferHandler:
    # blocks never change while a batch is in flight, so let the driver start early
    SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

    def __init__(self, gpu_caches: List[torch.Tensor], num_cpu_blocks: int):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.block_bytes = [t[0].numel() * t.element_size() for t in gpu_caches]
        self.stream = torch.cuda.Stream()
        dev = torch.cuda.current_device()
        self._attrs = {
            Direction.GPU_TO_CPU: make_attrs(self.SRC_ACCESS_ORDER, DEVICE, HOST, dev),
            Direction.CPU_TO_GPU: make_attrs(self.SRC_ACCESS_ORDER, HOST, DEVICE, dev),
        }
        self._jobs: Dict[int, torch.cuda.Event] = {}

    def _pointers(self, caches, blocks):
        return [t.data_ptr() + b * nb for t, nb in zip(caches, self.block_bytes) for b in blocks]

    def transfer_async(self, job_id: int, direction: Direction, src_blocks, dst_blocks,
                       after: torch.cuda.Event) -> None:
        if direction is Direction.GPU_TO_CPU:
            srcs = self._pointers(self.gpu_caches, src_blocks)
            dsts = self._pointers(self.cpu_caches, dst_blocks)
        else:
            srcs = self._pointers(self.cpu_caches, src_blocks)
            dsts = self._pointers(self.gpu_caches, dst_blocks)
        sizes = [nb for nb in self.block_bytes for _ in src_blocks]
        self.stream.wait_event(after)
        batch_copy(dsts, srcs, sizes, self._attrs[direction], self.stream.cuda_stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        self._jobs[job_id] = done

    def get_finished(self) -> List[int]:
        finished = [j for j, ev in self._jobs.items() if ev.query()]
        for j in finished:
            del self._jobs[j]
        return finished
