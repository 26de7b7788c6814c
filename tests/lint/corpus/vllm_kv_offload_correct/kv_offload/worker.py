# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod
from dataclasses import dataclass

from .mediums import LoadStoreSpec

# (src, dst)
TransferSpec = tuple[LoadStoreSpec, LoadStoreSpec]


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int | None = None  # bytes
    transfer_time: float | None = None  # seconds


class OffloadingHandler(ABC):
    """Asynchronously moves KV data between two media, in one direction."""

    @abstractmethod
    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        """Submit a transfer. Returns False if it could not be submitted."""

    @abstractmethod
    def get_finished(self) -> list[TransferResult]:
        """Collect transfers that completed since the last call."""

    def wait(self, job_ids: set[int]) -> None:  # noqa: B027
        pass
