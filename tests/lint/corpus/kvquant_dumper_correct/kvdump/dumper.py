from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence

import numpy as np
import torch

from ._cuda import (
    CUevent,
    check,
    create_event,
    destroy_event,
    event_synchronize,
    libcuda,
    record_event,
    stream_wait_event,
)
from .quant import QuantizedKV, quantize_blocks

logger = logging.getLogger(__name__)


@dataclass
class DumpConfig:
    out_dir: Path
    every_n_steps: int = 100
    layers: Sequence[int] | None = None


class KVQuantDumper:
    def __init__(self, config: DumpConfig, device: torch.device | None = None) -> None:
        self.config = config
        self.config.out_dir.mkdir(parents=True, exist_ok=True)
        self._dump_stream = torch.cuda.Stream(device=device)
        self._ready = create_event()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kvdump-writer")

    def maybe_dump(self, step: int, kv_caches: Sequence[torch.Tensor]) -> List[Future]:
        if step % self.config.every_n_steps:
            return []
        layers = self.config.layers or range(len(kv_caches))
        futures = []
        for layer in layers:
            qkv = quantize_blocks(kv_caches[layer], layer)
            futures.append(self._dump_layer(step, qkv))
        return futures

    def _dump_layer(self, step: int, qkv: QuantizedKV) -> Future:
        stream = self._dump_stream.cuda_stream
        # the quantised tensors were just produced on the compute stream
        record_event(self._ready, torch.cuda.current_stream().cuda_stream)
        stream_wait_event(stream, self._ready)
        host_q = torch.empty(qkv.data.shape, dtype=torch.int8, pin_memory=True)
        host_s = torch.empty(qkv.scales.shape, dtype=torch.float32, pin_memory=True)
        for host, dev in ((host_q, qkv.data), (host_s, qkv.scales)):
            dev.record_stream(self._dump_stream)
            nbytes = dev.numel() * dev.element_size()
            check(libcuda.cuMemcpyDtoHAsync_v2(host.data_ptr(), dev.data_ptr(), nbytes, stream),
                  "cuMemcpyDtoHAsync_v2")
        copied = create_event()
        record_event(copied, stream)
        path = self.config.out_dir / f"step{step:07d}_layer{qkv.layer:03d}.npz"
        return self._writer.submit(self._write, path, host_q, host_s, copied)

    @staticmethod
    def _write(path: Path, host_q: torch.Tensor, host_s: torch.Tensor, copied: CUevent) -> Path:
        try:
            event_synchronize(copied)
        finally:
            destroy_event(copied)
        np.savez(path, q=host_q.numpy(), scales=host_s.numpy())
        logger.debug("wrote %s", path)
        return path

    def close(self) -> None:
        self._writer.shutdown(wait=True)
