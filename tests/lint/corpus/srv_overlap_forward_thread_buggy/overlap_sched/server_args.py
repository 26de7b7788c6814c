"""Launch-time settings and the sizing constants the overlap worker derives its buffers from."""

from dataclasses import dataclass

DEVICE = "cuda"
# the future-token map holds this many slots per running request
FUTURE_MAP_FACTOR = 5
# ... and hands out ids from the first FUTURE_LIMIT_FACTOR of them, round robin
FUTURE_LIMIT_FACTOR = 3


@dataclass
class ServerArgs:
    max_running_requests: int = 256
    vocab_size: int = 32000
    enable_overlap_schedule: bool = True
    disable_logprob_postprocess: bool = False

    @property
    def future_map_size(self) -> int:
        return self.max_running_requests * FUTURE_MAP_FACTOR
