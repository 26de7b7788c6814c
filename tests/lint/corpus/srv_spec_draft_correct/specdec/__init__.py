"""Speculative decoding draft runner with overlapped device-to-host token copies.

Models an EAGLE-style drafter: draft tokens are produced on the compute
stream, copied to a pinned buffer on a D2H stream (switched with
``torch.cuda.set_stream`` inside a context manager with try/finally) so the
scheduler can read them later, and the draft KV cache of rejected positions
is restored from a pinned snapshot on a restore stream.

The compute stream is captured before the stream switch and the D2H stream waits
on it inside the block; the scheduler polls the copy event and blocks on it
only if the copy has not landed yet before reading the tokens.
"""

from .draft_runner import EagleDraftRunner

__all__ = ["EagleDraftRunner"]
