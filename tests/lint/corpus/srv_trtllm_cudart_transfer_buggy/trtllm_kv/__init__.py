"""A KV cache manager in the shape of TensorRT-LLM's, with a primary (device) and a secondary
(pinned host) block pool, both raw allocations made with cuda-python's runtime API. Evicted
blocks are offloaded to the secondary pool and onboarded again when their request resumes,
with ``cudaMemcpyAsync`` on two non-blocking runtime streams next to the engine's stream.

Bugs:
- ``offload`` waits on the host for the previous offload (``cudaEventSynchronize`` of its done
  event) and takes that as ordering; nothing orders the offload stream behind the engine stream
  that wrote the evicted blocks (KVG001).
- ``onboard`` orders its stream behind the offload stream's done event only, so the copy may
  overwrite a recycled primary block the engine's kernels still read (KVG004).
"""
