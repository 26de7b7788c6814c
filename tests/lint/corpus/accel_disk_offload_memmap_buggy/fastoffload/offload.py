"""Disk offload of a state dict in accelerate's on-disk format (one ``<name>.dat`` memmap per
tensor plus ``index.json``), with the device-to-host copies pipelined: each GPU tensor is staged
into one of two pinned slabs on a side stream while the previous one is written to disk."""

import json
import os
from typing import Dict, Optional, Tuple

import numpy as np
import torch

_NP_DTYPES = {"bfloat16": np.int16, "float16": np.float16, "float32": np.float32, "int64": np.int64}


def _dtype_name(t: torch.Tensor) -> str:
    return str(t.dtype).replace("torch.", "")


def save_offload_index(index: Dict[str, dict], offload_folder: str) -> None:
    path = os.path.join(offload_folder, "index.json")
    current = {}
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            current = json.load(f)
    current.update(index)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(current, f, indent=2)


def write_dat(offload_folder: str, name: str, host: torch.Tensor, meta: dict) -> None:
    """Write the bytes of a host tensor (any dtype, viewed as bytes) as ``<name>.dat``."""
    array = host.reshape(-1).view(torch.uint8).numpy()
    file_array = np.memmap(os.path.join(offload_folder, f"{name}.dat"), dtype=np.uint8, mode="w+", shape=array.shape)
    # expect: KVG003
    file_array[:] = array[:]
    file_array.flush()


class PinnedStager:
    """Two pinned slabs used in turn, each with the event of its last device-to-host copy."""

    def __init__(self, capacity_bytes: int, device: Optional[torch.device] = None):
        self.capacity = capacity_bytes
        self.slabs = [torch.empty(capacity_bytes, dtype=torch.uint8, pin_memory=True) for _ in range(2)]
        self.events = [torch.cuda.Event() for _ in range(2)]
        self.stream = torch.cuda.Stream(device=device)

    def stage(self, slot: int, tensor: torch.Tensor) -> torch.Tensor:
        nbytes = tensor.numel() * tensor.element_size()
        dst = self.slabs[slot][:nbytes]
        with torch.cuda.stream(self.stream):
            dst.copy_(tensor.detach().reshape(-1).view(torch.uint8), non_blocking=True)
            self.events[slot].record(self.stream)
        return dst


def offload_state_dict(save_dir: str, state_dict: Dict[str, torch.Tensor], staging_mb: int = 256) -> None:
    os.makedirs(save_dir, exist_ok=True)
    stager = PinnedStager(staging_mb << 20)
    # the parameters were written by whatever ran on the compute stream before us
    stager.stream.wait_stream(torch.cuda.current_stream())
    index: Dict[str, dict] = {}
    pending: Optional[Tuple[int, str, torch.Tensor, dict]] = None
    slot = 0
    for name, tensor in state_dict.items():
        meta = {"dtype": _dtype_name(tensor), "shape": list(tensor.shape)}
        nbytes = tensor.numel() * tensor.element_size()
        if not tensor.is_cuda or nbytes > stager.capacity:
            # host tensors and oversized ones take the plain blocking path
            write_dat(save_dir, name, tensor.detach().cpu(), meta)
            index[name] = meta
            continue
        staged = stager.stage(slot, tensor)
        if pending is not None:
            prev_slot, prev_name, prev_host, prev_meta = pending
            stager.events[prev_slot].synchronize()
            write_dat(save_dir, prev_name, prev_host, prev_meta)
            index[prev_name] = prev_meta
        pending = (slot, name, staged, meta)
        slot = 1 - slot
    if pending is not None:
        _, last_name, last_host, last_meta = pending
        write_dat(save_dir, last_name, last_host, last_meta)
        index[last_name] = last_meta
    save_offload_index(index, save_dir)


def load_offloaded_weight(offload_folder: str, name: str, info: dict) -> torch.Tensor:
    shape = tuple(info["shape"]) or (1,)
    array = np.memmap(os.path.join(offload_folder, f"{name}.dat"), dtype=_NP_DTYPES[info["dtype"]], mode="r", shape=shape)
    tensor = torch.from_numpy(np.array(array))
    if info["dtype"] == "bfloat16":
        tensor = tensor.view(torch.bfloat16)
    return tensor.reshape(tuple(info["shape"]))
