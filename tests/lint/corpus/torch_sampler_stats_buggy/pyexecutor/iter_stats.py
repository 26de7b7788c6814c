from collections import deque
from dataclasses import dataclass
from typing import Deque, List, Optional

from .sampler import SampleState


@dataclass
class InflightBatchingStats:
    iter: int
    num_context_requests: int = 0
    num_gen_requests: int = 0
    num_generated_tokens: int = 0
    iter_latency_ms: float = 0.0


class IterStatsCollector:
    def __init__(self, max_stats_len: int):
        self._stats: Deque[InflightBatchingStats] = deque(maxlen=max_stats_len)

    def record(
        self,
        iter_id: int,
        scheduled_batch,
        sample_state: Optional[SampleState],
        iter_latency_ms: float,
    ) -> InflightBatchingStats:
        stats = InflightBatchingStats(
            iter=iter_id,
            num_context_requests=len(scheduled_batch.context_requests),
            num_gen_requests=len(scheduled_batch.generation_requests),
            iter_latency_ms=iter_latency_ms,
        )
        if sample_state is not None and sample_state.host is not None:
            slots = [r.py_seq_slot for r in scheduled_batch.all_requests()]
            lens = sample_state.host.new_tokens_lens
            # expect: KVG003
            stats.num_generated_tokens = int(lens[slots].sum())
        self._stats.append(stats)
        return stats

    def drain(self) -> List[InflightBatchingStats]:
        drained = list(self._stats)
        self._stats.clear()
        return drained
