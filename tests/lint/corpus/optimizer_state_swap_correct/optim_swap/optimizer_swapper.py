# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Functionality of swapping optimizer tensors to/from (NVMe) storage devices."""
import os
from typing import Dict, List

import torch
from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder
from deepspeed.utils import logger

from .batch_copy import BatchedDeviceToHostCopier
from .constants import (AIO_BLOCK_SIZE, AIO_QUEUE_DEPTH, OPTIMIZER_STATE_KEYS, OPTIMIZER_SWAP_FOLDER,
                        SWAP_BUFFER_COUNT, SWAP_BUFFER_NUMEL)


class PartitionedOptimizerStateSwapper:

    def __init__(self, nvme_path: str, optimizer: torch.optim.Optimizer):
        self.optimizer = optimizer
        self.swap_folder = os.path.join(nvme_path, OPTIMIZER_SWAP_FOLDER, f"rank{dist.get_rank()}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.aio_handle = AsyncIOBuilder().load().aio_handle(AIO_BLOCK_SIZE, AIO_QUEUE_DEPTH, False, True, 1)
        accel = get_accelerator()
        self.buffers: List[torch.Tensor] = [
            accel.pin_memory(torch.empty(SWAP_BUFFER_NUMEL, dtype=torch.float32)) for _ in range(SWAP_BUFFER_COUNT)
        ]
        self.copier = BatchedDeviceToHostCopier(accel.current_device())
        self.swap_paths: Dict[int, List[str]] = {}

    def _state_tensors(self, param: torch.Tensor) -> List[torch.Tensor]:
        state = self.optimizer.state[param]
        return [param.data] + [state[key] for key in OPTIMIZER_STATE_KEYS]

    def _paths(self, param_id: int) -> List[str]:
        names = ("fp32",) + OPTIMIZER_STATE_KEYS
        return [os.path.join(self.swap_folder, f"param{param_id}.{name}.swp") for name in names]

    def swap_out_optimizer_state(self, param: torch.Tensor, param_id: int) -> None:
        srcs = [t.view(-1) for t in self._state_tensors(param)]
        if len(srcs) > len(self.buffers):
            raise RuntimeError(f"{len(srcs)} state tensors exceed {len(self.buffers)} swap buffers")
        dsts = [buf.narrow(0, 0, src.numel()) for buf, src in zip(self.buffers, srcs)]
        compute_stream = get_accelerator().current_stream()
        self.copier.gather(srcs, dsts, compute_stream.cuda_stream)
        self.copier.wait(compute_stream.cuda_stream)

        paths = self._paths(param_id)
        for dst, path in zip(dsts, paths):
            assert self.aio_handle.async_pwrite(dst, path) == 0
        assert self.aio_handle.wait() == len(paths)
        self.swap_paths[param_id] = paths
        for key in OPTIMIZER_STATE_KEYS:
            self.optimizer.state[param][key] = torch.empty(0, device=param.device)
        logger.debug(f"swapped out optimizer state of param {param_id}")

    def swap_in_optimizer_state(self, param: torch.Tensor, param_id: int) -> None:
        paths = self.swap_paths.pop(param_id)
        numel = param.numel()
        host = [self.buffers[i].narrow(0, 0, numel) for i in range(1, len(paths))]
        for buf, path in zip(host, paths[1:]):
            assert self.aio_handle.async_pread(buf, path) == 0
        assert self.aio_handle.wait() == len(host)
        for key, buf in zip(OPTIMIZER_STATE_KEYS, host):
            self.optimizer.state[param][key] = buf.view_as(param).to(param.device)
