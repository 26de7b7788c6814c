"""Prefill-side KV export for disaggregated serving, forked from vLLM's SimpleCPUOffloadConnector:
after each step the blocks of requests whose prefill finished are staged into pinned host
memory by a copy thread (cuMemcpyBatchAsync), from where the transfer agent ships them to the
decode instance. The GPU blocks are held until the staging copy is reported done."""
