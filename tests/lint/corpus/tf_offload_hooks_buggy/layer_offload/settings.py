import torch

# Two device-resident weight slots: one in use by the running layer, one
# being filled for the next layer.
NUM_WEIGHT_SLOTS = 2
OFFLOAD_DTYPE = torch.float16
