"""ZeRO-2 style CPU offload of gradients (DeepSpeed ``offload_optimizer: {device: cpu}`` with
``contiguous_gradients``): as soon as autograd has accumulated a parameter's gradient, a
post-accumulate hook scales it and packs it into a device "ipg" bucket; a full bucket is flushed
by copying each parameter's slice into its fp32 pinned host buffer. The CPU Adam step runs on the
host buffers and the updated fp32 master weights are copied back to the device parameters.

With ``overlap_comm`` the flush runs on a reduction stream, entered through an ``ExitStack`` so
that the same code path serves both settings. Bug: nothing orders the reduction stream behind
the compute stream on which the hooks packed the bucket (``grad.div_`` and the bucket copy), so
with ``overlap_comm`` the D2H copies can read bucket slices before they are written (KVG001)."""
