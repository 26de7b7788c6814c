from dataclasses import dataclass
from enum import IntEnum


class RequestStatus(IntEnum):
    ACTIVE = 0
    FINISHED = 1


# Per-request GPU bookkeeping that is kept compacted (active requests first) and
# mirrored to pinned host memory for the scheduler.
MIRRORED_FIELDS = (
    "request_ids",
    "request_query_lengths",
    "request_kv_length_offsets",
    "request_output_lengths",
)


@dataclass(frozen=True)
class DynamicContextConfig:
    max_requests: int = 256
    max_tokens: int = 16384
    block_size_tokens: int = 256
    max_sequence_length: int = 4096
    termination_id: int = 2

    @property
    def max_blocks_per_request(self) -> int:
        return -(-self.max_sequence_length // self.block_size_tokens)
