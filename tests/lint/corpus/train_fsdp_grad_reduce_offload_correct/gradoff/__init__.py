"""Gradient reduce-scatter then CPU offload in the shape of FSDP's post-backward hook: the
unsharded gradient is split, a shard buffer is allocated like one chunk of it, the collective
fills the shard on the post-backward stream, and the shard is copied into the parameter's
pinned CPU gradient there. The post-backward stream waits for the compute stream that
produced the gradient before any of it."""
