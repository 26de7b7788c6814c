"""Scheduler and device settings."""

from dataclasses import dataclass

DEVICE = "cuda"


@dataclass
class SchedulerConfig:
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    async_scheduling: bool = True
