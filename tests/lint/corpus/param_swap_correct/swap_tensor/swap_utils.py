# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os

import torch

from .constants import AIO_ALIGNED_BYTES, SWAP_FILE_SUFFIX


def aligned_numel(numel: int, element_size: int) -> int:
    per = AIO_ALIGNED_BYTES // element_size
    return ((numel + per - 1) // per) * per


def swap_path(folder: str, param_id: int) -> str:
    return os.path.join(folder, f"{param_id}{SWAP_FILE_SUFFIX}")


def stage_to_host(buffer: torch.Tensor, partition: torch.Tensor) -> torch.Tensor:
    """Copy a device partition into the head of a pinned staging buffer."""
    view = buffer.narrow(0, 0, partition.numel())
    view.copy_(partition.view(-1), non_blocking=True)
    return view


def write_host_buffer(path: str, host_view: torch.Tensor) -> int:
    with open(path, "wb") as fd:
        fd.write(host_view.numpy().tobytes())
    return host_view.numel() * host_view.element_size()
