"""TensorRT-LLM-style KV cache manager with a secondary (pinned host) block pool.

Models the executor loop that offloads finished requests' blocks to host memory
and onboards them again when the request resumes, with cuda-python runtime
calls (cudaMemcpyAsync, cudaEventRecord, cudaStreamWaitEvent) on a dedicated
transfer stream next to the engine's runtime stream.

Offloads wait on an event recorded on the engine stream; the eviction path
instead drains the engine stream on the host first (cudaStreamSynchronize),
which orders its copies too. Onboarding makes the transfer stream wait for the
engine stream before it overwrites any primary block.
"""

from .executor import PyExecutorLoop
from .secondary_pool import SecondaryBlockPool

__all__ = ["PyExecutorLoop", "SecondaryBlockPool"]
