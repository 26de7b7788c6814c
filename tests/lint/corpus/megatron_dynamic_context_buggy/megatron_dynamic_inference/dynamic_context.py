import torch

from .config import MIRRORED_FIELDS, DynamicContextConfig, RequestStatus
from .pinned_mirror import PinnedMirror


class DynamicInferenceContext:
    """Request bookkeeping for dynamic batching.

    All per-request tensors live on the device and are compacted after every
    step so active requests occupy rows ``[0, total_request_count)``.
    """

    def __init__(self, config: DynamicContextConfig, device=None):
        self.config = config
        self.device = device or torch.device("cuda", torch.cuda.current_device())
        n = config.max_requests
        kw = dict(dtype=torch.int32, device=self.device)
        self.request_ids = torch.full((n, ), -1, **kw)
        self.request_query_lengths = torch.zeros(n, **kw)
        self.request_kv_length_offsets = torch.zeros(n, **kw)
        self.request_output_lengths = torch.zeros(n, **kw)
        self.request_status = torch.zeros(n, dtype=torch.int8, device=self.device)
        self.last_tokens = torch.zeros(n, dtype=torch.int64, device=self.device)

        self.total_request_count = 0
        self.active_request_count = 0
        self.mirror_stream = torch.cuda.Stream(device=self.device)
        self._mirrors = {name: PinnedMirror(name, getattr(self, name)) for name in MIRRORED_FIELDS}

    def add_request(self, request_id: int, prompt_length: int) -> None:
        idx = self.total_request_count
        if idx >= self.config.max_requests:
            raise RuntimeError("dynamic context is full")
        self.request_ids[idx] = request_id
        self.request_query_lengths[idx] = prompt_length
        self.request_kv_length_offsets[idx] = 0
        self.request_output_lengths[idx] = 0
        self.request_status[idx] = RequestStatus.ACTIVE
        self.total_request_count += 1
        self.active_request_count = self.total_request_count

    @torch.no_grad()
    def update_requests(self, active_requests_mask: torch.Tensor, new_tokens: torch.Tensor) -> None:
        """Append ``new_tokens``, retire finished requests and compact the bookkeeping."""
        n = self.total_request_count
        mask = active_requests_mask[:n]
        self.active_request_count = int(mask.sum().item())

        self.request_kv_length_offsets[:n] += self.request_query_lengths[:n]
        self.request_query_lengths[:n] = 1
        self.request_output_lengths[:n] += 1
        self.request_status[:n] = torch.where(mask, RequestStatus.ACTIVE, RequestStatus.FINISHED).to(torch.int8)

        # stable partition: active rows first, finished rows after them
        order = torch.argsort((~mask).to(torch.int8), stable=True)
        for name in (*MIRRORED_FIELDS, "request_status"):
            rows = getattr(self, name)
            rows[:n] = rows[:n].index_select(0, order)
        self.last_tokens[:n] = new_tokens[:n].index_select(0, order)

        with torch.cuda.stream(self.mirror_stream):
            for mirror in self._mirrors.values():
                mirror.refresh(n)

    def host_view(self, name: str, start: int, stop: int) -> torch.Tensor:
        return self._mirrors[name].host_view(start, stop)

    def retire_finished(self) -> None:
        self.total_request_count = self.active_request_count
