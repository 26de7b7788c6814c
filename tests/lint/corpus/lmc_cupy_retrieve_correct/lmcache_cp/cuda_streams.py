# SPDX-License-Identifier: Apache-2.0
import functools

import cupy
import torch


@functools.lru_cache(maxsize=None)
def get_load_stream(device_index: int) -> cupy.cuda.Stream:
    with cupy.cuda.Device(device_index):
        return cupy.cuda.Stream(non_blocking=True)


def current_compute_stream() -> cupy.cuda.ExternalStream:
    """The torch stream the model forward runs on, seen from cupy."""
    torch_stream = torch.cuda.current_stream()
    return cupy.cuda.ExternalStream(torch_stream.cuda_stream, torch_stream.device_index)
