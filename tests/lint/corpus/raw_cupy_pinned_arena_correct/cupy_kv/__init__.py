"""A CuPy decode engine whose KV pages spill to a pinned host arena (``cupy.cuda.alloc_pinned_memory``
viewed through ``numpy.frombuffer``) and from there to files written by a thread pool. Page copies
are raw ``cupy.cuda.runtime.memcpyAsync`` calls on two non-blocking streams; the decode kernels run
on the thread's current stream.

``spill`` orders the d2h stream behind the current stream and records its "landed" event on the
d2h stream after the copies, which the writer synchronizes on before touching a slot;
``prefetch`` orders the h2d stream behind the current stream before overwriting recycled pages.
"""
