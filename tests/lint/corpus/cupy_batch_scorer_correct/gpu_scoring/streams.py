from dataclasses import dataclass, field

import cupy


@dataclass
class StreamSet:
    """One stream for kernels and one for host-to-device uploads."""

    compute: cupy.cuda.Stream = field(default_factory=lambda: cupy.cuda.Stream(non_blocking=True))
    h2d: cupy.cuda.Stream = field(default_factory=lambda: cupy.cuda.Stream(non_blocking=True))

    def synchronize(self) -> None:
        self.h2d.synchronize()
        self.compute.synchronize()
