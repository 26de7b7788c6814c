"""JSONL output for load snapshots."""
import json
import time

import numpy as np


class JsonlSink:
    def __init__(self, path: str):
        self._f = open(path, "a", buffering=1)

    def write(self, step: int, counts: np.ndarray, final: bool = False) -> None:
        totals = counts.sum(axis=1, keepdims=True).clip(min=1)
        record = {
            "time": time.time(),
            "step": step,
            "final": final,
            "counts": counts.tolist(),
            "max_over_mean": (counts.max(axis=1) * counts.shape[1] / totals[:, 0]).tolist(),
        }
        self._f.write(json.dumps(record) + "\n")

    def close(self) -> None:
        self._f.close()
