"""Hierarchical KV cache (device pool + pinned host pool) with an overlap scheduler, in the
shape of SGLang's HiCache: the model runs on a forward stream of its own so that the
scheduler can prepare the next batch, and issue the host -> device loads of its cache hits,
while the previous forward is still on the GPU."""
