# Sequence dimension of key/value states: (batch, heads, seq, head_dim)
KV_SEQ_DIM = -2

# Below this many layers the cache keeps everything resident on the accelerator.
MIN_LAYERS_FOR_EVICTION = 3

DEFAULT_OFFLOAD_DEVICE = "cpu"
