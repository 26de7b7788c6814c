import logging
from typing import List, Sequence

import torch
from cuda.bindings import driver

from .cuda_driver import check, create_event, create_stream, d2h_copy_attributes, order_after
from .inference_config import DynamicInferenceConfig

logger = logging.getLogger(__name__)


class KVBlockSwapper:
    """Moves paged KV blocks of paused requests from the device memory buffer into a pinned host pool."""

    def __init__(self, config: DynamicInferenceConfig, memory_buffer: torch.Tensor):
        self.config = config
        self.memory_buffer = memory_buffer
        self.device_ordinal = memory_buffer.device.index
        self.host_pool = torch.empty(
            (config.host_swap_blocks, config.block_bytes), dtype=torch.uint8, device="cpu", pin_memory=True
        )
        self.free_host_slots: List[int] = list(range(config.host_swap_blocks))
        self.stream = create_stream()
        self._fence_event = create_event()
        self._attrs = d2h_copy_attributes(self.device_ordinal)

    def fence(self) -> None:
        compute = driver.CUstream(torch.cuda.current_stream(self.memory_buffer.device).cuda_stream)
        order_after(self._fence_event, compute, self.stream)

    def swap_out(self, block_ids: Sequence[int]) -> List[int]:
        if len(block_ids) > len(self.free_host_slots):
            raise RuntimeError(f"host swap pool exhausted ({len(self.free_host_slots)} free slots)")
        host_slots = [self.free_host_slots.pop() for _ in block_ids]
        nbytes = self.config.block_bytes
        base_src = self.memory_buffer.data_ptr()
        base_dst = self.host_pool.data_ptr()
        srcs = [driver.CUdeviceptr(base_src + b * nbytes) for b in block_ids]
        dsts = [driver.CUdeviceptr(base_dst + s * nbytes) for s in host_slots]
        sizes = [nbytes] * len(block_ids)
        # expect: KVG002
        check(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [self._attrs], [0], 1, self.stream))
        return host_slots

    def copy_to_host(self, host: torch.Tensor, device: torch.Tensor) -> None:
        nbytes = device.numel() * device.element_size()
        check(driver.cuMemcpyDtoHAsync(host.data_ptr(), driver.CUdeviceptr(device.data_ptr()), nbytes, self.stream))

    def wait(self) -> None:
        check(driver.cuStreamSynchronize(self.stream))
