"""The KVConnectorBase_V1 facade vLLM instantiates (worker role only in this fork's tests)."""

from typing import Optional, Set, Tuple

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole

from offload_plus.worker import OffloadConnectorWorker


class OffloadPlusConnector(KVConnectorBase_V1):

    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config, role)
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        self.connector_worker = OffloadConnectorWorker(dict(extra)) if role == KVConnectorRole.WORKER else None

    def register_kv_caches(self, kv_caches) -> None:
        self.connector_worker.register_kv_caches(kv_caches)

    def start_load_kv(self, forward_context, **kwargs) -> None:
        self.connector_worker.start_load_kv(self._get_connector_metadata())

    def wait_for_layer_load(self, layer_name: str) -> None:
        pass

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs) -> None:
        pass

    def wait_for_save(self) -> None:
        self.connector_worker.wait_for_save(self._get_connector_metadata())

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        return self.connector_worker.get_finished()
