"""CPU swap space for a paged KV cache in the shape of transformers' continuous batching
(``PagedAttentionCache`` + a scheduler that preempts requests when blocks run out): a preempted
request's blocks are swapped out to pinned host memory and swapped back in when it resumes. Both
directions use one ``cudaMemcpyBatchAsync`` per layer group (cuda-python runtime bindings), with
copy attributes cached per direction; each direction knows its source location and the source
access order the driver may use: STREAM for a swap-out (GPU source), ANY for a swap-in (pinned
host source nothing writes meanwhile)."""
