from .scheduler import OverlapScheduler
from .tp_worker_overlap_thread import TpModelWorkerClient

__all__ = ["OverlapScheduler", "TpModelWorkerClient"]
