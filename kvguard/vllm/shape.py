"""What the running vLLM release's SimpleCPUOffloadConnector looks like, found by capability.

The adapter relies on a few facts about the stock worker and scheduler side. Releases differ in
where the copy backend is created (the worker's constructor in 0.19 to 0.23, its cache
registration later), where copies are launched (`get_finished` in 0.19 to 0.23; `start_load_kv`
and `wait_for_save` later) and whether `launch_copy` takes a `wait_event`. Each fact is read off
the installed code, not a version table, so a fork or an in-between release that shares a shape
works, and one that lacks something fails at startup with a message naming what is missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vllm.v1.simple_kv_offload.copy_backend import DmaCopyBackend
from vllm.v1.simple_kv_offload.manager import SimpleCPUOffloadScheduler
from vllm.v1.simple_kv_offload.worker import SimpleCPUOffloadWorker

# Worker state the adapter reads or adjusts (event lists, pending sets, reports).
_WORKER_ATTRIBUTES = (
    "_backend",
    "_load_events",
    "_store_events",
    "_pending_load_event_indices",
    "_pending_store_event_indices",
    "_connector_metadata",
)
_WORKER_METHODS = (
    "register_kv_caches",
    "bind_connector_metadata",
    "get_finished",
    "build_connector_worker_meta",
    "handle_preemptions",
    "clear_connector_metadata",
)
_LAUNCH_PARAMETERS = ("src_blocks", "dst_blocks", "is_store", "event_idx", "events_list")
# Where a refused store is released without entering the CPU cache.
_SCHEDULER_METHODS = ("_process_store_event", "_process_store_completion")
_LAUNCH_SITES = ("start_load_kv", "wait_for_save", "get_finished")


class UnsupportedVllmError(RuntimeError):
    """The installed vLLM's SimpleCPUOffloadConnector lacks something kvguard relies on."""


@dataclass(frozen=True)
class WorkerShape:
    backend_created_in_constructor: bool
    launch_takes_wait_event: bool
    store_launch_sites: tuple[str, ...]
    load_launch_sites: tuple[str, ...]

    def describe(self) -> str:
        created = "constructor" if self.backend_created_in_constructor else "register_kv_caches"
        return (
            f"backend created in {created}, stores launched in "
            f"{'/'.join(self.store_launch_sites)}, loads in {'/'.join(self.load_launch_sites)}, "
            f"launch_copy {'takes' if self.launch_takes_wait_event else 'has no'} wait_event"
        )


def detect_worker_shape(worker: SimpleCPUOffloadWorker) -> WorkerShape:
    """Read the shape off a freshly constructed stock worker; raise if kvguard cannot drive it."""
    missing = [f"SimpleCPUOffloadWorker.{name}" for name in _WORKER_ATTRIBUTES if not hasattr(worker, name)]
    missing += [
        f"SimpleCPUOffloadWorker.{name}()"
        for name in _WORKER_METHODS
        if not callable(getattr(worker, name, None))
    ]
    launch = getattr(DmaCopyBackend, "launch_copy", None)
    parameters = list(inspect.signature(launch).parameters) if callable(launch) else []
    missing += [
        f"DmaCopyBackend.launch_copy({name}=...)" for name in _LAUNCH_PARAMETERS if name not in parameters
    ]
    store_sites, load_sites = _launch_sites()
    if not store_sites:
        missing.append("a SimpleCPUOffloadWorker method that launches stores (is_store=True)")
    if not load_sites:
        missing.append("a SimpleCPUOffloadWorker method that launches loads (is_store=False)")
    _raise_if_missing(missing)
    return WorkerShape(
        backend_created_in_constructor=isinstance(worker._backend, DmaCopyBackend),
        launch_takes_wait_event="wait_event" in parameters,
        store_launch_sites=store_sites,
        load_launch_sites=load_sites,
    )


def check_scheduler_shape(manager: SimpleCPUOffloadScheduler) -> None:
    _raise_if_missing(
        [
            f"SimpleCPUOffloadScheduler.{name}()"
            for name in _SCHEDULER_METHODS
            if not callable(getattr(manager, name, None))
        ]
    )


def _launch_sites() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which per-step worker methods launch stores and which launch loads, from their source."""
    stores, loads = [], []
    for name in _LAUNCH_SITES:
        source = _source_of(getattr(SimpleCPUOffloadWorker, name, None))
        if "launch_copy" not in source:
            continue
        if "is_store=True" in source:
            stores.append(name)
        if "is_store=False" in source:
            loads.append(name)
    return tuple(stores), tuple(loads)


def _source_of(function: Callable[..., Any] | None) -> str:
    if function is None:
        return ""
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):  # no source shipped (a compiled fork): nothing to read
        return ""


def _raise_if_missing(missing: list[str]) -> None:
    if missing:
        raise UnsupportedVllmError(
            "kvguard cannot drive this vLLM release's SimpleCPUOffloadConnector; missing: "
            + "; ".join(missing)
            + ". kvguard is tested with vLLM 0.23.0 and 0.33.0."
        )
