"""Accelerator agnostic stream / event helpers."""
from __future__ import annotations

import contextlib

import torch


def device_type() -> str:
    acc = torch.accelerator.current_accelerator()
    return acc.type if acc is not None else "cpu"


def device_module():
    return torch.get_device_module(device_type())


def current_stream() -> torch.Stream:
    return torch.accelerator.current_stream()


def new_stream() -> torch.Stream:
    return device_module().Stream()


def use_stream(stream: torch.Stream) -> contextlib.AbstractContextManager:
    return device_module().stream(stream)


def record_event(stream: torch.Stream) -> torch.Event:
    event = torch.Event(device=device_type())
    event.record(stream)
    return event
