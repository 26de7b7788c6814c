# coding=utf-8
# Number of on-device layer slots cycled through while decoding. Layer 0 is
# always resident; every other layer lives in pinned host memory and is
# staged into slot ``layer_idx & 1`` just before it is used.
NUM_DEVICE_SLOTS = 2
RESIDENT_LAYERS = (0,)
HOST_CACHE_PIN_MEMORY = True
