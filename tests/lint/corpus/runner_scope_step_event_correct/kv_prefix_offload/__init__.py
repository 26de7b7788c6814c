"""CPU prefix cache for a vLLM fork: the model runner opens a KV-transfer scope around each
forward (loads launched on entry, stores on exit, as in KVConnectorModelRunnerMixin), and a
copy thread moves the blocks. Every stored CPU block gets a checksum so that a corrupted
block is never restored."""
