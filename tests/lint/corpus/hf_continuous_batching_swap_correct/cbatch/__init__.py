"""Continuous batching with a paged KV cache in the shape of transformers'
ContinuousBatchingManager: a generation thread runs the model on its own compute stream, writes
the sampled token ids to a pinned buffer and reads them back once per step. When blocks run out,
the scheduler preempts requests and their KV blocks are swapped to pinned host memory on a swap
stream; resumed requests get theirs swapped back in. The swaps are issued at the start of the next
step and rely on the host having synchronised with the compute stream at the end of the previous
one (no kernel is queued on the compute stream in between)."""

from cbatch.manager import ContinuousBatchingManager

__all__ = ["ContinuousBatchingManager"]
