"""Fine-grained activation offloading in the shape of megatron-core's ``PipelineOffloadManager`` /
``ChunkOffloadHandler``: a layer marks the start of an offload group, the tensors autograd saves
inside it are pushed to the group through ``saved_tensors_hooks``, and the group commit (an
identity autograd Function) moves them to pinned host memory on the manager's D2H stream.
Backward brings them back on the H2D stream.

The group records a ``ready`` event on the compute stream at commit time and the offload is meant
to wait on it before the D2H copies are queued. Bug: ``bulk_offload_group`` calls
``group.wait_ready()`` with no stream, outside the ``torch.cuda.stream(d2h)`` block, so
``Event.wait`` makes the *current* (compute) stream wait on an event it recorded itself: a no-op.
The D2H stream is not ordered behind the group's forward kernels and the copy can read an
activation before ``fc1``/``gelu`` finished writing it (KVG001)."""
