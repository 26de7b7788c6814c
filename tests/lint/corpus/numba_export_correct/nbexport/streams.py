"""Stream bundle for the exporter."""

from dataclasses import dataclass, field

from numba import cuda


@dataclass
class StreamSet:
    compute: "cuda.cudadrv.driver.Stream" = field(default_factory=cuda.stream)
    transfer: "cuda.cudadrv.driver.Stream" = field(default_factory=cuda.stream)

    def synchronize(self) -> None:
        self.compute.synchronize()
        self.transfer.synchronize()
