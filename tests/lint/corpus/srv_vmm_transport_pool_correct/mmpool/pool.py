"""A feature pool shared with consumer processes: the producer stages a tensor into a slot of
one exported device mapping and hands the slot's offset to the consumers, which acknowledge
it when they have read it. A slot is handed out again only after every acknowledgement was
read back on the host."""

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

    def publish(self, tensor: torch.Tensor):
        nbytes = tensor.numel() * tensor.element_size()
        slot = self._reserve(nbytes)
        if slot is None:
            return tensor.cpu()
        if tensor.is_cuda:
            self._publish_stream.wait_stream(torch.cuda.current_stream(tensor.device))
        with torch.cuda.stream(self._publish_stream):
            source = tensor.contiguous()
            if source.device.type == "cpu" and not source.is_pinned():
                source = source.pin_memory()
            flat = source.reshape(-1).view(torch.uint8)
            self.pool[slot.start : slot.start + nbytes].copy_(flat, non_blocking=True)
            # consumers map the pages themselves: publish only once the bytes are there
            self._publish_stream.synchronize()
        return slot.start, nbytes

    def close(self) -> None:
        self.pool = None

    def publish_host_batch(self, tensors):
        """Several host tensors at once: packed into one pinned buffer, then one copy."""
        if not all(t.device.type == "cpu" for t in tensors):
            return None
        nbytes = sum(t.numel() * t.element_size() for t in tensors)
        slot = self._reserve(nbytes)
        if slot is None:
            return None
        staging = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        offset = 0
        for tensor in tensors:
            size = tensor.numel() * tensor.element_size()
            staging[offset : offset + size].copy_(tensor.reshape(-1).view(torch.uint8))
            offset += size
        with torch.cuda.stream(self._publish_stream):
            self.pool[slot.start : slot.start + nbytes].copy_(staging, non_blocking=True)
            self._publish_stream.synchronize()
        return slot.start, nbytes
