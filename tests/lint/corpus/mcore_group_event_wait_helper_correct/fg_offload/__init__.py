"""Fine-grained activation offloading in the shape of megatron-core's ``PipelineOffloadManager`` /
``ChunkOffloadHandler``: a layer marks the start of an offload group, the tensors autograd saves
inside it are pushed to the group through ``saved_tensors_hooks``, and the group commit (an
identity autograd Function) moves them to pinned host memory on the manager's D2H stream.
Backward brings them back on the H2D stream.

The group records a ``ready`` event on the compute stream at commit time, and the D2H stream
waits on it (``group.wait_ready(self.d2h_stream)``) before the copies are queued."""
