import logging
from typing import Dict, List, Tuple

import numpy as np
import torch
from cuda.bindings import driver as cuda

from kv_offload import cuda_batch
from kv_offload.mediums import LOAD, STORE, TransferType

logger = logging.getLogger(__name__)


class CpuGpuOffloadingHandler:
    """Moves whole KV blocks between the GPU cache and a pinned CPU cache."""

    def __init__(
        self,
        gpu_caches: List[torch.Tensor],
        cpu_caches: List[torch.Tensor],
        block_size_factor: int,
        overlap_with_compute: bool = False,
    ):
        assert len(gpu_caches) == len(cpu_caches)
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.block_size_factor = block_size_factor
        self.gpu_block_bytes = [t.stride(0) * t.element_size() for t in gpu_caches]
        self.streams: Dict[TransferType, torch.cuda.Stream] = {
            STORE: torch.cuda.Stream(),
            LOAD: torch.cuda.Stream(),
        }
        flags = (
            cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
            if overlap_with_compute
            else cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT
        )
        stream_order = cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        self.copy_params: Dict[TransferType, Tuple] = {
            STORE: (stream_order, flags),
            LOAD: (stream_order, flags),
        }
        self.compute_ready = cuda_batch.new_event()
        self.transfers: List[Tuple[int, cuda.CUevent]] = []

    def _expand_cpu_blocks(self, cpu_block_ids: np.ndarray) -> np.ndarray:
        # one CPU block spans ``block_size_factor`` GPU blocks
        sub = np.arange(self.block_size_factor)
        return (cpu_block_ids[:, None] * self.block_size_factor + sub).reshape(-1)

    def _pointers(self, transfer_type, src_blocks, dst_blocks):
        if transfer_type == STORE:
            dst_blocks = self._expand_cpu_blocks(dst_blocks)
        else:
            src_blocks = self._expand_cpu_blocks(src_blocks)
        srcs, dsts, sizes = [], [], []
        for gpu_t, cpu_t, block_bytes in zip(self.gpu_caches, self.cpu_caches, self.gpu_block_bytes):
            src_t, dst_t = (gpu_t, cpu_t) if transfer_type == STORE else (cpu_t, gpu_t)
            for s, d in zip(src_blocks, dst_blocks):
                srcs.append(src_t.data_ptr() + int(s) * block_bytes)
                dsts.append(dst_t.data_ptr() + int(d) * block_bytes)
                sizes.append(block_bytes)
        return srcs, dsts, sizes

    def transfer_async(self, job_id: int, transfer_type: TransferType, spec) -> bool:
        src_spec, dst_spec = spec
        stream = self.streams[transfer_type]
        srcs, dsts, sizes = self._pointers(transfer_type, src_spec.block_ids, dst_spec.block_ids)
        src_order, flags = self.copy_params[transfer_type]

        cuda_batch.order_after(
            stream.cuda_stream, torch.cuda.current_stream().cuda_stream, self.compute_ready
        )
        cuda_batch.batch_copy(dsts, srcs, sizes, stream.cuda_stream, src_order, flags)
        done = cuda_batch.new_event()
        cuda_batch.check(cuda.cuEventRecord(done, cuda.CUstream(stream.cuda_stream)))
        self.transfers.append((job_id, done))
        logger.debug("job %d: %s, %d copies", job_id, transfer_type, len(sizes))
        return True

    def get_finished(self) -> List[Tuple[int, bool]]:
        finished, pending = [], []
        for job_id, event in self.transfers:
            if cuda_batch.event_done(event):
                finished.append((job_id, True))
            else:
                pending.append((job_id, event))
        self.transfers = pending
        return finished
