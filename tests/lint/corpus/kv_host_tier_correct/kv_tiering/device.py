"""Accelerator-agnostic stream helpers for the KV cache tiers."""
import torch

_device_module = torch.get_device_module()


def accelerator() -> torch.device:
    return torch.accelerator.current_accelerator()


def compute_stream() -> torch.Stream:
    return torch.accelerator.current_stream()


def new_transfer_stream() -> torch.Stream:
    return _device_module.Stream(priority=-1)


def stream_scope(stream: torch.Stream):
    return _device_module.stream(stream)


def order_after(consumer: torch.Stream, producer: torch.Stream) -> None:
    consumer.wait_stream(producer)


def new_event() -> torch.Event:
    return torch.Event(device=accelerator())
