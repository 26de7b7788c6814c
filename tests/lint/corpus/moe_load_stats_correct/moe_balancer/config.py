from dataclasses import dataclass, field
from typing import Optional


@dataclass
class MoeLoadBalancerConfig:
    num_experts: int
    num_slots: int
    num_layers: int
    layer_ids: Optional[list[int]] = None
    update_interval: int = 32
    planner_workers: int = 1
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.layer_ids is None:
            self.layer_ids = list(range(self.num_layers))
        if self.num_slots < self.num_experts:
            raise ValueError("num_slots must be >= num_experts")
