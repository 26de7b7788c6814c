import ctypes
import logging
from dataclasses import dataclass, field
from typing import Dict, List, Set

import torch

from cpu_offload import cudart
from cpu_offload.loader import BlockLoader

logger = logging.getLogger(__name__)


@dataclass
class ReqLoadSpec:
    req_id: str
    cpu_block_ids: List[int]
    gpu_block_ids: List[int]


@dataclass
class CPUOffloadConnectorMetadata:
    reqs_to_load: List[ReqLoadSpec] = field(default_factory=list)


class CPUOffloadConnectorWorker:
    def __init__(self, block_bytes: int):
        self.block_bytes = block_bytes
        self.loader: BlockLoader = None  # type: ignore[assignment]
        self._fwd_event = cudart.event_create()
        self._loading: Set[str] = set()

    def register_kv_caches(self, gpu_caches: Dict[str, torch.Tensor], cpu_caches: Dict[str, torch.Tensor]):
        self.loader = BlockLoader(gpu_caches, cpu_caches, self.block_bytes, before_issue=self._order_after_forward)
        logger.info("registered %d KV cache tensors for CPU offload", len(gpu_caches))

    def _order_after_forward(self, load_stream):
        compute = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        cudart.event_record(self._fwd_event, load_stream)
        cudart.stream_wait_event(load_stream, self._fwd_event)

    def start_load_kv(self, metadata: CPUOffloadConnectorMetadata):
        for spec in metadata.reqs_to_load:
            self.loader.load_blocks(spec.req_id, spec.cpu_block_ids, spec.gpu_block_ids)
            self._loading.add(spec.req_id)

    def get_finished(self) -> Set[str]:
        done = set(self.loader.poll())
        self._loading -= done
        return done
