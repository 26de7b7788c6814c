"""CPU swap space for a paged KV cache in the shape of transformers' continuous batching
(``PagedAttentionCache`` + a scheduler that preempts requests when blocks run out): a preempted
request's blocks are swapped out to pinned host memory and swapped back in when it resumes. Both
directions use one ``cudaMemcpyBatchAsync`` per layer group (cuda-python runtime bindings), with
copy attributes cached per direction; each direction knows its source location and the source
access order the driver may use.

Bug: ``SwapDirection.src_access_order`` answers ANY for both directions. For a swap-out the
source is GPU memory the compute stream has just written; with ANY the driver may read it before
the swap stream's ``wait_event(written)`` is satisfied, so the host copy can capture half-written
blocks (KVG002)."""
