"""CuPy-based KV export service (NIXL-agent-like) with pinned staging.

Models a prefill worker whose KV blocks live in CuPy arrays written by kernels
on a compute stream; an export agent copies a finished block into a pinned
staging slot on an export stream (``ndarray.get(stream=..., out=...,
blocking=False)``) and a writer thread, fed through a queue, serialises the
slot to a spill file.

Bugs:
- ``export_block`` issues the device-to-host copies on the export stream
  without making it wait on an event recorded on the compute stream (KVG001).
- The writer thread serialises the staging slot without synchronizing the
  export event that travels with it in the queue (KVG003).
"""

from .agent import KVExportAgent
from .service import ExportService

__all__ = ["ExportService", "KVExportAgent"]
