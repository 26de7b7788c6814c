"""A host-memory KV cache connector for TensorRT-LLM's PyTorch executor
(KvCacheConnectorScheduler / KvCacheConnectorWorker): finished requests' blocks are saved
to a pinned host cache keyed by block hash, and a new context request whose prefix is in
the host cache has those blocks loaded layer by layer while its forward runs, each layer's
attention waiting only for its own layer."""
