"""A feature pool shared with consumer processes, with a host fallback: when the exported
device mapping is full, the producer stages the tensor into pinned host memory on its publish
stream and hands the consumers that buffer instead.

Bug: the fallback copies a tensor the model just computed from the publish stream with no
barrier behind the producer's stream (KVG001); the mapped path waits for it."""

import threading

import torch

from mmpool.vmm import tensor_at


class Slot:
    def __init__(self, start: int, size: int) -> None:
        self.start = start
        self.size = size


class SharedFeaturePool:
    def __init__(self, mapping, size: int, device_index: int, consumers: int) -> None:
        self.device_index = device_index
        self.consumers = consumers
        self.pool = tensor_at(mapping.base, size, device_index)
        self._publish_stream = torch.cuda.Stream(device=device_index)
        self._free = [Slot(0, size)]
        self._lock = threading.Lock()

    def _reserve(self, nbytes: int):
        with self._lock:
            for slot in self._free:
                if slot.size >= nbytes:
                    self._free.remove(slot)
                    return slot
        return None

    def publish(self, features: torch.Tensor):
        nbytes = features.numel() * features.element_size()
        slot = self._reserve(nbytes)
        if slot is None:
            if not features.is_cuda:
                return features
            staged = torch.empty(features.shape, dtype=features.dtype, pin_memory=True)
            with torch.cuda.stream(self._publish_stream):
                # expect: KVG001
                staged.copy_(features, non_blocking=True)
                self._publish_stream.synchronize()
            return staged
        self._publish_stream.wait_stream(torch.cuda.current_stream(features.device))
        with torch.cuda.stream(self._publish_stream):
            flat = features.contiguous().reshape(-1).view(torch.uint8)
            self.pool[slot.start : slot.start + nbytes].copy_(flat, non_blocking=True)
            self._publish_stream.synchronize()
        return slot.start, nbytes
