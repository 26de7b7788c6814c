from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class CacheOperation:
    host_start: int
    device_start: int
    num_tokens: int
    node_id: int
    priority: int = 0
    ready_event: Optional[Any] = field(default=None, repr=False)
