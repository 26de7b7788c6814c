"""Tunables shared by the hierarchical cache controller and host pool."""

WRITE_QUEUE_POLL_S = 1.0
LOAD_QUEUE_POLL_S = 1.0
MAX_MERGED_WRITE_OPS = 16
DEFAULT_HOST_TO_DEVICE_RATIO = 3.0
IO_BACKEND_DIRECT = "direct"
