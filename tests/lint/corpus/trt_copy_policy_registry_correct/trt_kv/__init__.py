"""Host-tier KV block reuse for a pytorch-backend executor, in the shape of TensorRT-LLM's
resource managers: a primary (device) block pool and a secondary (pinned host) pool. Blocks
are moved between them with the driver's cuMemcpyBatchAsync; the copy attributes of each
direction come from a copy policy registered under the direction's name."""
