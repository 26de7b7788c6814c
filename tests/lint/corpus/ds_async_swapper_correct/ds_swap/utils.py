# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import torch


class SwapBuffer(object):

    def __init__(self, buffer):
        self.buffer = buffer
        self.reset()

    def reset(self):
        self.offset = 0
        self.swap_tensors = {}
        self.swap_paths = {}
        self.num_elem = 0

    def insert_tensor(self, tensor, swap_path, aligned_numel):
        offset = self.offset
        self.offset += aligned_numel
        self.num_elem += tensor.numel()
        swap_tensor = self.buffer.narrow(0, offset, tensor.numel())
        self.swap_tensors[offset] = swap_tensor
        self.swap_paths[offset] = swap_path
        return swap_tensor

    def has_space(self, numel):
        return (self.offset + numel) <= self.buffer.numel()

    def get_swap_tensors(self):
        return [tensor for tensor in self.swap_tensors.values()]

    def get_swap_paths(self):
        return [path for path in self.swap_paths.values()]

    def get_num_elem(self):
        return self.num_elem


def io_aligned_numel(numel, alignment):
    remainder = numel % alignment
    return numel if remainder == 0 else (numel + alignment - remainder)


def tensor_bytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()
