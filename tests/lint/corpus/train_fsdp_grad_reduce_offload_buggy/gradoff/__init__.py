"""Gradient reduce-scatter then CPU offload in the shape of FSDP's post-backward hook. Bug:
the post-backward stream never waits for the compute stream, so the shard copied into the
pinned CPU gradient may be reduced from a gradient the backward is still writing."""
