"""Worker side of the connector (KVConnectorBase_V1 shape); the scheduler side decides
which blocks go out and come back, and passes them in SwapMetadata."""

import queue
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorMetadata

from swap_tier.swap_request import SwapKind, SwapRequest
from swap_tier.swap_worker import SwapWorker


@dataclass
class SwapMetadata(KVConnectorMetadata):
    # request id -> (gpu blocks, cpu blocks)
    swap_in: Dict[str, Tuple[List[int], List[int]]] = field(default_factory=dict)
    swap_out: Dict[str, Tuple[List[int], List[int]]] = field(default_factory=dict)


class SwapTierConnector(KVConnectorBase_V1):

    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        self.num_cpu_blocks = int(extra.get("num_cpu_blocks", 8192))
        self.worker: Optional[SwapWorker] = None
        self._in_flight: List[SwapRequest] = []

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        gpu_caches = list(kv_caches.values())
        cpu_caches = [
            torch.empty((self.num_cpu_blocks, ) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.worker = SwapWorker(gpu_caches, cpu_caches, gpu_caches[0].device)

    def _hand_over(self, kind: SwapKind, jobs: Dict[str, Tuple[List[int], List[int]]]) -> None:
        for req_id, (gpu_blocks, cpu_blocks) in jobs.items():
            request = SwapRequest(kind, req_id, gpu_blocks, cpu_blocks)
            request.ready.record()
            self.worker.submit(request)

    def start_load_kv(self, forward_context, **kwargs) -> None:
        # blocks handed to a swap-in may have been freed by requests whose kernels are queued
        self._hand_over(SwapKind.IN, self._get_connector_metadata().swap_in)

    def wait_for_layer_load(self, layer_name: str) -> None:
        pass  # swap-ins are asynchronous: the scheduler waits for get_finished

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs) -> None:
        pass

    def wait_for_save(self) -> None:
        # the forward that wrote the blocks has been queued
        self._hand_over(SwapKind.OUT, self._get_connector_metadata().swap_out)

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        while True:
            try:
                self._in_flight.append(self.worker.completed.get_nowait())
            except queue.Empty:
                break
        sending, recving, pending = set(), set(), []
        for request in self._in_flight:
            if not request.done.query():
                pending.append(request)
            elif request.kind is SwapKind.OUT:
                sending.add(request.req_id)
            else:
                recving.add(request.req_id)
        self._in_flight = pending
        return sending or None, recving or None
