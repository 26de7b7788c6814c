from typing import Dict, Iterable

import torch

from . import cudart


class HostMetadataMirror:
    """Pinned host copies of per-request device tensors, refreshed on a private stream."""

    def __init__(self, device_tensors: Dict[str, torch.Tensor]) -> None:
        self._device_tensors = device_tensors
        self._host_tensors = {
            name: torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=True)
            for name, t in device_tensors.items()
        }
        self._stream = cudart.stream_create()
        self._ready = cudart.event_create()

    def fetch(self, names: Iterable[str], count: int, compute_stream: int) -> Dict[str, torch.Tensor]:
        cudart.event_record(self._ready, compute_stream)
        cudart.stream_wait_event(self._stream, self._ready)
        for name in names:
            src = self._device_tensors[name]
            dst = self._host_tensors[name]
            nbytes = count * src.element_size()
            cudart.memcpy_async(dst.data_ptr(), src.data_ptr(), nbytes, cudart.cudaMemcpyDeviceToHost, self._stream)
        return self._host_tensors
