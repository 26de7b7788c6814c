from kv_load.connector_worker import LayerwiseOffloadWorker, LoadSpec, StoreSpec

__all__ = ["LayerwiseOffloadWorker", "LoadSpec", "StoreSpec"]
