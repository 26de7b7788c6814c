"""Scheduler-to-worker metadata and the lazily created transfer streams."""

from dataclasses import dataclass, field

import torch


@dataclass
class ReqMeta:
    req_id: str
    gpu_block_ids: list
    host_block_ids: list


@dataclass
class HostKVConnectorMetadata:
    loads: list = field(default_factory=list)
    saves: list = field(default_factory=list)


class TransferStreams:
    """One save and one load stream per worker, created on first use."""

    def __init__(self, device=None):
        self._device = device
        self._save = None
        self._load = None

    @property
    def save(self):
        if self._save is None:
            self._save = torch.cuda.Stream(device=self._device)
        return self._save

    @property
    def load(self):
        if self._load is None:
            self._load = torch.cuda.Stream(device=self._device)
        return self._load


def allocate_host_cache(gpu_cache, num_host_blocks):
    # gpu_cache: [2, num_blocks, block_size, heads, dim]
    shape = (gpu_cache.shape[0], num_host_blocks, *gpu_cache.shape[2:])
    return torch.zeros(shape, dtype=gpu_cache.dtype, device="cpu", pin_memory=True)
