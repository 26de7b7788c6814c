"""CuPy-based KV export service (NIXL-agent-like) with pinned staging.

Models a prefill worker whose KV blocks live in CuPy arrays written by kernels
on a compute stream; an export agent copies a finished block into a pinned
staging slot on an export stream (``ndarray.get(stream=..., out=...,
blocking=False)``) and a writer thread, fed through a queue, serialises the
slot to a spill file.

The export stream waits on an event recorded on the compute stream before the
copies, and the writer thread synchronizes the export event carried in the
queue before it reads the slot; slots return to the free list only after
they are written out.
"""

from .agent import KVExportAgent
from .service import ExportService

__all__ = ["ExportService", "KVExportAgent"]
