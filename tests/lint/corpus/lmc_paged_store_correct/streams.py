"""Side streams used by the connector, keyed by purpose."""

from typing import Dict

import torch


class StreamRegistry:
    """Lazily creates one side stream per purpose on a device."""

    def __init__(self, device):
        self.device = torch.device(device)
        self._streams: Dict[str, torch.cuda.Stream] = {}

    def get(self, name: str) -> torch.cuda.Stream:
        stream = self._streams.get(name)
        if stream is None:
            stream = torch.cuda.Stream(device=self.device)
            self._streams[name] = stream
        return stream

    def fence(self, name: str) -> torch.cuda.Stream:
        """Return stream `name`, ordered behind all work queued so far on the
        current (compute) stream."""
        stream = self.get(name)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        return stream

    def synchronize_all(self) -> None:
        for stream in self._streams.values():
            stream.synchronize()
