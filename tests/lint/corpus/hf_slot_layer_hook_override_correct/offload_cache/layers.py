"""Cache layers of an offloaded hybrid cache. Every layer's KV lives in pinned host memory;
attention runs on one of two device slots shared by all layers (layer i uses slot i % 2).
prefetch() brings a layer into its slot on the cache's prefetch stream, write_back() copies the
slot back to host on the offload stream once the layer has appended its new tokens.

Subclasses customise the ordering through the _before_prefetch hook and the shape through
_device_view; prefetch() itself is a template shared by all of them."""

from abc import ABC

import torch


class DeviceSlot:
    def __init__(self, shape, dtype, device):
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
        self.released = torch.cuda.Event()  # last write-back out of this slot


class CacheLayerMixin(ABC):
    def __init__(self, cache, layer_idx: int):
        self._cache = cache
        self.layer_idx = layer_idx
        self.slot = cache.device_slots[layer_idx % len(cache.device_slots)]
        self.written_back = torch.cuda.Event()

    @property
    def prefetch_stream(self) -> torch.cuda.Stream:
        return self._cache.prefetch_stream

    @property
    def offload_stream(self) -> torch.cuda.Stream:
        return self._cache.offload_stream

    def _device_view(self, t: torch.Tensor) -> torch.Tensor:
        return t

    def _before_prefetch(self, stream: torch.cuda.Stream) -> None:
        # the slot's previous tenant may still have attention kernels queued that read it
        stream.wait_stream(torch.cuda.current_stream())

    def prefetch(self) -> None:
        stream = self.prefetch_stream
        stream.wait_event(self.slot.released)
        self._before_prefetch(stream)
        with torch.cuda.stream(stream):
            self._device_view(self.slot.keys).copy_(self.host_keys, non_blocking=True)
            self._device_view(self.slot.values).copy_(self.host_values, non_blocking=True)

    def write_back(self) -> None:
        stream = self.offload_stream
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.host_keys.copy_(self._device_view(self.slot.keys), non_blocking=True)
            self.host_values.copy_(self._device_view(self.slot.values), non_blocking=True)
            self.written_back.record()
            self.slot.released.record()

    def update(self, key_states, value_states, cache_position):
        k, v = self._device_view(self.slot.keys), self._device_view(self.slot.values)
        k.index_copy_(2, cache_position, key_states)
        v.index_copy_(2, cache_position, value_states)
        return k, v


class StaticSlotLayer(CacheLayerMixin):
    """Full-attention layer: the host copy holds every position up to max_cache_len."""

    def __init__(self, cache, layer_idx: int, shape, dtype):
        super().__init__(cache, layer_idx)
        self.host_keys = torch.zeros(shape, dtype=dtype, pin_memory=True)
        self.host_values = torch.zeros(shape, dtype=dtype, pin_memory=True)

    def _before_prefetch(self, stream):
        super()._before_prefetch(stream)
        # the host copy must hold last step's tokens before it is read back
        stream.wait_event(self.written_back)


class SlidingSlotLayer(StaticSlotLayer):
    """Sliding-window layer: only `window` positions, used as a ring."""

    def __init__(self, cache, layer_idx: int, shape, dtype, window: int):
        b, h, _, d = shape
        super().__init__(cache, layer_idx, (b, h, window, d), dtype)
        self.window = window

    def _device_view(self, t):
        return t[:, :, : self.window]

    def update(self, key_states, value_states, cache_position):
        return super().update(key_states, value_states, cache_position % self.window)
