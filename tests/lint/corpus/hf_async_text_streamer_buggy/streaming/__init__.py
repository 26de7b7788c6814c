"""Token streaming for ``generate`` in the shape of transformers' TextIteratorStreamer, with the
device-to-host copy of each new token taken off the generation loop: ``put`` copies the token into
a pinned slot without blocking and hands the slot to a decode thread, which turns tokens into
text for the consumer iterating the streamer."""

from streaming.generation import greedy_generate
from streaming.streamer import AsyncTextIteratorStreamer

__all__ = ["AsyncTextIteratorStreamer", "greedy_generate"]
