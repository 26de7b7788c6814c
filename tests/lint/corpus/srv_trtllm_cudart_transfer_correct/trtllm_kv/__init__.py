"""A KV cache manager in the shape of TensorRT-LLM's, with a primary (device) and a secondary
(pinned host) block pool, both raw allocations made with cuda-python's runtime API. Evicted
blocks are offloaded to the secondary pool and onboarded again when their request resumes,
with ``cudaMemcpyAsync`` on two non-blocking runtime streams next to the engine's stream.

Both copies are ordered behind the engine stream: an event recorded on it is waited on by the
offload stream before the device-to-host copies and by the onboard stream before the
host-to-device copies (which also wait for this step's offload, which still reads the blocks).
"""
