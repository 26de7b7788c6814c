"""Static configuration for the layerwise CPU offload connector."""

NUM_CPU_BLOCKS = 8192
# Use a high-priority stream for loads so prefix hits land before the layer
# that needs them.  Lower number = higher priority in CUDA.
LOAD_STREAM_PRIORITY = -1
STORE_STREAM_PRIORITY = 0
PIN_INDEX_TENSORS = True
