"""FlexGen-style decoding with ``cpu_cache_compute``: the KV cache of every layer lives in host
memory and decode attention runs on the CPU next to it, so only the new token's q/k/v cross the
bus. The layer computes q/k/v on the GPU, a copy stream stages them into a pinned buffer, the CPU
appends k/v to the host cache and attends, and the output goes back to the GPU. The layer takes
the staged q/k/v through ``QKVStaging.host_qkv()``, which waits for the copy event first."""
