"""FlexGen-style zig-zag-free schedule for one batch: weights and KV cache live in pinned host
memory; for every layer the next layer's weights and cache are prefetched on their own streams
while this layer computes, and the new token's K/V of the previous layer is written back."""
