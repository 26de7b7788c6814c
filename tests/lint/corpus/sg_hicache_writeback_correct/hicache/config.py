"""Static knobs for HiCache. Kept apart so the scheduler can import them cheaply."""

import torch

PAGE_SIZE = 16
HOST_TO_DEVICE_RATIO = 2.0
HOST_LAYOUT = "page_first"
KV_DTYPE = torch.float16
WRITE_POLICY = "write_back"
QUEUE_POLL_TIMEOUT_S = 0.5
