"""Streams a host-resident KV through two device chunk buffers: chunk i+1 is uploaded on
the copy stream while chunk i is attended on the compute stream."""
import numpy as np
from numba import cuda

from .host_kv import HostKV
from .kernels import chunk_attention, merge_partials


class ChunkStreamer:
    def __init__(self, kv: HostKV):
        self.kv = kv
        shape = (kv.chunk_tokens, kv.num_heads, kv.head_dim)
        self.compute = cuda.stream()
        self.copy = cuda.stream()
        self.k_buf = [cuda.device_array(shape, dtype=np.float32) for _ in range(2)]
        self.v_buf = [cuda.device_array(shape, dtype=np.float32) for _ in range(2)]
        h, d = kv.num_heads, kv.head_dim
        self.m_part = cuda.device_array(h, dtype=np.float32)
        self.l_part = cuda.device_array(h, dtype=np.float32)
        self.acc_part = cuda.device_array((h, d), dtype=np.float32)
        self.threads = max(32, 1 << (d - 1).bit_length())
        # recorded on the compute stream after the last kernel that reads each buffer
        self.consumed = [cuda.event(timing=False) for _ in range(2)]

    def _upload(self, i: int) -> None:
        slot = i % 2
        chunk = self.kv.chunks[i]
        # the attention of chunk i-2 may still be reading this buffer
        self.consumed[slot].wait(self.copy)
        # the host waits for the upload, so the kernel launched next sees the whole chunk
        with self.copy.auto_synchronize():
            self.k_buf[slot].copy_to_device(chunk.k, stream=self.copy)
            self.v_buf[slot].copy_to_device(chunk.v, stream=self.copy)

    def attend(self, q: np.ndarray) -> np.ndarray:
        h, d = self.kv.num_heads, self.kv.head_dim
        d_q = cuda.to_device(np.ascontiguousarray(q, dtype=np.float32), stream=self.compute)
        m_run = cuda.to_device(np.full(h, -1e30, dtype=np.float32), stream=self.compute)
        l_run = cuda.to_device(np.zeros(h, dtype=np.float32), stream=self.compute)
        acc_run = cuda.to_device(np.zeros((h, d), dtype=np.float32), stream=self.compute)
        n = len(self.kv.chunks)
        if n:
            self._upload(0)
        for i in range(n):
            slot = i % 2
            chunk_attention[h, self.threads, self.compute](
                d_q, self.k_buf[slot], self.v_buf[slot], self.kv.chunks[i].n_valid,
                self.m_part, self.l_part, self.acc_part)
            self.consumed[slot].record(self.compute)
            merge_partials[h, self.threads, self.compute](
                m_run, l_run, acc_run, self.m_part, self.l_part, self.acc_part)
            if i + 1 < n:
                self._upload(i + 1)
        out = acc_run.copy_to_host(stream=self.compute)
        l_host = l_run.copy_to_host(stream=self.compute)
        self.compute.synchronize()
        return out / l_host[:, None]
