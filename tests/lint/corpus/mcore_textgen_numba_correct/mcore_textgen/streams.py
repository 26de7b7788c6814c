# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Numba views of the streams used by the generation loop."""
import torch
from numba import cuda


def current_compute_stream():
    """The torch stream the model forward runs on, wrapped for numba kernel launches."""
    return cuda.external_stream(torch.cuda.current_stream().cuda_stream)


def make_copy_stream():
    return cuda.stream()
