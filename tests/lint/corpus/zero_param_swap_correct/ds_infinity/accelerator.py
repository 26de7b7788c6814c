# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import torch


class CUDA_Accelerator:

    def __init__(self):
        self._name = "cuda"
        self._communication_backend_name = "nccl"

    def current_device_name(self):
        return "cuda:{}".format(torch.cuda.current_device())

    @property
    def Stream(self):
        return torch.cuda.Stream

    def stream(self, stream):
        return torch.cuda.stream(stream)

    def current_stream(self, device_index=None):
        return torch.cuda.current_stream(device_index)

    @property
    def Event(self):
        return torch.cuda.Event

    def synchronize(self, device_index=None):
        return torch.cuda.synchronize(device_index)

    def pin_memory(self, tensor, align_bytes=1):
        return tensor.pin_memory()


ds_accelerator = None


def get_accelerator():
    global ds_accelerator
    if ds_accelerator is None:
        ds_accelerator = CUDA_Accelerator()
    return ds_accelerator
