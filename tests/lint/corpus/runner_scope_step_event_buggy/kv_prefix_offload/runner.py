from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from kv_prefix_offload.connector import PrefixOffloadWorker


@dataclass
class KVConnectorOutput:
    finished_sending: set[str] = field(default_factory=set)
    finished_recving: set[str] = field(default_factory=set)


class ModelRunner:
    def __init__(self, model: torch.nn.Module, num_gpu_blocks: int, block_shape: tuple,
                 num_cpu_blocks: int, device: torch.device):
        self.model = model
        self.kv_cache = torch.zeros((2, num_gpu_blocks, *block_shape), dtype=torch.bfloat16,
                                    device=device)
        self.connector = PrefixOffloadWorker(self.kv_cache, num_cpu_blocks)

    @contextmanager
    def kv_transfer_scope(self, connector_meta):
        output = KVConnectorOutput()
        self.connector.bind_connector_metadata(connector_meta)
        self.connector.start_load_kv()
        try:
            yield output
        finally:
            self.connector.wait_for_save()
            output.finished_sending, output.finished_recving = self.connector.get_finished()
            self.connector.clear_connector_metadata()

    @torch.inference_mode()
    def execute_model(self, connector_meta, input_ids: torch.Tensor, positions: torch.Tensor,
                      slot_mapping: torch.Tensor):
        with self.kv_transfer_scope(connector_meta) as kv_output:
            hidden = self.model(input_ids, positions, self.kv_cache, slot_mapping)
            logits = self.model.compute_logits(hidden)
            sampled = logits.argmax(dim=-1)
        return sampled, kv_output
