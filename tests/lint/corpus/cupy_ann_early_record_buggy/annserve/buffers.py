from dataclasses import dataclass

import cupyx
import numpy as np


@dataclass
class HostResult:
    ids: np.ndarray        # pinned [max_queries, k] int64
    scores: np.ndarray     # pinned [max_queries, k] float32

    @classmethod
    def allocate(cls, max_queries: int, k: int) -> "HostResult":
        return cls(cupyx.empty_pinned((max_queries, k), dtype=np.int64),
                   cupyx.empty_pinned((max_queries, k), dtype=np.float32))
