import logging

import torch
from cuda.bindings import runtime as cudart

from . import cuda_utils
from .constants import OFFLOAD_SRC_ACCESS_ORDER, ONBOARD_SRC_ACCESS_ORDER

logger = logging.getLogger(__name__)


class KVCacheTransferManager:
    """Moves KV blocks between the primary (GPU) pool and the secondary (pinned host) pool."""

    def __init__(self, primary: torch.Tensor, secondary: torch.Tensor) -> None:
        self.primary = primary
        self.secondary = secondary
        self.block_bytes = primary[0].numel() * primary.element_size()
        self.offload_stream = cuda_utils.create_stream()
        self.onboard_stream = cuda_utils.create_stream()
        self._fence = cuda_utils.create_event()
        self._offload_done = cuda_utils.create_event()
        self._onboard_done = cuda_utils.create_event()

    def _ptr(self, pool: torch.Tensor, block: int) -> int:
        return pool.data_ptr() + block * self.block_bytes

    def offload(self, gpu_blocks: list[int], host_blocks: list[int]) -> None:
        compute = torch.cuda.current_stream().cuda_stream
        cuda_utils.wait_stream(self.offload_stream, compute, self._fence)
        srcs = [self._ptr(self.primary, b) for b in gpu_blocks]
        dsts = [self._ptr(self.secondary, b) for b in host_blocks]
        sizes = [self.block_bytes] * len(srcs)
        attrs = [cuda_utils.make_attrs(OFFLOAD_SRC_ACCESS_ORDER)]
        # expect: KVG002
        cuda_utils.check(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), attrs, [0], 1, self.offload_stream))
        cuda_utils.check(cudart.cudaEventRecord(self._offload_done, self.offload_stream))
        cuda_utils.check(cudart.cudaStreamWaitEvent(compute, self._offload_done, 0))
        logger.debug("offloaded %d blocks", len(srcs))

    def onboard(self, host_blocks: list[int], gpu_blocks: list[int]) -> None:
        compute = torch.cuda.current_stream().cuda_stream
        srcs = [self._ptr(self.secondary, b) for b in host_blocks]
        dsts = [self._ptr(self.primary, b) for b in gpu_blocks]
        sizes = [self.block_bytes] * len(srcs)
        attrs = [cuda_utils.make_attrs(ONBOARD_SRC_ACCESS_ORDER)]
        # expect: KVG004
        cuda_utils.check(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(srcs), attrs, [0], 1, self.onboard_stream))
        cuda_utils.check(cudart.cudaEventRecord(self._onboard_done, self.onboard_stream))
        cuda_utils.check(cudart.cudaStreamWaitEvent(compute, self._onboard_done, 0))
        logger.debug("onboarded %d blocks", len(srcs))
