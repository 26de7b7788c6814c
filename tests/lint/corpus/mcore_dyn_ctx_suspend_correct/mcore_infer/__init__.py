"""Suspend / resume of a dynamic-batching inference engine between RL training phases, in
the shape of Megatron-core's ``DynamicInferenceEngine`` / ``DynamicInferenceContext`` with
``kv_cache_management_mode`` persist / offload / recompute. In offload mode the chunked KV
memory buffer is copied to pinned host memory on a side stream and its device memory released;
resume copies it back so paused requests continue without recomputing their prefixes."""
