from __future__ import annotations

import logging
import time

import torch

from kv_offload.worker import SingleDirectionOffloadingHandler

logger = logging.getLogger(__name__)


def _is_pin_memory_available() -> bool:
    return torch.cuda.is_available()


class CpuGpuOffloadingHandlers:
    def __init__(
        self,
        gpu_caches: dict[str, torch.Tensor],
        block_size_factor: int,
        num_cpu_blocks: int,
    ):
        pin_memory = _is_pin_memory_available()
        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        logger.info("Allocating %d CPU tensors...", len(gpu_caches))
        for layer_name, gpu_tensor in gpu_caches.items():
            t0 = time.monotonic()
            cpu_shape = (num_cpu_blocks * block_size_factor,) + tuple(gpu_tensor.shape[1:])
            cpu_tensor = torch.zeros(
                cpu_shape, dtype=gpu_tensor.dtype, device="cpu", pin_memory=pin_memory
            )
            logger.debug("%s: pinned %s in %.3fs", layer_name, cpu_shape, time.monotonic() - t0)
            gpu_tensors.append(gpu_tensor)
            cpu_tensors.append(cpu_tensor)

        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, block_size_factor, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, block_size_factor, gpu_to_cpu=False
        )
