"""What a caller learns of copies that did not go through: refused copies, each listed once and
counted in one place, and errors raised on the caller's next call."""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass

from kvguard.runtime.counters import RuntimeCounters
from kvguard.runtime.guard import CopyRequest, ViolationKind


class RefusalReason(str, enum.Enum):
    """Why a copy was refused: a guard violation (under policy raise or refuse), a copy that
    could not be made, or a stored block that verification found wrong."""

    NO_WAIT = ViolationKind.NO_WAIT.value
    WAIT_NOT_ON_COMPUTE = ViolationKind.WAIT_NOT_ON_COMPUTE.value
    STALE_RECORD = ViolationKind.STALE_RECORD.value
    UNSAFE_SOURCE_ORDER = ViolationKind.UNSAFE_SOURCE_ORDER.value
    # A barrier wait, planning, the driver call or the completion record failed; the error is
    # raised on the caller's next call.
    COPY_ERROR = "copy_error"
    VERIFICATION_MISMATCH = "verification_mismatch"  # still differed after a re-copy
    VERIFICATION_ERROR = "verification_error"  # the check could not be made

    @classmethod
    def of_violation(cls, kind: ViolationKind) -> RefusalReason:
        return cls(kind.value)


@dataclass(frozen=True)
class RefusedCopy:
    """A copy whose blocks were never reported as copied, and why."""

    event_idx: int
    is_store: bool
    src_blocks: tuple[int, ...]
    dst_blocks: tuple[int, ...]
    reason: RefusalReason


class Refusals:
    """Refused copies, counted (`refused`) as they are listed and handed out once each."""

    def __init__(self, counters: RuntimeCounters) -> None:
        self._counters = counters
        self._lock = threading.Lock()
        self._listed: list[RefusedCopy] = []

    def refuse(self, request: CopyRequest, reason: RefusalReason) -> None:
        self._counters.add("refused")
        refused = RefusedCopy(
            request.event_idx, request.is_store, tuple(request.src_blocks), tuple(request.dst_blocks), reason
        )
        with self._lock:
            self._listed.append(refused)

    def take(self) -> list[RefusedCopy]:
        """The copies refused since the last call."""
        with self._lock:
            taken, self._listed = self._listed, []
        return taken


class PendingErrors:
    """Errors met on the backend's threads, raised one per call on the caller's thread, oldest
    first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: list[BaseException] = []

    def __bool__(self) -> bool:
        return bool(self._errors)  # one read of a list: no lock needed to ask

    def add(self, error: BaseException) -> None:
        with self._lock:
            self._errors.append(error)

    def raise_oldest(self) -> None:
        with self._lock:
            error = self._errors.pop(0) if self._errors else None
        if error is not None:
            raise error

    def take_all(self) -> list[BaseException]:
        with self._lock:
            taken, self._errors = self._errors, []
        return taken
