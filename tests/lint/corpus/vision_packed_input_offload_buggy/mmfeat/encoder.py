"""Run the vision tower into a preallocated output and keep a host copy of it."""

import torch

from .pack import pack_features


class VisionEncoder:
    def __init__(self, tower, hidden):
        self.tower = tower
        self.hidden = hidden
        self._copy_stream = None

    def encode(self, items):
        packed = pack_features(
            [item.feature for item in items], device=self.tower.device, dtype=self.tower.dtype
        )
        embeddings = torch.empty((packed.shape[0], self.hidden), device=packed.device, dtype=packed.dtype)
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        # The tower writes the output it is given after the event was recorded.
        self.tower(packed, embeddings)
        self._keep_on_host(embeddings, ready, items)
        return embeddings

    def _keep_on_host(self, embeddings, ready, items):
        host = torch.empty(embeddings.shape, dtype=embeddings.dtype, device="cpu", pin_memory=True)
        stream = self._copy_stream
        if stream is None:
            stream = torch.cuda.Stream()
            self._copy_stream = stream
        with torch.cuda.stream(stream):
            stream.wait_event(ready)
            # expect: KVG001
            host.copy_(embeddings, non_blocking=True)
            done = torch.cuda.Event()
            done.record(stream)
        for item in items:
            item.embedding = host
            item.copy_done = done
