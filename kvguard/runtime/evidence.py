"""The guard's evidence: the event records and stream waits it made itself, in one order.

The guard must not trust the code it checks, so it owns the barrier's handshake: it records the
compute-done event on the requesting thread's compute stream when the copy is requested, and it
makes the transfer stream's wait on it when the backend asks. Each driver call that succeeded is
logged here, with the raw event and stream handles. A barrier made any other way (PyTorch's
`wait_stream`, a raw driver call) is not evidence, so a backend that skips the guard's wait is
reported as unordered, whatever else it did.

Records are made on requesting threads and waits on copy threads, so the log takes no lock:
each write is one dict or deque operation, atomic under the GIL (`itertools.count`, `dict`
get/set/pop, `deque.append` are single C calls), and readers copy what they need in one
C-level call and retry if a writer raced them.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import deque
from typing import NamedTuple


class EventRecord(NamedTuple):
    """An event was recorded on `stream`; `seq` orders it against every other fact."""

    seq: int
    stream: int


class StreamWait(NamedTuple):
    """`stream` waited on an event; `record` is that event's latest record at the time, if any."""

    seq: int
    stream: int
    event_id: int
    record: EventRecord | None


# The named tuples' own __new__ is a Python function; tuple.__new__ builds the same instance
# in C (a record is logged for every copy request).
_new_tuple = tuple.__new__


class StreamEventLog:
    """Log of event records and stream waits, numbered in one global order; safe across threads.

    Lock-free: the GIL makes each single dict/deque/counter operation atomic, and no reader
    iterates a container another thread may be growing except through a one-call copy.
    """

    def __init__(self, waits_kept_per_stream: int = 1024, records_kept: int = 65536) -> None:
        self._counter = itertools.count(1)
        self._records: dict[int, EventRecord] = {}
        self._waits: dict[int, deque[StreamWait]] = {}
        self._waits_kept = waits_kept_per_stream
        self._records_kept = records_kept
        # Bound methods, looked up once: a record is logged for every copy request.
        self._next = self._counter.__next__

    def next_seq(self) -> int:
        """A number later than every fact logged so far (requests take one to mark their time)."""
        return self._next()

    def on_record(self, event_id: int, stream: int) -> None:
        records = self._records
        records.pop(event_id, None)  # re-insert so the oldest entry is first
        records[event_id] = _new_tuple(EventRecord, (self._next(), stream))
        if len(records) > self._records_kept:
            with contextlib.suppress(RuntimeError, StopIteration):  # raced by another thread
                records.pop(next(iter(records)), None)

    def on_wait(self, event_id: int, stream: int) -> None:
        waits = self._waits.get(stream)
        if waits is None:
            waits = self._waits.setdefault(stream, deque(maxlen=self._waits_kept))
        waits.append(_new_tuple(StreamWait, (self._next(), stream, event_id, self._records.get(event_id))))

    def on_delete(self, event_id: int) -> None:
        self._records.pop(event_id, None)

    def newest_wait(self, stream: int) -> StreamWait | None:
        """The newest wait made on `stream`, if any (one C-level deque index, no copy)."""
        waits = self._waits.get(stream)
        if not waits:
            return None
        try:
            return waits[-1]
        except IndexError:  # emptied by nothing we know of; be safe
            return None

    def waits_after(self, stream: int, seq: int, limit: int = 64) -> list[StreamWait]:
        """Up to `limit` waits made on `stream` later than `seq`, newest first.

        The copy thread checks right after its own waits, so the newest waits are the ones that
        matter; the limit keeps a check O(1) when requests queue up far ahead of the copies.
        The newest few are copied first, more only while all of those are later than `seq`.
        """
        waits = self._waits.get(stream)
        if not waits:
            return []
        take = min(4, limit)
        while True:
            newest = _newest(waits, take)
            newer: list[StreamWait] = []
            for wait in newest:
                if wait.seq <= seq:  # kept in seq order: the rest are older still
                    return newer
                newer.append(wait)
            if len(newest) < take or take >= limit:
                return newer
            take = min(limit, take * 4)


def _newest(waits: deque[StreamWait], count: int) -> list[StreamWait]:
    """The newest `count` waits, newest first, copied in one C-level pass."""
    for _ in range(8):
        try:  # a concurrent append makes the deque iterator raise; copy again
            return list(itertools.islice(reversed(waits), count))
        except RuntimeError:
            continue
    return []
