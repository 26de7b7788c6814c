"""Overlap scheduling in the shape of SGLang's TpModelWorkerClient: the scheduler thread queues
batch N+1 while a forward thread runs batch N on its own forward stream, copies the sampled ids
(and logprobs, when asked) to the host without blocking and hands them back through an output
queue together with the event recorded after those copies.

``resolve_batch_result`` waits on the copy-done event before it converts anything to Python.
"""

from overlap_sched.scheduler import Scheduler

__all__ = ["Scheduler"]
