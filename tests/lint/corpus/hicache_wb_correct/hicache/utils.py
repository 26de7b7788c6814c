import logging
from typing import Iterator, List, Tuple

import torch

logger = logging.getLogger(__name__)


def get_device_module():
    """Return ``torch.cuda`` / ``torch.npu`` / ... for the active accelerator."""
    return torch.get_device_module()


def page_runs(
    host_pages: List[int], device_pages: List[int], page_size: int
) -> Iterator[Tuple[int, int, int]]:
    """Yield (host_token_start, device_token_start, num_tokens) for runs of
    pages that are contiguous on both sides."""
    if len(host_pages) != len(device_pages):
        raise ValueError("host/device page count mismatch")
    i = 0
    n = len(host_pages)
    while i < n:
        j = i + 1
        while (
            j < n
            and host_pages[j] == host_pages[j - 1] + 1
            and device_pages[j] == device_pages[j - 1] + 1
        ):
            j += 1
        yield host_pages[i] * page_size, device_pages[i] * page_size, (j - i) * page_size
        i = j
