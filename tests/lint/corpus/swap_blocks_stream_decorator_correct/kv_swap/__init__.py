"""CPU swap space for a vLLM fork's KV connector: finished prefixes are swapped out to a
pinned CPU mirror with vLLM's swap_blocks op and swapped back in on a prefix hit. Each
direction runs on its own low-priority stream."""
