"""Prefill/decode KV transfer staged through pinned buffers (Mooncake / NIXL shape).

The prefill side gathers a request's KV blocks into a pinned staging slot on a
copy stream and hands the slot to a sender thread pool that pushes the bytes
to the decode peer. The decode side has the transport write into one of its
own staging slots and, from the asyncio event loop, scatters it into its KV
cache on a load stream via ``asyncio.to_thread``.

The slot's ready event is recorded on the copy stream after the gather, and the
sender thread synchronizes on it before reading the slot. The receiver records
an event on the compute stream in the event loop and the worker thread makes
the load stream wait on it before scattering.
"""

from .receiver import KVReceiver
from .sender import KVSender
from .staging import StagingPool

__all__ = ["KVReceiver", "KVSender", "StagingPool"]
