# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os

import torch

from .constants import SWAP_FILE_SUFFIX, SWAP_NUMEL_ALIGNMENT


def aligned_numel(numel: int, alignment: int = SWAP_NUMEL_ALIGNMENT) -> int:
    remainder = numel % alignment
    return numel if remainder == 0 else numel + alignment - remainder


def swap_path(folder: str, param_id: int) -> str:
    return os.path.join(folder, f"grad_{param_id}{SWAP_FILE_SUFFIX}")


def copy_grad_partition(dst_buffer: torch.Tensor, grad: torch.Tensor, start: int, numel: int) -> torch.Tensor:
    """Copy ``numel`` elements of the flattened gradient into a pinned swap buffer."""
    dst = dst_buffer.narrow(0, 0, numel)
    dst.copy_(grad.view(-1).narrow(0, start, numel), non_blocking=True)
    return dst


def write_tensor_file(path: str, tensor: torch.Tensor) -> int:
    with open(path, "wb") as fh:
        written = fh.write(tensor.numpy().tobytes())
    return written
