from dataclasses import dataclass

NUM_WEIGHT_SLOTS = 2


@dataclass
class Policy:
    hidden: int
    num_layers: int
    gpu_batch_size: int = 8
    overlap: bool = True
    num_slots: int = NUM_WEIGHT_SLOTS
