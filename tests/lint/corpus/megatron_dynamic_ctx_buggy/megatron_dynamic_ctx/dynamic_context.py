"""GPU-resident request metadata for dynamic batching, mirrored into pinned host memory each step."""
import torch

# columns of the packed per-request metadata mirrored to the host
METADATA_FIELDS = ("request_id", "output_length", "last_token", "finished")


class DynamicInferenceContext:

    def __init__(self, max_requests: int, max_sequence_length: int):
        device = torch.device("cuda", torch.cuda.current_device())
        self.max_requests = max_requests
        self.max_sequence_length = max_sequence_length
        self.total_request_count = 0
        self.request_ids = torch.full((max_requests,), -1, dtype=torch.int64, device=device)
        self.request_query_lengths = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self.request_output_lengths = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self.request_kv_length_offsets = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self.request_last_token = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self.request_finished = torch.zeros(max_requests, dtype=torch.int64, device=device)
        self._metadata_gpu = torch.empty(max_requests, len(METADATA_FIELDS), dtype=torch.int64, device=device)
        self._metadata_cpu = torch.empty(max_requests, len(METADATA_FIELDS), dtype=torch.int64, pin_memory=True)

    def add_request(self, request_id: int, prompt_len: int) -> None:
        idx = self.total_request_count
        assert idx < self.max_requests, "dynamic batch is full"
        self.request_ids[idx] = request_id
        self.request_query_lengths[idx] = prompt_len
        self.request_output_lengths[idx] = 0
        self.request_kv_length_offsets[idx] = 0
        self.request_finished[idx] = 0
        self.total_request_count += 1

    def update_requests(self, new_tokens: torch.Tensor, termination_id: int, max_output_lengths: torch.Tensor):
        n = self.total_request_count
        self.request_kv_length_offsets[:n] += self.request_query_lengths[:n]
        self.request_query_lengths[:n] = 1
        self.request_output_lengths[:n] += 1
        self.request_last_token[:n] = new_tokens
        finished = (new_tokens == termination_id) | (self.request_output_lengths[:n] >= max_output_lengths)
        self.request_finished[:n] = finished.to(torch.int64)
        return ~finished

    def copy_metadata_to_host(self) -> torch.Tensor:
        """Launch the device-to-host mirror of this step's metadata; returns the pinned view."""
        n = self.total_request_count
        packed = self._metadata_gpu[:n]
        torch.stack(
            [self.request_ids[:n], self.request_output_lengths[:n], self.request_last_token[:n],
             self.request_finished[:n]],
            dim=1,
            out=packed,
        )
        host_view = self._metadata_cpu[:n]
        host_view.copy_(packed, non_blocking=True)
        return host_view

    def compact(self, active_mask: torch.Tensor, active_count: int) -> None:
        n = self.total_request_count
        keep = torch.arange(n, device=active_mask.device)[active_mask]
        for tensor in (self.request_ids, self.request_query_lengths, self.request_output_lengths,
                       self.request_kv_length_offsets, self.request_last_token, self.request_finished):
            tensor[:active_count] = tensor[:n][keep]
        self.total_request_count = active_count
