"""Names and sizes shared by the KV-cache pools."""

COMPUTE_STREAM = "compute"
OFFLOAD_STREAM = "offload"
ONBOARD_STREAM = "onboard"

TOKENS_PER_BLOCK = 32
NUM_KV_HEADS = 8
HEAD_DIM = 128
