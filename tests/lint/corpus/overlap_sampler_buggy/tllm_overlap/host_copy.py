import torch

from .constants import HOST_COPY_FIELDS
from .sampler import SampleStateTensors
from .streams import host_copy_stream


class HostCopier:
    """Moves sampler outputs to pinned host memory off the compute stream."""

    def __init__(self, device_index: int):
        self._stream = host_copy_stream(device_index)

    def launch(
        self, device: SampleStateTensors, ready: torch.cuda.Event
    ) -> tuple[SampleStateTensors, torch.cuda.Event]:
        host = SampleStateTensors(**{
            name: torch.empty(getattr(device, name).shape,
                              dtype=getattr(device, name).dtype,
                              device="cpu",
                              pin_memory=True)
            for name in HOST_COPY_FIELDS
        })
        with torch.cuda.stream(self._stream):
            self._stream.wait_event(ready)
            for name in HOST_COPY_FIELDS:
                # expect: KVG001
                getattr(host, name).copy_(getattr(device, name),
                                          non_blocking=True)
            done = torch.cuda.Event()
            done.record(self._stream)
        return host, done
