from dataclasses import dataclass


@dataclass(frozen=True)
class RecorderConfig:
    num_steps: int = 32
    num_envs: int = 8192
    out_dir: str = "rollouts"
    compress: bool = False
    # how many iterations between two recorded rollouts
    record_every: int = 1
