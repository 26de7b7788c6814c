# Number of device-side reload buffer sets; groups alternate between them.
NUM_RELOAD_BUFFER_SETS = 2

# Saved activations smaller than this (in elements) stay on the device.
MIN_OFFLOADED_TENSOR_NUMEL = 1 << 20

OFFLOAD_TAG_PREFIX = "act_offload"
