"""The vLLM paged connector: orders each store behind the forward stream with an event recorded
on the caller's current stream in its override of the hook."""

import torch

from lmc_conn.base import GPUConnectorBase


class VLLMPagedConnector(GPUConnectorBase):
    def _order_after_compute(self):
        forward_done = torch.cuda.current_stream().record_event()
        self.store_stream.wait_event(forward_done)
