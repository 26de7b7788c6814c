from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class HostCopyResult:
    next_token_ids: torch.Tensor
    accept_lens: Optional[torch.Tensor]
    copy_done: torch.cuda.Event


def copy_results_to_host(
    next_token_ids: torch.Tensor,
    accept_lens: Optional[torch.Tensor],
    copy_stream: torch.cuda.Stream,
    producer_stream: torch.cuda.Stream,
) -> HostCopyResult:
    """Launch D2H copies of sampled outputs on the dedicated copy stream."""
    copy_done = torch.cuda.Event()
    copy_stream.wait_stream(producer_stream)
    with torch.cuda.stream(copy_stream):
        # expect: KVG001
        next_token_ids_cpu = next_token_ids.to("cpu", non_blocking=True)
        next_token_ids.record_stream(copy_stream)
        accept_lens_cpu = None
        if accept_lens is not None:
            # expect: KVG001
            accept_lens_cpu = accept_lens.to("cpu", non_blocking=True)
            accept_lens.record_stream(copy_stream)
        copy_done.record(copy_stream)
    return HostCopyResult(next_token_ids_cpu, accept_lens_cpu, copy_done)
