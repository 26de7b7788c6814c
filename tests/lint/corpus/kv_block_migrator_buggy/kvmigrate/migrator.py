from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import torch
from cuda.bindings import driver

from .batch_copy import as_devptrs, make_d2h_attrs, raise_on_error
from .constants import BlockMove, SrcAccessOrder

logger = logging.getLogger(__name__)


@dataclass
class OffloadTicket:
    device: int
    gpu_blocks: list[int]
    host_blocks: list[int]
    done: torch.cuda.Event = field(repr=False)

    def ready(self) -> bool:
        return self.done.query()

    def wait(self) -> None:
        self.done.synchronize()


class KVBlockMigrator:
    """Moves fixed-size KV blocks GPU->GPU (peer) and GPU->host.

    ``pools[dev]`` is the ``[num_blocks, block_bytes]`` uint8 view of the paged
    KV cache on ``cuda:dev``; ``host_pool`` is a pinned tensor of the same row
    size. Each device gets its own transfer stream.
    """

    def __init__(self, pools: Mapping[int, torch.Tensor], host_pool: torch.Tensor) -> None:
        if not host_pool.is_pinned():
            raise ValueError("host_pool must be pinned")
        self._pools = dict(pools)
        self._host_pool = host_pool
        self._block_bytes = host_pool.shape[1]
        self._xfer: dict[int, torch.cuda.Stream] = {
            dev: torch.cuda.Stream(device=dev) for dev in self._pools
        }

    def migrate_peer(self, moves: Sequence[BlockMove]) -> None:
        key = lambda m: (m.src_device, m.dst_device)
        for (src, dst), group in itertools.groupby(sorted(moves, key=key), key=key):
            xfer = self._xfer[dst]
            xfer.wait_stream(torch.cuda.current_stream(src))
            xfer.wait_stream(torch.cuda.current_stream(dst))
            src_pool, dst_pool = self._pools[src], self._pools[dst]
            with torch.cuda.stream(xfer):
                for m in group:
                    dst_pool[m.dst_block].copy_(src_pool[m.src_block], non_blocking=True)
            # attention on dst must not read the blocks before they land
            torch.cuda.current_stream(dst).wait_stream(xfer)

    def offload(self, device: int, moves: Sequence[BlockMove]) -> OffloadTicket:
        stream = self._xfer[device]
        pool = self._pools[device]
        srcs = as_devptrs([pool[m.src_block].data_ptr() for m in moves])
        dsts = as_devptrs([self._host_pool[m.dst_block].data_ptr() for m in moves])
        sizes = [self._block_bytes] * len(moves)
        attrs = make_d2h_attrs(
            device,
            src_access_order=SrcAccessOrder.ANY,
        )
        with torch.cuda.device(device):
            # expect: KVG001, KVG002
            err, fail_idx = driver.cuMemcpyBatchAsync(
                dsts, srcs, sizes, len(moves), [attrs], [0], 1, driver.CUstream(stream.cuda_stream)
            )
        raise_on_error(err, fail_idx, len(moves))
        done = torch.cuda.Event()
        done.record(stream)
        logger.debug("offloading %d blocks from cuda:%d", len(moves), device)
        return OffloadTicket(
            device=device,
            gpu_blocks=[m.src_block for m in moves],
            host_blocks=[m.dst_block for m in moves],
            done=done,
        )

    def release(self, ticket: OffloadTicket) -> list[int]:
        """Return GPU blocks to the allocator once the offload has read them."""
        torch.cuda.current_stream(ticket.device).wait_event(ticket.done)
        return ticket.gpu_blocks
