"""A stream scope that carries its own ordering, for any accelerator torch knows about."""

import torch


class OrderedSideStream:
    """``with OrderedSideStream(side, device):`` runs the block on ``side`` after everything
    already queued on the stream that was current when the block was entered. On exit the
    previous stream is current again and ``self.done`` marks the end of the block's work."""

    def __init__(self, stream, device):
        self.stream = stream
        self.device = torch.device(device)
        self._mod = torch.get_device_module(self.device.type)
        self._prev = None
        self.done = None

    def __enter__(self):
        self._prev = self._mod.current_stream(self.device)
        entered = self._mod.Event()
        entered.record(self._prev)
        self.stream.wait_event(entered)
        self._mod.set_stream(self.stream)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.done = self._mod.Event()
        self.done.record(self.stream)
        self._mod.set_stream(self._prev)
        return False
