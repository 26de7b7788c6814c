import logging

import torch

from .connector import HostOffloadConnectorWorker

logger = logging.getLogger(__name__)


class ConnectorForwardRunner:
    """Drives one forward step with the connector hooks in the order the executor uses."""

    def __init__(self, model, worker: HostOffloadConnectorWorker, scheduler):
        self.model = model
        self.worker = worker
        self.scheduler = scheduler
        self.forward_stream = torch.cuda.Stream()

    def run(self, num_steps: int) -> None:
        for step in range(num_steps):
            batch, metadata = self.scheduler.schedule_step()
            self.worker.bind_connector_meta(metadata)
            self.worker.start_load_kv(self.forward_stream)
            with torch.cuda.stream(self.forward_stream):
                hidden = self.model.embed(batch)
                for layer_idx, layer in enumerate(self.model.layers):
                    self.worker.wait_for_layer_load(layer_idx, self.forward_stream)
                    hidden = layer(hidden, batch.attn_metadata)
                    self.worker.save_kv_layer(layer_idx, self.forward_stream)
                logits = self.model.lm_head(hidden)
            self.worker.wait_for_save(self.forward_stream)
            self.worker._clear_connector_meta()
            self.scheduler.commit_step(batch, logits)
            logger.debug("step %d issued", step)
