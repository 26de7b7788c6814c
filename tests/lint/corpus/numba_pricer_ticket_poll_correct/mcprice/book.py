from dataclasses import dataclass
from typing import Dict, List

import numpy as np


@dataclass
class OptionBook:
    spot: np.ndarray
    strike: np.ndarray
    vol: np.ndarray
    expiry: np.ndarray       # years
    is_call: np.ndarray      # uint8

    def __len__(self) -> int:
        return int(self.spot.shape[0])

    @classmethod
    def from_request(cls, options: List[dict]) -> "OptionBook":
        col = lambda key, dt: np.ascontiguousarray([o[key] for o in options], dtype=dt)
        return cls(col("spot", np.float64), col("strike", np.float64), col("vol", np.float64),
                   col("expiry", np.float64),
                   np.ascontiguousarray([o.get("type", "call") == "call" for o in options],
                                        dtype=np.uint8))

    def columns(self) -> Dict[str, np.ndarray]:
        return {"spot": self.spot, "strike": self.strike, "vol": self.vol,
                "expiry": self.expiry, "is_call": self.is_call}
