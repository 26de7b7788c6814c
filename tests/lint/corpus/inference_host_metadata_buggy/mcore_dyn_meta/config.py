from dataclasses import dataclass

STATUS_EMPTY = 0
STATUS_ACTIVE = 1
STATUS_FINISHED = 2


@dataclass
class InferenceContextConfig:
    max_requests: int = 256
    max_sequence_length: int = 4096
    termination_id: int = 2
    # Threads used to mirror request bookkeeping into host memory.
    metadata_workers: int = 1
    device_index: int = 0
