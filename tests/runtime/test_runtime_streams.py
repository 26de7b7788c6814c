"""Reading the requesting thread's current stream (kvguard.runtime.streams), no GPU."""

from __future__ import annotations

import pytest
import torch

from kvguard.runtime.streams import current_stream_reader


@pytest.mark.parametrize(
    ("handle", "current_device", "outcome"),
    [(0x7000, 1, 0x7000), (0, 0, 0), (0, 1, "cuda:1")],
)
def test_the_default_stream_is_read_only_on_the_attached_device(
    monkeypatch: pytest.MonkeyPatch, handle: int, current_device: int, outcome: object
) -> None:
    """Handle 0 (the default stream) means the calling thread's current device to the driver:
    read on another device it is refused, naming both; any other handle names its device."""
    asked: list[int] = []
    monkeypatch.setattr(
        torch._C, "_cuda_getCurrentRawStream", lambda index: asked.append(index) or handle, raising=False
    )
    monkeypatch.setattr(torch.cuda, "current_device", lambda: current_device)
    read = current_stream_reader(0)
    if isinstance(outcome, str):
        with pytest.raises(RuntimeError, match=rf"copies on cuda:0, but .* device is {outcome}"):
            read()
    else:
        assert read() == outcome
    assert asked == [0]
