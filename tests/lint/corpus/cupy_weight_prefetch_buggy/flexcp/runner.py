import cupy

from .host_store import HostWeightStore
from .policy import Policy
from .prefetch import WeightPrefetcher


class LayerRunner:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.prefetcher = WeightPrefetcher(policy, HostWeightStore(policy))

    def forward(self, hidden: cupy.ndarray) -> cupy.ndarray:
        pf = self.prefetcher
        for i in range(min(self.policy.num_slots, self.policy.num_layers)):
            pf.prefetch(i)
        for i in range(self.policy.num_layers):
            w = pf.acquire(i, self.compute)
            with self.compute:
                hidden = cupy.tanh(hidden @ w)
            pf.prefetch(i + self.policy.num_slots)
            pf.release(i, self.compute)
        self.compute.synchronize()
        return hidden
