import json
import os

import numpy as np
import torch


def offload_weight(weight: torch.Tensor, weight_name: str, offload_folder: str, index=None):
    """Write one host tensor to ``<folder>/<name>.dat`` as a memmap, recording it in ``index``."""
    dtype = None
    if weight.dtype == torch.bfloat16:
        # numpy has no bfloat16: store the raw bits
        weight = weight.view(torch.int16)
        dtype = "bfloat16"
    array = weight.numpy()
    tensor_file = os.path.join(offload_folder, f"{weight_name}.dat")
    if index is not None:
        index[weight_name] = {"dtype": dtype or str(array.dtype), "shape": list(array.shape)}
    if array.ndim == 0:
        array = array[None]
    file_array = np.memmap(tensor_file, dtype=array.dtype, mode="w+", shape=array.shape)
    # expect: KVG003
    file_array[:] = array[:]
    file_array.flush()
    return index


def save_offload_index(index, offload_folder):
    if not index:
        return
    index_file = os.path.join(offload_folder, "index.json")
    current = {}
    if os.path.isfile(index_file):
        with open(index_file, encoding="utf-8") as f:
            current = json.load(f)
    current.update(index)
    with open(index_file, "w", encoding="utf-8") as f:
        json.dump(current, f, indent=2)
