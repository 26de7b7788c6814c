# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import torch

from .constants import ARENA_ALIGNMENT, PINNED_ARENA_BYTES
from .cudart import CudaRuntime


@dataclass
class SnapshotEntry:
    name: str
    dtype: torch.dtype
    shape: Tuple[int, ...]
    host: torch.Tensor
    source: torch.Tensor


@dataclass
class Snapshot:
    entries: List[SnapshotEntry] = field(default_factory=list)
    done: object = None


class TensorSnapshotter:
    """Copies device tensors into one pinned arena on a private stream."""

    def __init__(self, runtime: CudaRuntime, arena_bytes: int = PINNED_ARENA_BYTES):
        self._rt = runtime
        self._arena = torch.empty(arena_bytes, dtype=torch.uint8, pin_memory=True)
        self._copy_stream = runtime.stream_create()
        self._ready = runtime.event_create()
        self._done = runtime.event_create()

    def snapshot(self, tensors: Dict[str, torch.Tensor]) -> Snapshot:
        sources = {name: t.detach().contiguous() for name, t in tensors.items()}
        self._rt.event_record(self._ready, torch.cuda.current_stream().cuda_stream)
        self._rt.stream_wait_event(self._copy_stream, self._ready)
        snap = Snapshot(done=self._done)
        offset = 0
        for name, src in sources.items():
            nbytes = src.numel() * src.element_size()
            if offset + nbytes > self._arena.numel():
                raise RuntimeError(f"checkpoint arena too small for {name}")
            host = self._arena.narrow(0, offset, nbytes)
            self._rt.memcpy_d2h_async(host.data_ptr(), src.data_ptr(), nbytes, self._copy_stream)
            snap.entries.append(SnapshotEntry(name, src.dtype, tuple(src.shape), host, src))
            offset += (nbytes + ARENA_ALIGNMENT - 1) // ARENA_ALIGNMENT * ARENA_ALIGNMENT
        self._rt.event_record(self._done, self._copy_stream)
        return snap
