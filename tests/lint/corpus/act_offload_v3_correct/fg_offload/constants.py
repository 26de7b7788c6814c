# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

# Saved tensors smaller than this stay on the device.
MIN_OFFLOADED_TENSOR_NUMEL = 1 << 20

OFFLOADABLE_MODULES = ("attn_norm", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act")

# Number of groups ahead of the backward frontier that are reloaded early.
RELOAD_LOOKAHEAD = 1
