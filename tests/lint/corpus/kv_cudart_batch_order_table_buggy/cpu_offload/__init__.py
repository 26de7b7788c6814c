"""A CPU offload handler for a vLLM-style KV connector that moves blocks with the CUDA runtime's
``cudaMemcpyBatchAsync`` (cuda-python ``cuda.bindings.runtime``). One batch per job, issued by
a single DMA worker thread (a ThreadPoolExecutor) on the direction's stream, after that stream
waited on an event the requesting thread recorded on its current stream. The copy attributes
take their source access order from a per-direction table in ``copy_config``.

Bug: the table gives stores ``cudaMemcpySrcAccessOrderDuringApiCall``, so the driver may read the
GPU KV blocks when the call is made, before the stream's wait on the compute event (KVG002).
"""
