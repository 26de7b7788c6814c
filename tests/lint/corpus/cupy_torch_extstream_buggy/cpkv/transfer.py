"""Block copies done with cupy on a stream that torch owns.

The KV cache tensors are torch's; cupy sees them through ``__cuda_array_interface__``.
The side stream is a ``torch.cuda.Stream`` so that torch events can be recorded on it,
and cupy issues its copies there through an ``ExternalStream`` over the same handle."""
from typing import Dict, List, Sequence, Tuple

import cupy
import torch

from .host_pool import PinnedBlockPool


class CupyBlockTransfer:
    def __init__(self, kv_caches: List[torch.Tensor], host: PinnedBlockPool):
        # [num_blocks, block_elems] per layer, on the GPU
        self.gpu_views = [cupy.asarray(t) for t in kv_caches]
        self.host = host
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self._cp_store = cupy.cuda.ExternalStream(self.store_stream.cuda_stream)
        self._cp_load = cupy.cuda.ExternalStream(self.load_stream.cuda_stream)
        self._pending: Dict[int, torch.cuda.Event] = {}

    def store(self, job_id: int, pairs: Sequence[Tuple[int, int]]) -> None:
        for gpu_view, host_layer in zip(self.gpu_views, self.host.layers):
            for gpu_block, cpu_block in pairs:
                # expect: KVG001
                gpu_view[gpu_block].get(stream=self._cp_store, out=host_layer[cpu_block],
                                        blocking=False)
        done = torch.cuda.Event()
        done.record(self.store_stream)
        self._pending[job_id] = done

    def load(self, job_id: int, pairs: Sequence[Tuple[int, int]]) -> None:
        self.load_stream.wait_stream(torch.cuda.current_stream())
        for gpu_view, host_layer in zip(self.gpu_views, self.host.layers):
            for cpu_block, gpu_block in pairs:
                gpu_view[gpu_block].set(host_layer[cpu_block], stream=self._cp_load)
        done = torch.cuda.Event()
        done.record(self.load_stream)
        # the forward reads the loaded blocks
        torch.cuda.current_stream().wait_event(done)
        self._pending[job_id] = done

    def finished(self) -> List[int]:
        ready = [job for job, ev in self._pending.items() if ev.query()]
        for job in ready:
            del self._pending[job]
        return ready
