"""A compressed local-disk tier in the shape of LMCache v1: the cache engine gathers chunks of
the vLLM paged KV cache into pinned MemoryObjs through the GPU connector, and the disk backend
compresses and writes them on a thread pool so the engine thread never waits for the disk."""
