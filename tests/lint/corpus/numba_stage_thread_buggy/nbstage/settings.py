from dataclasses import dataclass

STAGE_QUEUE_DEPTH = 4
TPB = 256


@dataclass
class StageSettings:
    d_model: int
    d_ff: int
    num_experts: int
    num_buffers: int = 2
