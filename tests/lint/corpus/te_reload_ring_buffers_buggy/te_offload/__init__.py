"""CPU offloading of activations in the shape of TransformerEngine's ``OffloadSynchronizer``
(``get_cpu_offload_context``): tensors saved for backward inside the offload context are pushed
to a per-layer group with an event recorded on the compute stream, the group is copied to pinned
host memory on an offload stream when the next layer starts, and in backward a grad_fn pre-hook
starts the reload of the layer below while the current layer's backward runs.

For CUDA-graph capture the reloads go into static device buffers: a ring of two, one per layer
parity, so that the addresses the backward graph sees never change.

Bug: before a reload the offload stream only waits for the layer's own offload to have finished.
The ring buffer that layer i-1 reloads into (started by layer i's pre-hook) was last read by the
backward of layer i+1, which was queued on the compute stream just before this pre-hook ran;
nothing orders the offload stream behind it, so the H2D copy can overwrite activations that
backward is still reading (KVG004)."""
