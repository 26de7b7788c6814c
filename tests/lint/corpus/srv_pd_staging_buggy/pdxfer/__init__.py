"""Prefill/decode KV transfer staged through pinned buffers (Mooncake / NIXL shape).

The prefill side gathers a request's KV blocks into a pinned staging slot on a
copy stream and hands the slot to a sender thread pool that pushes the bytes
to the decode peer. The decode side has the transport write into one of its
own staging slots and, from the asyncio event loop, scatters it into its KV
cache on a load stream via ``asyncio.to_thread``.

Bugs:
- ``KVSender.send`` records the slot's ready event before issuing the gather
  copies, so ``_push`` synchronizes on an event that completes before the
  copies and reads the staging buffer while it is still being filled (KVG003).
- ``KVReceiver.receive`` hands the scatter to a worker thread without
  any event recorded on the compute stream, so the load stream overwrites
  decode blocks that queued kernels may still read (KVG004).
"""

from .receiver import KVReceiver
from .sender import KVSender
from .staging import StagingPool

__all__ = ["KVReceiver", "KVSender", "StagingPool"]
