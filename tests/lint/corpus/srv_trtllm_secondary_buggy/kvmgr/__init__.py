"""TensorRT-LLM-style KV cache manager with a secondary (pinned host) block pool.

Models the executor loop that offloads finished requests' blocks to host memory
and onboards them again when the request resumes, with cuda-python runtime
calls (cudaMemcpyAsync, cudaEventRecord, cudaStreamWaitEvent) on a dedicated
transfer stream next to the engine's runtime stream.

Bugs:
- The eviction path calls ``offload(..., wait_compute=False)`` on the belief
  that the step already synchronized; it did not, so those device-to-host
  copies are not ordered behind the engine stream that wrote the blocks
  (KVG001).
- ``onboard`` makes the transfer stream wait for the engine stream only after
  it has issued the host-to-device copies, so they may overwrite blocks the
  engine's queued kernels still read (KVG004).
"""

from .executor import PyExecutorLoop
from .secondary_pool import SecondaryBlockPool

__all__ = ["PyExecutorLoop", "SecondaryBlockPool"]
