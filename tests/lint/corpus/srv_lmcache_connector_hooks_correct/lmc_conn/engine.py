"""Builds the connector the serving engine asks for and drives stores and loads around each
forward pass."""

from lmc_conn.sglang_connector import SGLangLayerwiseConnector
from lmc_conn.vllm_connector import VLLMPagedConnector


def create_connector(engine_name, num_blocks, num_slots, block_numel):
    if engine_name == "vllm":
        return VLLMPagedConnector(num_blocks, num_slots, block_numel)
    return SGLangLayerwiseConnector(num_blocks, num_slots, block_numel, num_groups=4)


class Engine:
    def __init__(self, engine_name, model, num_blocks, num_slots, block_numel):
        self.model = model
        self.connector = create_connector(engine_name, num_blocks, num_slots, block_numel)
        self.sglang = SGLangLayerwiseConnector(num_blocks, num_slots, block_numel, num_groups=4)

    def step(self, batch):
        self.model(batch, self.connector.kv_cache)
        return self.connector.batched_from_gpu(batch.store_slots, batch.store_blocks)

    def prefetch(self, slots, block_ids):
        self.sglang.batched_to_gpu(slots, block_ids)
        for group in range(self.sglang.num_groups):
            self.sglang.wait_group(group)
