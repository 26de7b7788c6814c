"""Per-layer expert load statistics for a torch MoE model, counted on the GPU with numba.

A forward hook on every router feeds its top-k expert ids to a numba bincount kernel on the
model's stream. Every ``snapshot_every`` steps the counters are copied to pinned memory on a
side stream and appended to a JSONL file by a writer thread; the final totals are written
when the tracker is closed (explicitly, or at interpreter exit).
"""
from .tracker import ExpertLoadTracker

__all__ = ["ExpertLoadTracker"]
