from typing import Dict

import torch

_STREAMS: Dict[str, torch.cuda.Stream] = {}


def _get(name: str) -> torch.cuda.Stream:
    if name not in _STREAMS:
        _STREAMS[name] = torch.cuda.Stream()
    return _STREAMS[name]


def get_d2h_stream() -> torch.cuda.Stream:
    return _get("d2h")


def get_h2d_stream() -> torch.cuda.Stream:
    return _get("h2d")
