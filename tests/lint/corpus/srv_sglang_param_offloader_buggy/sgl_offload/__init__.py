"""Layer weight offloading in the shape of SGLang's ``ModuleOffloader``: the weights of every
Nth decoder layer live in pinned host memory and are onloaded on an alternate stream into
static device buffers (so the forward stays CUDA-graph capturable) ``prefetch_step`` layers
ahead; each wrapped module's ``forward`` is replaced by a closure that waits for its onload,
runs the module functionally on the device copies and kicks off the next onload.

Bug: ``start_onload`` does not order the alternate stream behind the current stream. Buffer
slot k is shared round robin, so the onload for layer i+prefetch_step overwrites the buffers
that layer i-1's kernels, still queued on the current stream, may be reading (KVG004).
"""
