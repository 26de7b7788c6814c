import collections
import logging
from dataclasses import dataclass, field
from typing import Optional

import torch

from .constants import TOKENS_PER_BLOCK
from .device import compute_stream, current_device, device_module, make_transfer_stream
from .pools import BlockPool

logger = logging.getLogger("tensorrt_llm")


@dataclass(frozen=True)
class KvCacheConfig:
    num_primary_blocks: int
    num_secondary_blocks: int
    num_layers: int
    num_kv_heads: int
    head_dim: int

    @property
    def block_numel(self) -> int:
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * TOKENS_PER_BLOCK


@dataclass
class LlmRequest:
    request_id: int
    blocks: list[int] = field(default_factory=list)
    host_blocks: list[int] = field(default_factory=list)
    prefix_snapshot: Optional[torch.Tensor] = None
    py_prefix_kv: Optional[torch.Tensor] = None


class KVCacheManager:

    def __init__(self, cfg: KvCacheConfig):
        self.cfg = cfg
        self._dm = device_module()
        dev = current_device()
        self.primary = BlockPool(cfg.num_primary_blocks, cfg.block_numel, dev)
        self.secondary = BlockPool(cfg.num_secondary_blocks, cfg.block_numel, torch.device("cpu"), pin=True)
        self._xfer_stream = make_transfer_stream()
        self._lru: "collections.OrderedDict[int, LlmRequest]" = collections.OrderedDict()

    def _evict_lru(self, compute: torch.Stream) -> None:
        _, victim = self._lru.popitem(last=False)
        self._xfer_stream.wait_stream(compute)
        with self._dm.stream(self._xfer_stream):
            for blk in victim.blocks:
                host_blk = self.secondary.try_allocate()
                if host_blk is None:
                    raise RuntimeError("secondary KV pool exhausted")
                self.secondary.kv[host_blk].copy_(self.primary.kv[blk], non_blocking=True)
                victim.host_blocks.append(host_blk)
        for blk in victim.blocks:
            self.primary.release(blk)
        victim.blocks = []
        logger.debug("offloaded request %d to host", victim.request_id)

    def _onboard(self, req: LlmRequest, compute: torch.Stream) -> None:
        dst_blocks = []
        for _ in req.host_blocks:
            blk = self.primary.try_allocate()
            if blk is None:
                self._evict_lru(compute)
                blk = self.primary.try_allocate()
            dst_blocks.append(blk)
        self._xfer_stream.wait_stream(compute)
        with self._dm.stream(self._xfer_stream):
            for src, dst in zip(req.host_blocks, dst_blocks):
                self.primary.kv[dst].copy_(self.secondary.kv[src], non_blocking=True)
        for src in req.host_blocks:
            self.secondary.release(src)
        req.blocks, req.host_blocks = dst_blocks, []

    def _restore_prefix(self, req: LlmRequest) -> None:
        with self._dm.stream(self._xfer_stream):
            buf = torch.empty(req.prefix_snapshot.shape, dtype=req.prefix_snapshot.dtype, device=current_device())
            buf.copy_(req.prefix_snapshot, non_blocking=True)
        req.py_prefix_kv = buf

    def prepare_resources(self, scheduled: list[LlmRequest]) -> None:
        compute = compute_stream()
        for req in scheduled:
            if req.host_blocks:
                self._onboard(req, compute)
            if req.prefix_snapshot is not None and req.py_prefix_kv is None:
                self._restore_prefix(req)
                req.py_prefix_kv.record_stream(compute)
            self._lru[req.request_id] = req
            self._lru.move_to_end(req.request_id)
        compute.wait_stream(self._xfer_stream)

    def free_resources(self, req: LlmRequest) -> None:
        self._lru.pop(req.request_id, None)
        for blk in req.blocks:
            self.primary.release(blk)
        req.blocks = []
