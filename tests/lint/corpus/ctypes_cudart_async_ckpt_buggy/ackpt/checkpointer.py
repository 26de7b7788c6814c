"""Asynchronous checkpoints: the state is staged into pinned memory on a side stream with
raw cudaMemcpyAsync calls and written to disk by a background thread while training goes on."""

import json
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional

import torch

from . import cudart
from .staging import PinnedArena


class AsyncCheckpointer:
    def __init__(self, directory: str):
        self.directory = directory
        self.copy_stream = torch.cuda.Stream()
        self.arena: Optional[PinnedArena] = None
        self.io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ckpt-io")
        self._inflight: Optional[Future] = None

    def save(self, state: Dict[str, torch.Tensor], step: int) -> Future:
        if self._inflight is not None:
            # the arena is still being written out by the previous save
            self._inflight.result()
        if self.arena is None:
            self.arena = PinnedArena(state)
        stream = self.copy_stream
        stream.wait_stream(torch.cuda.current_stream())
        for entry in self.arena.entries:
            t = state[entry.name]
            cudart.memcpy_async(
                self.arena.base + entry.offset,
                t.data_ptr(),
                entry.nbytes,
                cudart.cudaMemcpyDeviceToHost,
                stream.cuda_stream,
            )
        # the next optimizer step must not overwrite parameters the copies still read
        torch.cuda.current_stream().wait_stream(stream)
        self._inflight = self.io.submit(self._write, step)
        return self._inflight

    def _write(self, step: int) -> str:
        path = os.path.join(self.directory, f"step_{step:08d}.bin")
        tmp = path + ".tmp"
        header = json.dumps([e.__dict__ for e in self.arena.entries]).encode()
        with open(tmp, "wb") as fh:
            fh.write(len(header).to_bytes(8, "little"))
            fh.write(header)
            for entry in self.arena.entries:
                # expect: KVG003
                fh.write(self.arena.view(entry).numpy().tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return path
