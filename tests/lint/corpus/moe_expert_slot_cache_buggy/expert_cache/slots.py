"""Book-keeping for the device slots that hold routed experts' weights."""

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class Slot:
    key: Optional[tuple] = None
    ready: Optional[torch.cuda.Event] = None
    last_use: Optional[torch.cuda.Event] = None

    def retire(self, key):
        self.key = key
        self.last_use = None
