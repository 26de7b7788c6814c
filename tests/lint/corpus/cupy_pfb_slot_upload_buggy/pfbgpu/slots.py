from dataclasses import dataclass
from typing import List, Optional

import cupy as cp
import cupyx
import numpy as np


@dataclass
class Slot:
    index: int
    h_raw: np.ndarray                          # pinned, filled by the receiver
    d_raw: cp.ndarray                          # device copy the PFB kernel reads
    nbytes: int = 0
    timestamp: int = 0
    uploaded: Optional[cp.cuda.Event] = None   # recorded on the upload stream
    consumed: Optional[cp.cuda.Event] = None   # recorded on the compute stream after the PFB


def make_slots(n: int, samples: int) -> List[Slot]:
    return [Slot(i, cupyx.empty_pinned((samples,), dtype=np.int8),
                 cp.empty((samples,), dtype=cp.int8)) for i in range(n)]
