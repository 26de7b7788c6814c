"""Worker side of the vLLM v1 connector: start_load_kv runs before the forward pass for the
requests the scheduler matched in LMCache; the attention layers call wait_for_layer_load."""

from lmc.cache_engine import LMCacheEngine
from lmc.gpu_connector import VLLMPagedMemGPUConnectorV2


class LMCacheConnectorV1Impl:
    def __init__(self, num_layers: int, block_size: int, heads: int, head_size: int):
        self.connector = VLLMPagedMemGPUConnectorV2(num_layers, block_size)
        self.engine = LMCacheEngine(self.connector, heads, head_size)
        self.metadata = None

    def register_kv_caches(self, kv_caches) -> None:
        self.connector.register_kv_caches(kv_caches)

    def bind_connector_metadata(self, metadata) -> None:
        self.metadata = metadata

    def start_load_kv(self, forward_context) -> None:
        for req in self.metadata.requests_to_load:
            self.engine.retrieve(req.cache_key, req.req_id, req.num_cached_tokens, req.block_ids)

    def wait_for_layer_load(self, layer_name: str) -> None:
        for req in self.metadata.requests_to_load:
            self.connector.wait_for_load(req.req_id)

    def wait_for_save(self) -> None:
        for req in self.metadata.requests_to_save:
            self.engine.store(req.cache_key, req.num_tokens, req.block_ids)
