import logging
import os
from concurrent.futures import Future

import cupy

from .config import SpillConfig
from .constants import SPILL_SUFFIX
from .pool import DeviceBlockPool, PinnedStagingRing
from .spiller import BlockSpiller, SpillJob

logger = logging.getLogger(__name__)


class PagedKVEngine:

    def __init__(self, cfg: SpillConfig):
        self.cfg = cfg
        self.pool = DeviceBlockPool(cfg)
        self.spiller = BlockSpiller(cfg, self.pool, PinnedStagingRing(cfg))
        with cupy.cuda.Device(cfg.device_id):
            self.compute_stream = cupy.cuda.Stream(non_blocking=True)
        self._block_tables: dict[int, list[int]] = {}
        self._spilled: dict[int, list[str]] = {}
        self._pending: list["Future[str]"] = []

    def add_request(self, request_id: int, num_blocks: int) -> None:
        self._block_tables[request_id] = [self.pool.allocate() for _ in range(num_blocks)]

    def append_kv(self, request_id: int, block_idx: int, k: cupy.ndarray, v: cupy.ndarray) -> None:
        bid = self._block_tables[request_id][block_idx]
        with self.compute_stream:
            blk = self.pool.kv[bid].reshape(2, -1)
            blk[0, : k.size] = k.ravel()
            blk[1, : v.size] = v.ravel()

    def spill_request(self, request_id: int) -> None:
        ready = cupy.cuda.Event()
        ready.record(self.compute_stream)
        paths = []
        for i, bid in enumerate(self._block_tables.pop(request_id)):
            path = os.path.join(self.cfg.spill_dir, f"{request_id}_{i}{SPILL_SUFFIX}")
            self._pending.append(self.spiller.submit(SpillJob(request_id, bid, ready, path)))
            paths.append(path)
        self._spilled[request_id] = paths

    def restore_request(self, request_id: int) -> None:
        for fut in self._pending:
            fut.result()
        self._pending.clear()
        paths = self._spilled.pop(request_id)
        self._block_tables[request_id] = [
            self.spiller.reload(p, self.compute_stream) for p in paths
        ]
        logger.info("restored request %d (%d blocks)", request_id, len(paths))

    def finish_request(self, request_id: int) -> None:
        for bid in self._block_tables.pop(request_id, []):
            self.pool.release(bid)
