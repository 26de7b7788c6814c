"""Block offload worker using the driver's batched memcpy (cuMemcpyBatchAsync).

Models a vLLM-style CPU offload backend: the model runner records an event on
the compute stream and queues store/load jobs; a daemon copy thread orders its
stream behind that event and issues one batched copy per job, with an
attribute builder in a separate module.

The copy thread makes its stream wait on the job's compute event before any
copy. Stores pass STREAM source order explicitly; loads keep the ANY default,
which is sound for a pinned host source that no stream writes.
"""

from .offload_worker import BlockOffloadWorker

__all__ = ["BlockOffloadWorker"]
