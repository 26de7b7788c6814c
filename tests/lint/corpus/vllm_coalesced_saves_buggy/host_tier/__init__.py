"""HostTierConnector: keeps the KV blocks of finished requests in pinned host memory so a
sidecar can export them (a fork of vLLM's CPU offloading connector that only saves).

The scheduler side picks host slots for a finished request's blocks and delays freeing the
GPU blocks until the worker reports the save done; the worker side queues one save job per
step from wait_for_save."""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import (
    KVConnectorBase_V1, KVConnectorMetadata, KVConnectorRole)

from host_tier.worker import HostTierWorker


@dataclass
class HostTierMetadata(KVConnectorMetadata):
    step: int = 0
    saves: Dict[str, Tuple[List[int], List[int]]] = field(default_factory=dict)


class HostTierScheduler:
    def __init__(self, num_host_slots: int):
        self.free_slots = list(range(num_host_slots))
        self.slots_of: Dict[str, List[int]] = {}
        self.step = 0
        self._to_save: Dict[str, Tuple[List[int], List[int]]] = {}

    def request_finished(self, req_id: str, gpu_blocks: List[int]) -> bool:
        if not gpu_blocks or len(gpu_blocks) > len(self.free_slots):
            return False
        slots = [self.free_slots.pop() for _ in gpu_blocks]
        self.slots_of[req_id] = slots
        self._to_save[req_id] = (list(gpu_blocks), slots)
        return True  # keep the GPU blocks until the save is reported finished

    def release(self, req_id: str) -> None:
        """The exporter has shipped the request: its host slots can be reused."""
        self.free_slots.extend(self.slots_of.pop(req_id, []))

    def build_connector_meta(self) -> HostTierMetadata:
        self.step += 1
        meta = HostTierMetadata(step=self.step, saves=self._to_save)
        self._to_save = {}
        return meta


class HostTierConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config, role)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        slots = int(extra.get("num_host_slots", 16384))
        if role == KVConnectorRole.SCHEDULER:
            self.scheduler = HostTierScheduler(slots)
        else:
            self.worker = HostTierWorker(slots, int(extra.get("max_coalesce", 8)))

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.worker.register_kv_caches(kv_caches)

    def start_load_kv(self, forward_context, **kwargs) -> None: ...
    def wait_for_layer_load(self, layer_name: str) -> None: ...
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs) -> None: ...

    def wait_for_save(self) -> None:
        self.worker.wait_for_save(self._get_connector_metadata())

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        return self.worker.get_finished(), None

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int) -> Tuple[int, bool]:
        return 0, False

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None: ...

    def request_finished(self, request, block_ids) -> Tuple[bool, Optional[dict]]:
        return self.scheduler.request_finished(request.request_id, block_ids[0]), None

    def build_connector_meta(self, scheduler_output) -> HostTierMetadata:
        return self.scheduler.build_connector_meta()
