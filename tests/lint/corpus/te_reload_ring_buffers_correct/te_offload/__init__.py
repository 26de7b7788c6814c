"""CPU offloading of activations in the shape of TransformerEngine's ``OffloadSynchronizer``
(``get_cpu_offload_context``): tensors saved for backward inside the offload context are pushed
to a per-layer group with an event recorded on the compute stream, the group is copied to pinned
host memory on an offload stream when the next layer starts, and in backward a grad_fn pre-hook
starts the reload of the layer below while the current layer's backward runs.

For CUDA-graph capture the reloads go into static device buffers: a ring of two, one per layer
parity, so that the addresses the backward graph sees never change. Before a reload, the offload
stream waits on the compute stream, where the previous user of that ring buffer (the layer above
the one running backward) has its backward queued."""
