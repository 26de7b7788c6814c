# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import os
import queue
from typing import Dict, List

import torch


class OptimizerStateSwapInfo(object):

    def __init__(self, parameter: torch.Tensor, numel: int, base_folder: str):
        self.tensors: List[torch.Tensor] = []
        self.param_id = id(parameter)
        self.swap_folder = base_folder
        self.swap_paths: List[str] = []
        self.numel = numel
        self.has_state_tensors = False
        self._add_tensors([parameter])

    def _add_tensors(self, tensor_list: List[torch.Tensor]) -> None:
        for t in tensor_list:
            self.tensors.append(t)
            self.swap_paths.append(os.path.join(self.swap_folder, f"{id(t)}.tensor.swp"))

    def add_state_tensors(self, tensor_list: List[torch.Tensor]) -> None:
        self.has_state_tensors = True
        self._add_tensors(tensor_list)

    def device(self) -> torch.device:
        return self.tensors[0].device


class SwapBufferPool(object):
    """Fixed pool of pinned host buffers handed out to swap operations."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype = torch.float32):
        self._free: "queue.Queue[torch.Tensor]" = queue.Queue()
        self.numel = numel
        for _ in range(count):
            self._free.put(torch.empty(numel, dtype=dtype).pin_memory())

    def get(self, n: int, sizes: List[int]) -> List[torch.Tensor]:
        return [self._free.get().narrow(0, 0, size) for size in sizes[:n]]

    def release(self, buffers: List[torch.Tensor]) -> None:
        for buf in buffers:
            self._free.put(buf._base if buf._base is not None else buf)


def get_swap_tensor_sizes(swap_info: OptimizerStateSwapInfo) -> Dict[int, int]:
    return {i: t.numel() for i, t in enumerate(swap_info.tensors)}
