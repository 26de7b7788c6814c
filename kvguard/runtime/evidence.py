"""Evidence of CUDA event records and waits, gathered from PyTorch's GPU trace callbacks.

Tuples rather than dataclasses: these run inside every event record and wait of the process.

The guard must not trust the code it checks, so it learns about barriers the way PyTorch's
stream sanitizer does: `torch.cuda._gpu_trace` reports every event record and stream wait made
through PyTorch (Event.record/wait, Stream.wait_event, Stream.wait_stream), from any thread,
with the raw event and stream handles. Raw driver calls (ctypes, cuda-bindings) are invisible
to it, so a barrier made that way is reported as missing. These are private PyTorch APIs;
tests/gpu pins the behaviour kvguard relies on.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from typing import NamedTuple

import torch
from torch.cuda import _gpu_trace


class EventRecord(NamedTuple):
    """An event was recorded on `stream`; `seq` orders it against every other fact."""

    seq: int
    stream: int
    thread: int


class StreamWait(NamedTuple):
    """`stream` waited on an event; `record` is that event's latest record at the time, if any."""

    seq: int
    stream: int
    event_id: int
    record: EventRecord | None


class StreamEventLog:
    """Thread-safe log of event records and stream waits, numbered in one global order."""

    def __init__(self, waits_kept_per_stream: int = 1024, records_kept: int = 65536) -> None:
        # Re-entrant: a garbage collection inside a locked section can destroy a torch event,
        # whose deletion callback comes back here on the same thread.
        self._lock = threading.RLock()
        self._counter = itertools.count(1)
        self._records: dict[int, EventRecord] = {}
        self._waits: dict[int, deque[StreamWait]] = {}
        self._waits_kept = waits_kept_per_stream
        self._records_kept = records_kept

    def next_seq(self) -> int:
        """A number later than every fact logged so far (requests take one to mark their time)."""
        return next(self._counter)

    def on_record(self, event_id: int, stream: int) -> None:
        with self._lock:
            self._records.pop(event_id, None)  # re-insert so the oldest entry is first
            self._records[event_id] = EventRecord(
                next(self._counter), stream, threading.get_ident()
            )
            if len(self._records) > self._records_kept:
                del self._records[next(iter(self._records))]

    def on_wait(self, event_id: int, stream: int) -> None:
        with self._lock:
            wait = StreamWait(next(self._counter), stream, event_id, self._records.get(event_id))
            waits = self._waits.get(stream)
            if waits is None:
                waits = self._waits[stream] = deque(maxlen=self._waits_kept)
            waits.append(wait)

    def on_delete(self, event_id: int) -> None:
        with self._lock:
            self._records.pop(event_id, None)

    def waits_after(self, stream: int, seq: int, limit: int = 64) -> list[StreamWait]:
        """Up to `limit` waits made on `stream` later than `seq`, newest first.

        The copy thread checks right after its own wait, so the newest wait is the one that
        matters; the limit keeps a check O(1) when requests queue up far ahead of the copies.
        """
        with self._lock:
            newer = []
            for wait in itertools.islice(reversed(self._waits.get(stream, ())), limit):
                if wait.seq <= seq:  # kept in seq order
                    break
                newer.append(wait)
            return newer


_process_log: StreamEventLog | None = None
_process_log_lock = threading.Lock()


def process_event_log() -> StreamEventLog:
    """The log fed by PyTorch's GPU trace; installed once per process, on first use.

    PyTorch offers no way to remove a trace callback, hence one shared log.
    """
    global _process_log
    with _process_log_lock:
        if _process_log is None:
            log = StreamEventLog()
            _gpu_trace.register_callback_for_event_record(log.on_record)
            _gpu_trace.register_callback_for_event_wait(log.on_wait)
            _gpu_trace.register_callback_for_event_deletion(log.on_delete)
            torch._C._activate_gpu_trace()
            _process_log = log
        return _process_log
