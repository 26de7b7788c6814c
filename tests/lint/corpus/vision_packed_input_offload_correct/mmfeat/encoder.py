"""Run the vision tower on packed features and keep a host copy for re-prefill."""

import torch

from .pack import pack_features


class VisionEncoder:
    def __init__(self, tower):
        self.tower = tower
        self._copy_stream = None

    def encode(self, items):
        packed, ready = self._pack(items)
        embeddings = self.tower(packed)
        # The tower only reads its input: the host copy waits for the packing alone.
        self._keep_on_host(packed, ready, items)
        return embeddings

    def _pack(self, items):
        packed = pack_features(
            [item.feature for item in items], device=self.tower.device, dtype=self.tower.dtype
        )
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        return packed, ready

    def _keep_on_host(self, packed, ready, items):
        host = torch.empty(packed.shape, dtype=packed.dtype, device="cpu", pin_memory=True)
        stream = self._copy_stream
        if stream is None:
            stream = torch.cuda.Stream()
            self._copy_stream = stream
        with torch.cuda.stream(stream):
            stream.wait_event(ready)
            host.copy_(packed, non_blocking=True)
            done = torch.cuda.Event()
            done.record(stream)
        packed.record_stream(stream)
        for item in items:
            item.feature = host
            item.copy_done = done
