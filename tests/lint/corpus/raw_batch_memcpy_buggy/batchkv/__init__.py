"""Block offload worker using the driver's batched memcpy (cuMemcpyBatchAsync).

Models a vLLM-style CPU offload backend: the model runner records an event on
the compute stream and queues store/load jobs; a daemon copy thread orders its
stream behind that event and issues one batched copy per job, with an
attribute builder in a separate module.

Bugs:
- ``make_attrs`` defaults the source access order to ANY, and the store path
  relies on that default, so the driver may read GPU blocks out of stream
  order (KVG002, reported on the default).
- The single-block store fast path issues its copy before the copy stream
  waits on the compute event, which only the batched branch does (KVG001).
"""

from .offload_worker import BlockOffloadWorker

__all__ = ["BlockOffloadWorker"]
