# SPDX-License-Identifier: Apache-2.0
import torch

from simple_cpu_offload.constants import LOAD_SRC_ORDER, LOC_DEVICE, LOC_HOST, STORE_SRC_ORDER
from simple_cpu_offload.dma import batch_memcpy, make_memcpy_attrs


class BlockCopyEngine:
    """Turns block-id lists into batch memcpy descriptors, one per layer and block."""

    def __init__(self, gpu_caches: dict[str, torch.Tensor], cpu_caches: dict[str, torch.Tensor],
                 device_id: int):
        assert list(gpu_caches) == list(cpu_caches)
        self._gpu = list(gpu_caches.values())
        self._cpu = list(cpu_caches.values())
        self._block_bytes = [t[0].numel() * t.element_size() for t in self._gpu]
        self._store_attrs = make_memcpy_attrs(STORE_SRC_ORDER, LOC_DEVICE, LOC_HOST, device_id)
        self._load_attrs = make_memcpy_attrs(LOAD_SRC_ORDER, LOC_HOST, LOC_DEVICE, device_id)

    def _descriptors(self, src_tensors, dst_tensors, src_ids, dst_ids):
        dsts, srcs, sizes = [], [], []
        for src, dst, nbytes in zip(src_tensors, dst_tensors, self._block_bytes):
            s_base, s_stride = src.data_ptr(), src.stride(0) * src.element_size()
            d_base, d_stride = dst.data_ptr(), dst.stride(0) * dst.element_size()
            for s, d in zip(src_ids, dst_ids):
                srcs.append(s_base + s * s_stride)
                dsts.append(d_base + d * d_stride)
                sizes.append(nbytes)
        return dsts, srcs, sizes

    def store(self, gpu_ids: list[int], cpu_ids: list[int], stream: torch.cuda.Stream) -> int:
        dsts, srcs, sizes = self._descriptors(self._gpu, self._cpu, gpu_ids, cpu_ids)
        batch_memcpy(dsts, srcs, sizes, self._store_attrs, stream.cuda_stream)
        return sum(sizes)

    def load(self, cpu_ids: list[int], gpu_ids: list[int], stream: torch.cuda.Stream) -> int:
        dsts, srcs, sizes = self._descriptors(self._cpu, self._gpu, cpu_ids, gpu_ids)
        batch_memcpy(dsts, srcs, sizes, self._load_attrs, stream.cuda_stream)
        return sum(sizes)
