"""A CuPy decode engine whose KV pages spill to a pinned host arena (``cupy.cuda.alloc_pinned_memory``
viewed through ``numpy.frombuffer``) and from there to files written by a thread pool. Page copies
are raw ``cupy.cuda.runtime.memcpyAsync`` calls on two non-blocking streams; the decode kernels run
on the thread's current stream.

Bugs:
- ``spill`` records its "landed" event on the current stream instead of the d2h stream, so the
  writer's ``landed.synchronize()`` does not wait for the copies and it writes slots that may not
  hold the page yet (KVG003).
- ``prefetch`` copies host slots into recycled device pages without ordering the h2d stream behind
  the current stream, whose queued kernels may still read those pages (KVG004).
"""
