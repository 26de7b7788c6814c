"""CPU KV offload for a vLLM fork, with block copies batched through the CUDA runtime's
cudaMemcpyBatchAsync (cuda-python) on a copy thread. Copy options are keyword arguments
that the connector's extra config can override per deployment."""
