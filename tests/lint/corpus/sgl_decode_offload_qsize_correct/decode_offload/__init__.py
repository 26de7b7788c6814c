"""Decode-side KV offload in the shape of SGLang's DecodeKVCacheOffloadManager: as a
request decodes, every full stride of new KV pages is written through to a pinned host
pool (HiCache L2) on the controller's write stream, then backed up from the host pool to
L3 storage by the controller's backup thread. Tensor-parallel ranks agree on how many
acknowledgements to process with an all-reduce over the queue sizes."""
