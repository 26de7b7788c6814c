"""Speculative decoding draft runner with overlapped device-to-host token copies.

Models an EAGLE-style drafter: draft tokens are produced on the compute
stream, copied to a pinned buffer on a D2H stream (switched with
``torch.cuda.set_stream`` inside a context manager with try/finally) so the
scheduler can read them later, and the draft KV cache of rejected positions
is restored from a pinned snapshot on a restore stream.

Bugs:
- ``propose`` copies the draft tokens on the D2H stream without ordering it
  behind the draft kernels on the compute stream (KVG001).
- ``get_proposals`` reads the pinned token buffer with ``tolist()`` without
  waiting for the copy's event (KVG003).
"""

from .draft_runner import EagleDraftRunner

__all__ = ["EagleDraftRunner"]
