"""Device-agnostic stream helpers built on ``torch.accelerator``."""

import contextlib
from typing import Iterator

import torch


def current_device() -> torch.device:
    acc = torch.accelerator.current_accelerator()
    return torch.device(acc.type, torch.accelerator.current_device_index())


@contextlib.contextmanager
def use_stream(stream: torch.Stream) -> Iterator[torch.Stream]:
    prev = torch.accelerator.current_stream()
    torch.accelerator.set_stream(stream)
    try:
        yield stream
    finally:
        torch.accelerator.set_stream(prev)


def wait_for_host_copy(event: torch.Event) -> None:
    """Block the host until the copy recorded by ``event`` has landed."""
    event.synchronize()
