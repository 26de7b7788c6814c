import torch

# Number of on-device key/value buffers that offloaded layers rotate through.
NUM_DEVICE_BUFFERS = 2

DEFAULT_OFFLOAD_DEVICE = torch.device("cpu")
DEFAULT_CACHE_DTYPE = torch.float32
