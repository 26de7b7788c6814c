import logging
import threading
from typing import Dict, List

import numpy as np

from .readback import ExpertLoadReadback

logger = logging.getLogger("tensorrt_llm")


class PlacementBalancer(threading.Thread):

    def __init__(self, readback: ExpertLoadReadback, num_slots_per_rank: int):
        super().__init__(name="eplb-balancer", daemon=True)
        self.readback = readback
        self.num_slots_per_rank = num_slots_per_rank
        self.placements: Dict[int, List[int]] = {}
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()
        self.readback.completed.put(-1)

    def run(self) -> None:
        ema = None
        while not self._stop.is_set():
            slot = self.readback.completed.get()
            if slot < 0:
                break
            load = self.readback.view(slot).astype(np.float64)
            self.readback.release(slot)
            ema = load if ema is None else 0.9 * ema + 0.1 * load
            for layer, per_expert in enumerate(ema):
                order = np.argsort(-per_expert)
                self.placements[layer] = order[: self.num_slots_per_rank].tolist()
