"""HiCache with a "batch" io backend: device <-> host page transfers go through one
cuMemcpyBatchAsync per layer (or per backup) instead of a gather kernel, in the shape of
SGLang's HiCacheController / HostKVCache split."""
