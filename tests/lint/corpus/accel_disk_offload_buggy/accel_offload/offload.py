# Copyright 2024 The HuggingFace Team. All rights reserved.
import json
import logging
import os
import queue
import threading
from typing import Dict, Optional

import torch
from safetensors.torch import save_file

from .constants import (
    OFFLOAD_INDEX_NAME,
    OFFLOAD_WEIGHT_SUFFIX,
    OFFLOAD_WRITER_THREAD,
    SAFETENSORS_METADATA,
)
from .cudart import memcpy_d2h_async

logger = logging.getLogger(__name__)


class OffloadedWeightsWriter:
    """Stages weights in pinned memory and writes them as safetensors off the main thread."""

    def __init__(self, save_folder: str, device: torch.device):
        os.makedirs(save_folder, exist_ok=True)
        self.save_folder = save_folder
        self.index: Dict[str, Dict] = {}
        self._stream = torch.cuda.Stream(device=device)
        self._queue: "queue.Queue[Optional[Dict[str, torch.Tensor]]]" = queue.Queue()
        self._thread = threading.Thread(
            target=self._writer_loop, name=OFFLOAD_WRITER_THREAD, daemon=True
        )
        self._thread.start()

    def weight_path(self, name: str) -> str:
        return os.path.join(self.save_folder, name + OFFLOAD_WEIGHT_SUFFIX)

    def offload(self, weights: Dict[str, torch.Tensor]) -> None:
        tensors = {name: t.detach().contiguous() for name, t in weights.items()}
        self._stream.wait_stream(torch.cuda.current_stream())
        handle = self._stream.cuda_stream
        staged: Dict[str, torch.Tensor] = {}
        for name, tensor in tensors.items():
            host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
            nbytes = tensor.numel() * tensor.element_size()
            memcpy_d2h_async(host.data_ptr(), tensor.data_ptr(), nbytes, handle)
            tensor.record_stream(self._stream)
            staged[name] = host
            self.index[name] = {"dtype": str(tensor.dtype).split(".")[-1], "shape": list(tensor.shape)}
        self._queue.put(staged)

    def _writer_loop(self) -> None:
        while True:
            staged = self._queue.get()
            if staged is None:
                self._queue.task_done()
                break
            for name, host in staged.items():
                # expect: KVG003
                save_file({name: host}, self.weight_path(name), metadata=SAFETENSORS_METADATA)
            self._queue.task_done()

    def wait_until_written(self) -> None:
        self._queue.join()

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        with open(os.path.join(self.save_folder, OFFLOAD_INDEX_NAME), "w") as f:
            json.dump(self.index, f, indent=2)
