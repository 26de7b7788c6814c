from dataclasses import dataclass


@dataclass(frozen=True)
class DedispConfig:
    nchan: int = 1024
    nsamp: int = 65536
    ndm: int = 512
    max_delay: int = 4096
    nslots: int = 3                 # output buffers in flight
    threads_per_block: int = 256

    @property
    def nsamp_out(self) -> int:
        return self.nsamp - self.max_delay
