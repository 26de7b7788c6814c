"""A slice of an executor loop in the shape of TensorRT-LLM's PyExecutor: the model engine runs
each iteration on the executor's forward stream; after the host has updated the requests, the
connector is told the forward pass is over, with the stream it ran on."""

import torch

from trt_conn.connector import KvCacheConnectorWorker


class PyExecutor:
    def __init__(self, model_engine, kv_cache_tensor: torch.Tensor, kv_connector: KvCacheConnectorWorker):
        self.model_engine = model_engine
        self.kv_cache_tensor = kv_cache_tensor
        self.kv_connector = kv_connector
        self.forward_stream = torch.cuda.Stream(device=kv_cache_tensor.device)
        kv_connector.register_kv_caches(kv_cache_tensor)

    def _executor_step(self, scheduled_batch, connector_meta) -> None:
        self.kv_connector.bind_connector_meta(connector_meta)
        with torch.cuda.stream(self.forward_stream):
            self.kv_connector.start_load_kv(self.forward_stream)
            outputs = self.model_engine.forward(scheduled_batch, self.kv_cache_tensor)
            new_tokens = outputs["new_tokens"].to("cpu", non_blocking=True)
            tokens_ready = torch.cuda.Event()
            tokens_ready.record()
        self._update_requests(scheduled_batch, new_tokens, tokens_ready)
        self.kv_connector.wait_for_save(self.forward_stream)

    def _update_requests(self, scheduled_batch, new_tokens, tokens_ready) -> None:
        for req in scheduled_batch.requests:
            req.pending_tokens = (new_tokens, tokens_ready)
