import os
import threading
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import nn

from .utils import offload_weight, save_offload_index


class DiskSpiller:
    def __init__(self, offload_folder, max_writers=4):
        os.makedirs(offload_folder, exist_ok=True)
        self.offload_folder = offload_folder
        self.index = {}
        self._index_lock = threading.Lock()
        self._writers = ThreadPoolExecutor(max_workers=max_writers, thread_name_prefix="spill-writer")
        self._futures = []

    def _write(self, host, name):
        entry = {}
        offload_weight(host, name, self.offload_folder, entry)
        with self._index_lock:
            self.index.update(entry)

    def spill_module(self, prefix, module: nn.Module):
        """Stage every tensor of ``module`` to host and queue its file write; frees device memory."""
        staged = []
        for name, tensor in list(module.named_parameters(recurse=False)) + list(module.named_buffers(recurse=False)):
            if tensor.device.type != "cuda":
                continue
            # non_blocking D2H lands in pinned memory and returns at once
            host = tensor.detach().to("cpu", non_blocking=True)
            staged.append((host, f"{prefix}.{name}" if prefix else name))
            meta = torch.empty_like(tensor, device="meta")
            if name in module._parameters:
                module._parameters[name] = nn.Parameter(meta, requires_grad=tensor.requires_grad)
            else:
                module._buffers[name] = meta
        for host, full_name in staged:
            self._futures.append(self._writers.submit(self._write, host, full_name))

    def finish(self):
        for future in self._futures:
            future.result()
        self._futures.clear()
        save_offload_index(self.index, self.offload_folder)
        self._writers.shutdown(wait=True)
        return self.index


def spill_modules(model: nn.Module, module_names, offload_folder):
    spiller = DiskSpiller(offload_folder)
    for module_name in module_names:
        module = model.get_submodule(module_name)
        for sub_name, sub in module.named_modules():
            prefix = f"{module_name}.{sub_name}" if sub_name else module_name
            spiller.spill_module(prefix, sub)
    return spiller.finish()
