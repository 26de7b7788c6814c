"""Chunks of a long recording go through ``depth`` independent streams: upload, features
kernel, download, then the writer thread appends them to disk."""

import queue
from dataclasses import dataclass

import numpy as np
from numba import cuda

from .kernels import frame_log_energy
from .writer import Shard, ShardWriter


@dataclass
class FeatureConfig:
    chunk_samples: int = 1 << 22
    hop: int = 160
    win: int = 400
    depth: int = 3
    clip_level: float = 0.999
    threads: int = 256

    @property
    def frames_per_chunk(self) -> int:
        return self.chunk_samples // self.hop


class FeaturePipeline:
    def __init__(self, cfg: FeatureConfig):
        self.cfg = cfg
        n, f = cfg.chunk_samples, cfg.frames_per_chunk
        self.streams = [cuda.stream() for _ in range(cfg.depth)]
        self.h_in = [cuda.pinned_array(n, dtype=np.float32) for _ in range(cfg.depth)]
        self.d_in = [cuda.device_array(n, dtype=np.float32) for _ in range(cfg.depth)]
        self.d_out = [cuda.device_array(f, dtype=np.float32) for _ in range(cfg.depth)]
        self.h_out = [cuda.pinned_array(f, dtype=np.float32) for _ in range(cfg.depth)]
        self.clipped = cuda.mapped_array(1, dtype=np.int64)

    def run(self, chunks, path: str):
        cfg = self.cfg
        self.clipped[0] = 0
        free_slots: "queue.Queue[int]" = queue.Queue()
        for s in range(cfg.depth):
            free_slots.put(s)
        writer = ShardWriter(path, free_slots)
        writer.start()
        blocks = (cfg.frames_per_chunk + cfg.threads - 1) // cfg.threads
        for index, chunk in enumerate(chunks):
            s = free_slots.get()
            stream = self.streams[s]
            n = len(chunk)
            self.h_in[s][:n] = chunk
            self.d_in[s].copy_to_device(self.h_in[s], stream=stream)
            frame_log_energy[blocks, cfg.threads, stream](
                self.d_in[s], n, self.d_out[s], cfg.hop, cfg.win, cfg.clip_level, self.clipped
            )
            self.d_out[s].copy_to_host(self.h_out[s], stream=stream)
            writer.submit(Shard(index, s, self.h_out[s], (n + cfg.hop - 1) // cfg.hop))
        writer.close()
        for stream in self.streams:
            stream.synchronize()
        return writer.written, int(self.clipped[0])
