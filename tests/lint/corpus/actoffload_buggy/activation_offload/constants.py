# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

# Number of persistent device buffer sets used when activations come back in bprop.
NUM_RELOAD_SLOTS = 2

# Saved tensors smaller than this are kept on device.
MIN_OFFLOADED_TENSOR_NUMEL = 2 * 1024 * 1024

OFFLOAD_STREAM_KEY = "activation_d2h"
RELOAD_STREAM_KEY = "activation_h2d"
