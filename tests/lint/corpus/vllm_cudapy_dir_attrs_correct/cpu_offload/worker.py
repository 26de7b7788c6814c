"""Connector worker side: loads are issued before the forward, stores after it; both are
ordered behind the compute stream through an event recorded on the forward's thread."""

from dataclasses import dataclass
from typing import List

import torch

from cpu_offload.handler import CpuGpuTransferHandler, Direction


@dataclass
class TransferSpec:
    job_id: int
    src_blocks: List[int]
    dst_blocks: List[int]


class OffloadingConnectorWorker:
    def __init__(self, kv_caches: List[torch.Tensor], num_cpu_blocks: int):
        self.handler = CpuGpuTransferHandler(kv_caches, num_cpu_blocks)

    def start_load_kv(self, loads: List[TransferSpec]) -> None:
        if not loads:
            return
        ready = torch.cuda.Event()
        ready.record()
        for spec in loads:
            self.handler.transfer_async(spec.job_id, Direction.CPU_TO_GPU,
                                        spec.src_blocks, spec.dst_blocks, ready)

    def wait_for_save(self, stores: List[TransferSpec]) -> None:
        if not stores:
            return
        written = torch.cuda.Event()
        written.record()
        for spec in stores:
            self.handler.transfer_async(spec.job_id, Direction.GPU_TO_CPU,
                                        spec.src_blocks, spec.dst_blocks, written)

    def get_finished(self):
        return self.handler.get_finished()
