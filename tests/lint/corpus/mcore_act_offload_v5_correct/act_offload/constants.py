# Tensors smaller than this many elements stay on the device.
MIN_OFFLOADED_TENSOR_SIZE = 1024 * 1024

OFFLOADABLE_MODULES = ("attn_norm", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act")
