"""Settings of the CPU offload connector."""
from dataclasses import dataclass

import numpy


@dataclass(frozen=True)
class OffloadConfig:
    num_cpu_blocks: int = 4096
    # blocks per store job; larger jobs are split so that get_finished() can report early
    max_blocks_per_job: int = 64
    host_dtype: numpy.dtype = numpy.dtype(numpy.float16)
