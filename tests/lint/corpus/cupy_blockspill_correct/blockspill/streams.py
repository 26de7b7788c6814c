import cupy


class StreamSet:
    """The compute stream that writes KV blocks and the stream that drains them to the host."""

    def __init__(self, device_id: int = 0):
        self.device_id = device_id
        with cupy.cuda.Device(device_id):
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.spill = cupy.cuda.Stream(non_blocking=True)

    def mark_compute(self) -> cupy.cuda.Event:
        """Record an event behind everything enqueued on the compute stream so far."""
        return self.compute.record()
