import functools

import torch


@functools.lru_cache(maxsize=1)
def get_device_module():
    return torch.get_device_module()


def page_starts(indices: torch.Tensor, page_size: int) -> list:
    # indices live on the host for the direct io backend
    return indices[::page_size].tolist()
