"""A host spill tier for megatron-core's dynamic inference context: prefix-cached KV blocks
that the block allocator evicts are copied to a pinned host pool (one batched driver copy per
eviction) instead of being dropped, and restored from there on a later prefix hit."""
