"""Worker side of the vLLM integration (LMCacheConnectorV1 shape): save_kv_layer is called by
the attention layer right after it wrote its KV; on the first layer it starts one layer-wise
storer per request that needs saving, and every call advances all of them by one layer."""

from typing import List


class LMCacheConnectorV1Impl:
    def __init__(self, engine, num_layers: int):
        self.lmcache_engine = engine
        self.num_layers = num_layers
        self.layerwise_storers: List = []
        self.current_layer = 0
        self.requests_to_save = []

    def bind_connector_metadata(self, requests_to_save) -> None:
        self.requests_to_save = requests_to_save

    def save_kv_layer(self, layer_name: str, kv_layer, attn_metadata) -> None:
        if self.current_layer == 0:
            self.layerwise_storers = [
                self.lmcache_engine.store_layer(req.chunk_hashes, req.block_ids)
                for req in self.requests_to_save
            ]
        for storer in self.layerwise_storers:
            next(storer)
        self.current_layer += 1

    def wait_for_save(self) -> None:
        for storer in self.layerwise_storers:
            next(storer, None)
        self.layerwise_storers = []
        self.current_layer = 0
