"""Block manager driving the mover on one side stream."""
from typing import Dict, List, Tuple

import torch

from .cuda_rt import batch_copy
from .mover import Move, attributes


class KVBlockManager:
    def __init__(self, num_gpu_blocks: int, num_cpu_blocks: int, block_bytes: int,
                 device: int = 0):
        self.block_bytes = block_bytes
        self.gpu = torch.empty((num_gpu_blocks, block_bytes), dtype=torch.uint8,
                               device=f"cuda:{device}")
        self.cpu = torch.empty((num_cpu_blocks, block_bytes), dtype=torch.uint8,
                               pin_memory=True)
        self.stream = torch.cuda.Stream(device=device)
        self.attrs = {kind: attributes(kind, device) for kind in Move}
        self.offload_done: Dict[int, torch.cuda.Event] = {}

    def _gpu(self, b: int) -> int:
        return self.gpu.data_ptr() + b * self.block_bytes

    def _cpu(self, b: int) -> int:
        return self.cpu.data_ptr() + b * self.block_bytes

    def offload(self, pairs: List[Tuple[int, int]]) -> None:
        self.stream.wait_stream(torch.cuda.current_stream())
        batch_copy([self._cpu(c) for _, c in pairs], [self._gpu(g) for g, _ in pairs],
                   self.block_bytes, self.attrs[Move.OFFLOAD], self.stream.cuda_stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        for _, c in pairs:
            self.offload_done[c] = done

    def onboard(self, pairs: List[Tuple[int, int]]) -> None:
        for c, _ in pairs:
            done = self.offload_done.pop(c, None)
            if done is not None:
                done.synchronize()
        self.stream.wait_stream(torch.cuda.current_stream())
        batch_copy([self._gpu(g) for _, g in pairs], [self._cpu(c) for c, _ in pairs],
                   self.block_bytes, self.attrs[Move.ONBOARD], self.stream.cuda_stream)
        torch.cuda.current_stream().wait_stream(self.stream)

    def compact(self, moves: List[Tuple[int, int]]) -> None:
        """(from block, to block) pairs; the caller rewrites the block tables after."""
        self.stream.wait_stream(torch.cuda.current_stream())
        batch_copy([self._gpu(dst) for _, dst in moves], [self._gpu(src) for src, _ in moves],
                   self.block_bytes, self.attrs[Move.COMPACT], self.stream.cuda_stream)
        torch.cuda.current_stream().wait_stream(self.stream)
