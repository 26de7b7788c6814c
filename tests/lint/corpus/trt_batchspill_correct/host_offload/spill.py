"""Writes offloaded host blocks to local disk on a small thread pool."""

import os
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from .constants import SPILL_WORKERS


def _write_block(path: str, host_block: torch.Tensor, done: torch.cuda.Event) -> str:
    done.synchronize()
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(host_block.numpy().tobytes())
    os.replace(tmp, path)
    return path


class DiskSpiller:
    def __init__(self, workers: int = SPILL_WORKERS):
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kv-spill")

    def submit(self, path: str, host_block: torch.Tensor, done: torch.cuda.Event) -> Future:
        return self._executor.submit(_write_block, path, host_block, done)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
