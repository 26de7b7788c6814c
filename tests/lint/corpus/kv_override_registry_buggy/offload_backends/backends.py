"""Pluggable copy backends for a CPU offload connector. Each backend gets the caches and two
side streams; ``launch_store`` / ``launch_load`` receive an event recorded on the compute
stream and must make their stream wait on it before copying. Bug: the swap-op backend's
store forgets the wait, so its ``swap_blocks`` reads KV blocks the forward may still write."""

import torch
from vllm import _custom_ops as ops


class CopyBackend:
    name = "abstract"

    def __init__(self, gpu_caches, cpu_caches, store_stream, load_stream):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.store_stream = store_stream
        self.load_stream = load_stream

    def launch_store(self, gpu_blocks, cpu_blocks, ready):
        raise NotImplementedError

    def launch_load(self, cpu_blocks, gpu_blocks, ready):
        raise NotImplementedError


class TensorCopyBackend(CopyBackend):
    name = "tensor"

    def launch_store(self, gpu_blocks, cpu_blocks, ready):
        self.store_stream.wait_event(ready)
        with torch.cuda.stream(self.store_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for g, c in zip(gpu_blocks, cpu_blocks):
                    cpu_cache[c].copy_(gpu_cache[g], non_blocking=True)
            return self.store_stream.record_event()

    def launch_load(self, cpu_blocks, gpu_blocks, ready):
        self.load_stream.wait_event(ready)
        with torch.cuda.stream(self.load_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for c, g in zip(cpu_blocks, gpu_blocks):
                    gpu_cache[g].copy_(cpu_cache[c], non_blocking=True)
            return self.load_stream.record_event()


class SwapOpBackend(CopyBackend):
    name = "swap_op"

    @staticmethod
    def _mapping(src_blocks, dst_blocks):
        return torch.tensor(list(zip(src_blocks, dst_blocks)), dtype=torch.int64, device="cpu")

    def launch_store(self, gpu_blocks, cpu_blocks, ready):
        mapping = self._mapping(gpu_blocks, cpu_blocks)
        with torch.cuda.stream(self.store_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                # expect: KVG001
                ops.swap_blocks(gpu_cache, cpu_cache, mapping)
            return self.store_stream.record_event()

    def launch_load(self, cpu_blocks, gpu_blocks, ready):
        mapping = self._mapping(cpu_blocks, gpu_blocks)
        ready.wait(self.load_stream)
        with torch.cuda.stream(self.load_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                ops.swap_blocks(cpu_cache, gpu_cache, mapping)
            return self.load_stream.record_event()
