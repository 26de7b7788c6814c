"""Layer weight offloading in the shape of SGLang's ``ModuleOffloader``: the weights of every
Nth decoder layer live in pinned host memory and are onloaded on an alternate stream into
static device buffers (so the forward stays CUDA-graph capturable) ``prefetch_step`` layers
ahead; each wrapped module's ``forward`` is replaced by a closure that waits for its onload,
runs the module functionally on the device copies and kicks off the next onload.

``start_onload`` orders the alternate stream behind the current stream first: buffer slots are
shared round robin, so an onload overwrites buffers that kernels of an earlier layer, still
queued on the current stream, may be reading.
"""
