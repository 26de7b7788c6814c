"""Swaps the recurrent state of preempted requests out to pinned host memory and back,
on a side stream, with one batched copy per direction."""
from typing import Dict, List, Tuple

import torch

from .cudart_utils import memcpy_batch
from .state_pool import MambaStatePool


class StateSwapper:
    def __init__(self, pool: MambaStatePool):
        self.pool = pool
        self.stream = torch.cuda.Stream()
        self._swapped_out: Dict[int, torch.cuda.Event] = {}

    def _pairs(self, gpu_slot: int, host_slot: int, to_host: bool) -> Tuple[List[int], List[int], List[int]]:
        dsts, srcs, sizes = [], [], []
        conv_bytes, ssm_bytes = self.pool.slot_bytes()
        for layer in range(self.pool.shapes.num_layers):
            for dev_t, host_t, n in ((self.pool.conv[layer], self.pool.host_conv[layer], conv_bytes),
                                     (self.pool.ssm[layer], self.pool.host_ssm[layer], ssm_bytes)):
                d = dev_t[gpu_slot].data_ptr()
                h = host_t[host_slot].data_ptr()
                dsts.append(h if to_host else d)
                srcs.append(d if to_host else h)
                sizes.append(n)
        return dsts, srcs, sizes

    def swap_out(self, req_id: int, gpu_slot: int) -> int:
        host_slot = self.pool.free_host.pop()
        dsts, srcs, sizes = self._pairs(gpu_slot, host_slot, to_host=True)
        # the last decode step updated this request's state on the compute stream
        self.stream.wait_stream(torch.cuda.current_stream())
        # the source is GPU state the compute stream wrote: read it in stream order
        memcpy_batch(dsts, srcs, sizes, self.stream.cuda_stream, src_order="stream")
        done = torch.cuda.Event()
        done.record(self.stream)
        # the GPU slot is handed to another request right away: its kernels come after the copy
        torch.cuda.current_stream().wait_event(done)
        self._swapped_out[req_id] = done
        return host_slot

    def swap_in(self, req_id: int, host_slot: int, gpu_slot: int) -> None:
        done = self._swapped_out.pop(req_id)
        # the host copy must have landed: the load below may read it out of stream order
        done.synchronize()
        # the slot was just freed by another request; its last reads are on compute
        self.stream.wait_stream(torch.cuda.current_stream())
        dsts, srcs, sizes = self._pairs(gpu_slot, host_slot, to_host=False)
        # pinned host sources: nothing writes them once the swap-out has landed
        memcpy_batch(dsts, srcs, sizes, self.stream.cuda_stream, src_order="any")
        torch.cuda.current_stream().wait_stream(self.stream)
        self.pool.free_host.append(host_slot)
