"""A pytorch-backend KV cache manager in the shape of TensorRT-LLM's ``resource_manager.py``:
resource managers derive from an abstract ``BaseResourceManager`` and are driven by the
executor through ``prepare_resources`` / ``update_resources`` / ``free_resources``. Blocks
evicted from the primary (device) pool go to a secondary pinned host pool with
``cudaMemcpyBatchAsync`` (cuda-python runtime bindings) on a transfer stream of its own."""
