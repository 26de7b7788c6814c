"""Per-request draft confidences mirrored to pinned memory for the scheduler. The copy runs on
a side stream behind an event the compute stream records after writing them; speculative
decoding is a server setting, and without it nothing is published or copied."""

import torch


class ConfidenceRelay:
    def __init__(self, num_slots: int, speculative: bool) -> None:
        self.speculative = speculative
        self.d2h = torch.cuda.Stream()
        self.published = None
        self.confidence = torch.zeros(num_slots, device="cuda")
        self.host = torch.empty(num_slots, pin_memory=True)

    def publish(self, slots: torch.Tensor, values: torch.Tensor) -> None:
        self.confidence[slots] = values
        if self.speculative:
            if self.published is None:
                self.published = torch.cuda.Event()
            self.published.record()
        self._mirror(self.published)

    def _mirror(self, published) -> None:
        if published is None:
            return
        self.d2h.wait_event(published)
        with torch.cuda.stream(self.d2h):
            self.host.copy_(self.confidence, non_blocking=True)
