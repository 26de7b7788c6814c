"""Parameter fetch / prefetch for ZeRO-Infinity with parameters offloaded to pinned host
memory, in the shape of DeepSpeed's ``PartitionedParameterCoordinator``: forward pre-hooks
fetch a sub-module's parameters (and prefetch the next ones along the recorded trace) into a
small pool of reusable device buffers on a prefetch stream; post-hooks give the buffers back.
Coordinator methods are wrapped by the ``instrument_w_nvtx`` decorator."""
