"""A CPU offload handler for a vLLM-style KV connector that moves blocks with the CUDA runtime's
``cudaMemcpyBatchAsync`` (cuda-python ``cuda.bindings.runtime``). One batch per job, issued by
a single DMA worker thread (a ThreadPoolExecutor) on the direction's stream, after that stream
waited on an event the requesting thread recorded on its current stream. The copy attributes
take their source access order from a per-direction table in ``copy_config``.

Stores read the live GPU KV cache in stream order (``cudaMemcpySrcAccessOrderStream``); loads read
pinned host blocks no stream writes and may use ANY.
"""
