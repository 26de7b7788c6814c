"""The vLLM paged connector: orders each store behind the forward stream through the hook."""

import torch

from lmc_conn.base import GPUConnectorBase


class VLLMPagedConnector(GPUConnectorBase):
    def _order_after_compute(self):
        self.store_stream.wait_stream(torch.cuda.current_stream())
