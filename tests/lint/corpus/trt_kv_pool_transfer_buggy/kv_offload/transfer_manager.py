import torch

try:
    from cuda.bindings import driver as cuda
    from cuda.bindings import runtime as cudart
except ImportError:  # cuda-python < 12.8
    from cuda import cuda, cudart

from .block_pool import BlockPool
from .constants import MAX_BATCHED_COPIES, OFFLOAD_COPY_FLAGS, OFFLOAD_SRC_ACCESS_ORDER


def check_cuda_error(result):
    err, *rest = result
    ok = (cuda.CUresult.CUDA_SUCCESS if isinstance(err, cuda.CUresult)
          else cudart.cudaError_t.cudaSuccess)
    if err != ok:
        raise RuntimeError(f"CUDA error: {err}")
    return rest[0] if len(rest) == 1 else rest


class KVCacheTransferManager:
    """Moves KV blocks between the primary (device) and secondary (host) pools."""

    def __init__(self, primary: BlockPool, secondary: BlockPool):
        self._primary = primary
        self._secondary = secondary
        self._onboard_stream = torch.cuda.Stream()
        self._offload_stream = torch.cuda.Stream()
        self._device_id = torch.cuda.current_device()
        # secondary block id -> event of the offload that fills it
        self._pending_offloads: dict[int, torch.cuda.Event] = {}

    def _offload_attributes(self):
        attr = cuda.CUmemcpyAttributes()
        attr.srcAccessOrder = OFFLOAD_SRC_ACCESS_ORDER
        attr.srcLocHint.type = cuda.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        attr.srcLocHint.id = self._device_id
        attr.dstLocHint.type = cuda.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        attr.flags = OFFLOAD_COPY_FLAGS
        return attr

    def offload(self, pairs: list[tuple[int, int]]) -> torch.cuda.Event:
        """Copy (primary_id, secondary_id) pairs to host memory."""
        stream = self._offload_stream
        stream.wait_stream(torch.cuda.current_stream())
        nbytes = self._primary.block_nbytes
        attr = self._offload_attributes()
        for start in range(0, len(pairs), MAX_BATCHED_COPIES):
            chunk = pairs[start:start + MAX_BATCHED_COPIES]
            dsts = [self._secondary.block_ptr(dst) for _, dst in chunk]
            srcs = [self._primary.block_ptr(src) for src, _ in chunk]
            sizes = [nbytes] * len(chunk)
            # expect: KVG002
            check_cuda_error(cuda.cuMemcpyBatchAsync(dsts, srcs, sizes, len(chunk), [attr], [0], 1,
                                                     cuda.CUstream(stream.cuda_stream)))
        event = torch.cuda.Event()
        event.record(stream)
        for _, dst in pairs:
            self._pending_offloads[dst] = event
        return event

    def onboard(self, pairs: list[tuple[int, int]]) -> torch.cuda.Event:
        """Copy (secondary_id, primary_id) pairs back to device memory."""
        stream = self._onboard_stream
        nbytes = self._primary.block_nbytes
        for src, dst in pairs:
            pending = self._pending_offloads.pop(src, None)
            if pending is not None:
                stream.wait_event(pending)
            # expect: KVG004
            check_cuda_error(cudart.cudaMemcpyAsync(
                self._primary.block_ptr(dst), self._secondary.block_ptr(src), nbytes,
                cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream.cuda_stream))
        event = torch.cuda.Event()
        event.record(stream)
        torch.cuda.current_stream().wait_event(event)
        return event
