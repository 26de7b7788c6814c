"""Worker half of a pull-based P/D connector: after the forward of a step, requests whose
prefill finished are published to the pull server with an event marking their KV complete."""

import torch

from pd_pull.server import KVPullServer
from pd_pull.staging import BlockStager


class PullConnectorWorker:
    def __init__(self, config):
        self.config = config
        self.server = None

    def register_kv_caches(self, kv_caches):
        stager = BlockStager(kv_caches, self.config.max_blocks_per_request)
        self.server = KVPullServer(stager, self.config.host, self.config.port)

    def wait_for_save(self, finished_prefills):
        """Called on the worker thread after the model's forward was launched."""
        if not finished_prefills:
            return
        kv_ready = torch.cuda.Event()
        kv_ready.record()
        for req_id, block_ids in finished_prefills.items():
            self.server.publish(req_id, block_ids, kv_ready)
