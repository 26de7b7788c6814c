"""Transfer engines keep one stream per direction, by name."""

import torch


class BaseTransfer:
    directions = ("store", "load")

    def __init__(self, device="cuda"):
        self.device = torch.device(device)
        self.streams = {name: torch.cuda.Stream(device=self.device) for name in self.directions}
        self.done = {name: torch.cuda.Event() for name in self.directions}

    def prepare(self):
        """Order every transfer stream behind the work queued so far on the caller's stream."""
        current = torch.cuda.current_stream(self.device)
        for stream in self.streams.values():
            stream.wait_stream(current)

    def wait(self, direction):
        self.done[direction].synchronize()
