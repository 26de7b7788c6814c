"""Tunables shared by the hierarchical cache controller and the host pool."""

DEFAULT_PAGE_SIZE = 64
DEFAULT_HOST_TO_DEVICE_RATIO = 2.0

# Write-back thread: how long to block on the queue and how many pending
# operations may be folded into a single transfer.
WRITE_QUEUE_POLL_TIMEOUT_S = 1.0
MAX_MERGED_WRITE_OPS = 16

SUPPORTED_WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
