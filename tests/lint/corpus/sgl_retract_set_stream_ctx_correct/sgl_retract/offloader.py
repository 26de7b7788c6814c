"""Offloads the KV of retracted decode requests to pinned host memory so they can resume later
without recomputing their prefix. Completion events are kept per request id."""

from typing import Dict, Tuple

import torch

from sgl_retract.stream_utils import use_stream


class RetractedKVOffloader:
    def __init__(self, device_pool, max_host_tokens: int):
        self.device_pool = device_pool
        k0 = device_pool.k_buffer[0]
        shape = (device_pool.layer_num, max_host_tokens) + tuple(k0.shape[1:])
        self.host_k = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.host_v = torch.empty(shape, dtype=k0.dtype, pin_memory=True)
        self.offload_stream = torch.cuda.Stream()
        self.next_free = 0
        self.host_ranges: Dict[str, Tuple[int, int]] = {}
        self.swap_out_done: Dict[str, torch.cuda.Event] = {}

    def swap_out(self, rid: str, kv_indices: torch.Tensor) -> bool:
        n = kv_indices.numel()
        if n == 0:
            return True
        if self.next_free + n > self.host_k.shape[1]:
            return False
        start = self.next_free
        self.next_free += n
        with use_stream(self.offload_stream):
            for layer_id in range(self.device_pool.layer_num):
                k = self.device_pool.k_buffer[layer_id][kv_indices]
                v = self.device_pool.v_buffer[layer_id][kv_indices]
                self.host_k[layer_id, start : start + n].copy_(k, non_blocking=True)
                self.host_v[layer_id, start : start + n].copy_(v, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        # the caller frees the device slots right away: later kernels writing them must not
        # overtake the copies reading them
        torch.cuda.current_stream().wait_event(done)
        self.host_ranges[rid] = (start, n)
        self.swap_out_done[rid] = done
        return True

    def is_swapped_out(self, rid: str) -> bool:
        done = self.swap_out_done.get(rid)
        return done is not None and done.query()

    def swap_in(self, rid: str, kv_indices: torch.Tensor) -> None:
        start, n = self.host_ranges.pop(rid)
        done = self.swap_out_done.pop(rid)
        with use_stream(self.offload_stream):
            done.wait()
            for layer_id in range(self.device_pool.layer_num):
                self.device_pool.k_buffer[layer_id][kv_indices] = self.host_k[layer_id, start : start + n].to(
                    kv_indices.device, non_blocking=True)
                self.device_pool.v_buffer[layer_id][kv_indices] = self.host_v[layer_id, start : start + n].to(
                    kv_indices.device, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.offload_stream)
