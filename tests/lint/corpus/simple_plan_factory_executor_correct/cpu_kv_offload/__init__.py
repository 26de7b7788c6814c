"""Worker side of a CPU KV offload connector, forked from vLLM's SimpleCPUOffloadConnector.

Block copies are cuMemcpyBatchAsync calls made from a single-thread executor, so the
per-transfer pointer arithmetic never delays the next forward launch."""
