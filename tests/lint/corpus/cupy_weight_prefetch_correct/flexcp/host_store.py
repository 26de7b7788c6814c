import cupyx
import numpy as np

from .policy import Policy


class HostWeightStore:
    """Pinned host copies of every layer's weight matrix."""

    def __init__(self, policy: Policy, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.layers: list[np.ndarray] = []
        for _ in range(policy.num_layers):
            buf = cupyx.empty_pinned((policy.hidden, policy.hidden), dtype=np.float16)
            buf[...] = rng.standard_normal(buf.shape).astype(np.float16) * 0.02
            self.layers.append(buf)

    def __getitem__(self, i: int) -> np.ndarray:
        return self.layers[i]
