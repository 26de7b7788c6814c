import ctypes

import torch

from ._cudart import check, cudaMemcpyKind, event_create, libcudart


class KVBlockMover:
    """Swaps paged KV blocks between per-layer GPU caches and pinned CPU caches."""

    def __init__(self, gpu_caches: list[torch.Tensor], cpu_caches: list[torch.Tensor]):
        assert len(gpu_caches) == len(cpu_caches)
        assert all(c.is_pinned() for c in cpu_caches)
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.block_nbytes = gpu_caches[0][0].numel() * gpu_caches[0].element_size()
        self.swap_stream = torch.cuda.Stream()
        self._swap_done = event_create()

    @property
    def _stream_handle(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(self.swap_stream.cuda_stream)

    def swap_out(self, block_mapping: dict[int, int]) -> None:
        """GPU block id -> CPU block id."""
        nbytes = self.block_nbytes
        for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
            src_base, dst_base = gpu_cache.data_ptr(), cpu_cache.data_ptr()
            for src, dst in block_mapping.items():
                check(libcudart.cudaMemcpyAsync(
                    ctypes.c_void_p(dst_base + dst * nbytes), ctypes.c_void_p(src_base + src * nbytes),
                    nbytes, cudaMemcpyKind.cudaMemcpyDeviceToHost, self._stream_handle))
        check(libcudart.cudaEventRecord(self._swap_done, self._stream_handle))

    def swap_in(self, block_mapping: dict[int, int]) -> None:
        """CPU block id -> GPU block id."""
        nbytes = self.block_nbytes
        for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
            src_base, dst_base = cpu_cache.data_ptr(), gpu_cache.data_ptr()
            for src, dst in block_mapping.items():
                check(libcudart.cudaMemcpyAsync(
                    ctypes.c_void_p(dst_base + dst * nbytes), ctypes.c_void_p(src_base + src * nbytes),
                    nbytes, cudaMemcpyKind.cudaMemcpyHostToDevice, self._stream_handle))
        check(libcudart.cudaEventRecord(self._swap_done, self._stream_handle))

    def wait_for_swaps(self, stream: torch.cuda.Stream) -> None:
        """Make `stream` wait for every swap issued so far."""
        check(libcudart.cudaStreamWaitEvent(ctypes.c_void_p(stream.cuda_stream), self._swap_done, 0))
