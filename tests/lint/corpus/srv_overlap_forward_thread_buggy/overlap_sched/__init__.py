"""Overlap scheduling in the shape of SGLang's TpModelWorkerClient: the scheduler thread queues
batch N+1 while a forward thread runs batch N on its own forward stream, copies the sampled ids
(and logprobs, when asked) to the host without blocking and hands them back through an output
queue together with the event recorded after those copies.

Bug: ``resolve_batch_result`` converts the logprobs to Python floats before it waits on the
copy-done event, so the host may read the pinned logprob buffer before the copy landed (KVG003).
"""

from overlap_sched.scheduler import Scheduler

__all__ = ["Scheduler"]
