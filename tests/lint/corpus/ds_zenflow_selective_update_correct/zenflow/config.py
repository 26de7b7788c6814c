from dataclasses import dataclass


@dataclass
class ZenFlowConfig:
    topk_ratio: float = 0.1
    select_interval: int = 100
    update_interval: int = 4
    overlap_step: bool = True
    lr: float = 1e-5
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8

    def num_important(self, cols):
        return max(1, int(cols * self.topk_ratio))
