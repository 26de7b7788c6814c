"""Per-layer token-count tracking for load-balancing diagnostics (``--moe-log-token-counts``)."""

from collections import defaultdict


class TokenCountTracker:
    def __init__(self):
        self.totals = defaultdict(list)
        self.steps = 0

    def record(self, layer_number, tokens_per_expert):
        counts = tokens_per_expert.tolist()
        acc = self.totals[layer_number]
        if not acc:
            acc.extend(0 for _ in counts)
        for i, c in enumerate(counts):
            acc[i] += c

    def imbalance(self, layer_number):
        acc = self.totals[layer_number]
        if not acc:
            return 0.0
        mean = sum(acc) / len(acc)
        return max(acc) / mean if mean else 0.0
