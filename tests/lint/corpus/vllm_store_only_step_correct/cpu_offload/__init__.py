"""CPU offload connector for vLLM (fork of SimpleCPUOffloadConnector): the KVConnectorBase_V1
entry points, dispatched by role."""

from typing import Optional, Set, Tuple

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole

from cpu_offload.scheduler import CPUOffloadMetadata, CPUOffloadScheduler
from cpu_offload.worker import CPUOffloadWorker


class CPUOffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config, role)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        num_cpu_blocks = int(extra.get("num_cpu_blocks", 8192))
        if role == KVConnectorRole.SCHEDULER:
            self.scheduler = CPUOffloadScheduler(num_cpu_blocks, vllm_config.cache_config.block_size)
        else:
            self.worker = CPUOffloadWorker(num_cpu_blocks)

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.worker.register_kv_caches(kv_caches)

    def bind_connector_metadata(self, connector_metadata: CPUOffloadMetadata) -> None:
        self.worker.bind_connector_metadata(connector_metadata)

    def clear_connector_metadata(self) -> None:
        self.worker.clear_connector_metadata()

    def start_load_kv(self, forward_context, **kwargs) -> None:
        pass  # loads and stores are both launched from get_finished

    def wait_for_layer_load(self, layer_name: str) -> None: ...
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs) -> None: ...

    def wait_for_save(self) -> None:
        pass

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        return self.worker.get_finished(finished_req_ids)

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int) -> Tuple[int, bool]:
        hit = self.scheduler.get_num_new_matched_tokens(request.block_hashes, num_computed_tokens)
        return hit, True  # loads are asynchronous: the request waits for finished_recving

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None:
        self.scheduler.update_state_after_alloc(request.request_id, request.block_hashes,
                                                blocks.get_block_ids()[0], num_external_tokens)

    def request_finished(self, request, block_ids) -> Tuple[bool, Optional[dict]]:
        delay = self.scheduler.request_finished(request.request_id, request.block_hashes, block_ids[0])
        return delay, None

    def build_connector_meta(self, scheduler_output) -> CPUOffloadMetadata:
        return self.scheduler.build_connector_meta()
