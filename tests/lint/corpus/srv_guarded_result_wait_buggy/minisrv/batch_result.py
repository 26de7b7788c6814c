"""What one forward pass hands back to the scheduler: sampled ids copied to the host on the
forward stream, and the event recorded after that copy (unset for a batch that ran no
forward, such as an idle step)."""

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class BatchResult:
    next_token_ids: Optional[torch.Tensor] = None
    copy_done: Optional[torch.cuda.Event] = None

    def copy_to_host(self):
        self.next_token_ids = self.next_token_ids.to("cpu", non_blocking=True)
        self.copy_done = torch.cuda.Event()
        self.copy_done.record()
