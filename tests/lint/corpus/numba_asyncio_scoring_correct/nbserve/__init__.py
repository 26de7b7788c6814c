"""An asyncio scoring service on numba-CUDA: each request leases a ``cuda.stream()`` and a pinned
result buffer from a pool, uploads its features, scores them with a kernel and copies the scores
back on its own stream; ``await stream.async_done()`` suspends the request until the stream has
drained. A score histogram lives on the device, updated by every request's stream, and a
reporter task snapshots it to pinned memory on a separate stats stream."""
