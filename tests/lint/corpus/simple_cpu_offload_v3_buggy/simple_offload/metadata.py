# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field


@dataclass
class SimpleCPUOffloadMetadata:
    """Per-step instructions sent from the scheduler to the worker."""

    # request id -> (cpu block ids, gpu block ids)
    loads: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    # request id -> (gpu block ids, cpu block ids)
    stores: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
