"""Connector worker that hands each step's finished blocks to the staged store engine from
``wait_for_save``, on the thread that ran the forward, and returns completed host copies to
the CPU block pool."""

from staged_store.engine import StagedStoreEngine


class StagedOffloadWorker:
    def __init__(self, kv_cache, max_blocks_per_step, cpu_pool):
        self.engine = StagedStoreEngine(kv_cache, max_blocks_per_step)
        self.cpu_pool = cpu_pool
        self.metadata = None

    def bind_connector_metadata(self, metadata):
        self.metadata = metadata

    def wait_for_save(self):
        meta = self.metadata
        if meta is None:
            return
        for store_id, blocks in meta.stores.items():
            self.engine.store(store_id, blocks)

    def get_finished(self, finished_req_ids):
        done = set()
        for store_id, host in self.engine.poll():
            self.cpu_pool.insert(store_id, host)
            done.add(store_id)
        return done, None
