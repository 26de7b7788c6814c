from dataclasses import dataclass, field


@dataclass
class SuperOffloadConfig:
    sub_group_numel: int = 1 << 26
    lr: float = 1e-4
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    cpuadam_threads: int = 8
    result_poll_timeout_s: float = 60.0
    extra: dict = field(default_factory=dict)
