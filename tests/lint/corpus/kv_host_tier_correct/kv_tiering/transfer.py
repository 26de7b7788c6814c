import logging
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from . import device as dev

logger = logging.getLogger(__name__)


class BlockTransferEngine:
    """Runs block copies between the tiers on a dedicated stream."""

    def __init__(self, primary: torch.Tensor, secondary: torch.Tensor,
                 max_workers: int):
        self.primary = primary
        self.secondary = secondary
        self.stream = dev.new_transfer_stream()
        self._pool = ThreadPoolExecutor(max_workers=max_workers,
                                        thread_name_prefix="kv-transfer")

    def submit_offload(self, gpu_ids: list[int],
                       host_ids: list[int]) -> Future:
        return self._pool.submit(self._copy, self.primary, gpu_ids,
                                 self.secondary, host_ids)

    def submit_onboard(self, host_ids: list[int],
                       gpu_ids: list[int]) -> Future:
        return self._pool.submit(self._copy, self.secondary, host_ids,
                                 self.primary, gpu_ids)

    def _copy(self, src: torch.Tensor, src_ids: list[int], dst: torch.Tensor,
              dst_ids: list[int]) -> torch.Event:
        with dev.stream_scope(self.stream):
            for s, d in zip(src_ids, dst_ids):
                dst[d].copy_(src[s], non_blocking=True)
            done = dev.new_event()
            done.record(self.stream)
        logger.debug("queued %d block copies", len(src_ids))
        return done

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
