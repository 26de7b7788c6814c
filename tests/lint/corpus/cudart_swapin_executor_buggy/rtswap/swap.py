"""Swap-out / swap-in of KV blocks with cudaMemcpyAsync on two runtime streams.

Swap-ins are issued from a single worker thread so that the scheduler does not stall on
the per-block copy calls; the scheduler collects the issue future before it launches the
forward that reads the swapped-in blocks."""
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, NamedTuple, Tuple

import torch
from cuda.bindings import runtime as cudart

from .pools import BlockPool
from .rt import check, nonblocking_stream, sync_event

D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice


class SwapIn(NamedTuple):
    pairs: List[Tuple[int, int]]     # (host block, gpu block)
    after: tuple                     # events the copies must wait for


class SwapTicket(NamedTuple):
    future: Future
    owned: tuple                     # events to destroy once the swap-in is collected


class BlockSwapper:
    def __init__(self, gpu: BlockPool, host: BlockPool):
        self.gpu = gpu
        self.host = host
        self.out_stream = nonblocking_stream()
        self.in_stream = nonblocking_stream()
        self.compute_mark = sync_event()
        self.out_done = sync_event()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="swap-in")

    def swap_out(self, pairs: List[Tuple[int, int]]) -> None:
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaEventRecord(self.compute_mark, compute))
        check(cudart.cudaStreamWaitEvent(self.out_stream, self.compute_mark, 0))
        nbytes = self.gpu.block_bytes
        for g, h in pairs:
            check(cudart.cudaMemcpyAsync(self.host.addr(h), self.gpu.addr(g), nbytes, D2H,
                                         self.out_stream))
        check(cudart.cudaEventRecord(self.out_done, self.out_stream))

    def swap_in(self, pairs: List[Tuple[int, int]]) -> SwapTicket:
        # the host blocks may still be landing from their swap-out
        job = SwapIn(pairs, (self.out_done,))
        return SwapTicket(self._pool.submit(self._issue, job), ())

    def _issue(self, job: SwapIn):
        for ev in job.after:
            check(cudart.cudaStreamWaitEvent(self.in_stream, ev, 0))
        nbytes = self.gpu.block_bytes
        for h, g in job.pairs:
            # expect: KVG004
            check(cudart.cudaMemcpyAsync(self.gpu.addr(g), self.host.addr(h), nbytes, H2D,
                                         self.in_stream))
        landed = sync_event()
        check(cudart.cudaEventRecord(landed, self.in_stream))
        return landed

    def collect(self, ticket: SwapTicket) -> None:
        """On the scheduler thread, before the forward: order compute behind the swap-in,
        and later swap-outs (which may reuse the host blocks) too."""
        landed = ticket.future.result()
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaStreamWaitEvent(compute, landed, 0))
        check(cudart.cudaStreamWaitEvent(self.out_stream, landed, 0))
        for ev in (landed,) + ticket.owned:
            check(cudart.cudaEventDestroy(ev))
