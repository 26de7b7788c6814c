"""CPU offloading handlers for an OffloadingConnector fork: one handler per direction, each
with its own stream, moving blocks with vLLM's swap_blocks_batch from pinned descriptor
tables (one descriptor per block and KV tensor)."""
