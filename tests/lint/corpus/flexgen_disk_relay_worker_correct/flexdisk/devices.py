"""Devices and tensors of the offloading runtime (FlexGen's pytorch_backend, trimmed)."""
import os
import queue
import threading
from enum import Enum, auto
from itertools import count

import numpy as np
import torch

from .copy_engine import copy_worker_func

_tensor_ids = count()


class DeviceType(Enum):
    CPU = auto()
    CUDA = auto()
    DISK = auto()


class TorchTensor:
    """A tensor whose ``data`` is a torch tensor (CPU/CUDA) or a memmap path (DISK)."""

    def __init__(self, shape, dtype, data, device, name=None):
        self.shape = shape
        self.dtype = dtype
        self.data = data
        self.device = device
        self.name = name or f"t_{next(_tensor_ids)}"

    @classmethod
    def create_from_torch(cls, data, device, name=None):
        return cls(data.shape, data.dtype, data, device, name=name)


class TorchDevice:
    def __init__(self, name):
        self.name = name
        self.dev = torch.device(name)
        self.device_type = DeviceType.CUDA if self.dev.type == "cuda" else DeviceType.CPU

    def allocate(self, shape, dtype, pin_memory=False, name=None):
        if self.device_type == DeviceType.CPU:
            data = torch.empty(shape, dtype=dtype, pin_memory=pin_memory)
        else:
            data = torch.empty(shape, dtype=dtype, device=self.dev)
        return TorchTensor(shape, dtype, data, self, name=name)


class TorchDisk:
    """Tensors live in .npy memmaps under ``path``; copies run on background threads."""

    def __init__(self, path, cuda_id=0, num_copy_threads=4):
        self.name = path
        self.path = os.path.abspath(os.path.expanduser(path))
        self.device_type = DeviceType.DISK
        os.makedirs(self.path, exist_ok=True)

        self.copy_queue = queue.Queue()
        self.copy_threads = [
            threading.Thread(target=copy_worker_func, args=(self.copy_queue, cuda_id), daemon=True)
            for _ in range(num_copy_threads)
        ]
        for t in self.copy_threads:
            t.start()

    def allocate(self, shape, dtype, name=None):
        tensor = TorchTensor(shape, dtype, None, self, name=name)
        path = os.path.join(self.path, tensor.name)
        np.lib.format.open_memmap(path, mode="w+", shape=shape, dtype=np.float16)
        tensor.data = path
        return tensor

    def submit_copy(self, *args):
        # The copy threads run on streams of their own: hand them an event recorded on the
        # caller's stream, so that a GPU source is read only after the kernels that wrote it.
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.copy_queue.put_nowait(args + (ready,))

    def synchronize(self):
        self.copy_queue.join()

    def close_copy_threads(self):
        for _ in range(len(self.copy_threads)):
            self.copy_queue.put_nowait(None)
        for t in self.copy_threads:
            t.join()
        self.copy_queue.join()
