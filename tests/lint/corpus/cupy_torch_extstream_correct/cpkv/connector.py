"""Worker side of the offload connector, called by the model runner around each forward."""
import itertools
import logging
from typing import Dict, List, Optional, Set, Tuple

import torch

from .config import OffloadConfig
from .host_pool import PinnedBlockPool
from .transfer import CupyBlockTransfer

logger = logging.getLogger(__name__)


class CupyOffloadConnector:
    def __init__(self, config: Optional[OffloadConfig] = None):
        self.config = config or OffloadConfig()
        self.transfer: Optional[CupyBlockTransfer] = None
        self._job_ids = itertools.count()
        self._job_req: Dict[int, str] = {}
        self._to_store: List[Tuple[str, List[int]]] = []
        self._to_load: List[Tuple[str, List[int], List[int]]] = []
        self.cpu_blocks: Dict[str, List[int]] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        caches = list(kv_caches.values())
        host = PinnedBlockPool(len(caches), self.config.num_cpu_blocks,
                               caches[0].shape[1], self.config.host_dtype)
        self.transfer = CupyBlockTransfer(caches, host)
        logger.info("cpu offload: %d layers, %d host blocks", len(caches),
                    self.config.num_cpu_blocks)

    def bind_step(self, stores: List[Tuple[str, List[int]]],
                  loads: List[Tuple[str, List[int], List[int]]]) -> None:
        self._to_store = stores
        self._to_load = loads

    def start_load_kv(self) -> None:
        for req_id, cpu_blocks, gpu_blocks in self._to_load:
            job = next(self._job_ids)
            self._job_req[job] = req_id
            self.transfer.load(job, list(zip(cpu_blocks, gpu_blocks)))

    def wait_for_save(self) -> None:
        """After the forward: copy the step's newly filled blocks out."""
        step = self.config.max_blocks_per_job
        if self._to_store:
            # the forward just queued its KV writes on this thread's stream; the store
            # stream must not read the blocks before they land
            self.transfer.store_stream.wait_stream(torch.cuda.current_stream())
        for req_id, gpu_blocks in self._to_store:
            cpu = self.transfer.host.allocate(len(gpu_blocks))
            self.cpu_blocks.setdefault(req_id, []).extend(cpu)
            for i in range(0, len(gpu_blocks), step):
                job = next(self._job_ids)
                self._job_req[job] = req_id
                self.transfer.store(job, list(zip(gpu_blocks[i:i + step], cpu[i:i + step])))

    def get_finished(self) -> Set[str]:
        return {self._job_req.pop(job) for job in self.transfer.finished()}
