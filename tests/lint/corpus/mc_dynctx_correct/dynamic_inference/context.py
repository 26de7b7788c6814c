"""GPU-resident request bookkeeping with a pinned host mirror."""

from dataclasses import dataclass

import torch

from .config import MAX_REQUESTS, MAX_SEQUENCE_LENGTH, PAD_REQUEST_ID, TERMINATION_ID


@dataclass
class HostRequestMetadata:
    request_ids: torch.Tensor
    finished: torch.Tensor
    output_lengths: torch.Tensor
    last_tokens: torch.Tensor


class DynamicInferenceContext:
    def __init__(self, max_requests: int = MAX_REQUESTS, device: str = "cuda"):
        self.max_requests = max_requests
        self.total_request_count = 0
        self.request_ids = torch.full((max_requests,), PAD_REQUEST_ID, dtype=torch.int64, device=device)
        self.request_output_lengths = torch.zeros(max_requests, dtype=torch.int32, device=device)
        self.request_finished = torch.zeros(max_requests, dtype=torch.bool, device=device)
        self.request_last_tokens = torch.zeros(max_requests, dtype=torch.int64, device=device)
        # Pinned mirrors, refreshed once per step.
        self._host_ids = torch.empty(max_requests, dtype=torch.int64, pin_memory=True)
        self._host_finished = torch.empty(max_requests, dtype=torch.bool, pin_memory=True)
        self._host_lengths = torch.empty(max_requests, dtype=torch.int32, pin_memory=True)
        self._host_tokens = torch.empty(max_requests, dtype=torch.int64, pin_memory=True)
        self._host_ready = torch.cuda.Event()

    def add_request(self, request_id: int) -> None:
        slot = self.total_request_count
        self.request_ids[slot] = request_id
        self.request_output_lengths[slot] = 0
        self.request_finished[slot] = False
        self.total_request_count += 1

    def update_requests(self, new_tokens: torch.Tensor) -> None:
        n = self.total_request_count
        self.request_last_tokens[:n] = new_tokens[:n]
        self.request_output_lengths[:n] += 1
        self.request_finished[:n] = (new_tokens[:n] == TERMINATION_ID) | (
            self.request_output_lengths[:n] >= MAX_SEQUENCE_LENGTH
        )
        self._copy_metadata_to_host(n)

    def _copy_metadata_to_host(self, n: int) -> None:
        # Same stream as the kernels above, so no cross-stream ordering is needed.
        self._host_ids[:n].copy_(self.request_ids[:n], non_blocking=True)
        self._host_finished[:n].copy_(self.request_finished[:n], non_blocking=True)
        self._host_lengths[:n].copy_(self.request_output_lengths[:n], non_blocking=True)
        self._host_tokens[:n].copy_(self.request_last_tokens[:n], non_blocking=True)
        self._host_ready.record()

    @property
    def host_metadata(self) -> HostRequestMetadata:
        self._host_ready.synchronize()
        n = self.total_request_count
        return HostRequestMetadata(
            request_ids=self._host_ids[:n],
            finished=self._host_finished[:n],
            output_lengths=self._host_lengths[:n],
            last_tokens=self._host_tokens[:n],
        )

    def compact(self, keep: torch.Tensor) -> None:
        """Move surviving requests to the front (keep is a GPU bool mask)."""
        n = self.total_request_count
        idx = torch.nonzero(keep[:n]).squeeze(1)
        count = idx.numel()
        for buf in (self.request_ids, self.request_output_lengths, self.request_last_tokens):
            buf[:count] = buf[idx]
        self.request_finished[:count] = False
        self.total_request_count = count
