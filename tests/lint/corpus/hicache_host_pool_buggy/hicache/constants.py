"""Tunables for the hierarchical KV cache (device <-> host)."""

DEFAULT_PAGE_SIZE = 64
DEFAULT_HOST_TO_DEVICE_RATIO = 2.0

# Write-back thread.
WRITE_QUEUE_POLL_TIMEOUT_S = 1.0
MAX_MERGED_WRITE_OPS = 32

WRITE_POLICY_WRITE_THROUGH = "write_through"
WRITE_POLICY_WRITE_BACK = "write_back"
