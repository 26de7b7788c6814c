"""Overlap scheduler pieces: future token map, worker thread, output processing."""

from sgl_overlap.scheduler import Scheduler
from sgl_overlap.tp_worker_overlap import TpModelWorkerClient
