# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from typing import Optional

import torch

_D2H_STREAM: Optional[torch.cuda.Stream] = None
_H2D_STREAM: Optional[torch.cuda.Stream] = None


def get_d2h_stream() -> torch.cuda.Stream:
    global _D2H_STREAM
    if _D2H_STREAM is None:
        _D2H_STREAM = torch.cuda.Stream(priority=-1)
    return _D2H_STREAM


def get_h2d_stream() -> torch.cuda.Stream:
    global _H2D_STREAM
    if _H2D_STREAM is None:
        _H2D_STREAM = torch.cuda.Stream(priority=-1)
    return _H2D_STREAM
