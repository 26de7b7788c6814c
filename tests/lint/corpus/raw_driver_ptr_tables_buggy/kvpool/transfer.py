"""Per-block copies with the CUDA driver API through cuda-python (``cuMemcpyDtoHAsync`` /
``cuMemcpyHtoDAsync``) on a non-blocking driver stream, gated by driver events. Bugs: the
store records and waits its compute-stream event only AFTER issuing the copies, which orders
the next call's copies behind this forward, not behind the forward that wrote their blocks;
the load records its event on its own stream, so waiting on it orders nothing."""

from cuda.bindings import driver


def _ok(result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return values[0] if values else None


class DriverBlockMover:
    def __init__(self, block_bytes):
        self.block_bytes = block_bytes
        self.stream = _ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
        self.ready = _ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
        self.done = _ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))

    def store(self, device_table, host_table, compute):
        for layer, (device_keys, device_values) in device_table.items():
            host_keys, host_values = host_table[layer]
            for dst, src in zip(host_keys + host_values, device_keys + device_values):
                # expect: KVG001
                _ok(driver.cuMemcpyDtoHAsync(dst, src, self.block_bytes, self.stream))
        _ok(driver.cuEventRecord(self.ready, compute))
        _ok(driver.cuStreamWaitEvent(self.stream, self.ready, 0))
        _ok(driver.cuEventRecord(self.done, self.stream))

    def load(self, host_table, device_table, compute):
        _ok(driver.cuEventRecord(self.ready, self.stream))
        _ok(driver.cuStreamWaitEvent(self.stream, self.ready, 0))
        for layer, (host_keys, host_values) in host_table.items():
            device_keys, device_values = device_table[layer]
            for dst, src in zip(device_keys + device_values, host_keys + host_values):
                # expect: KVG004
                _ok(driver.cuMemcpyHtoDAsync(dst, src, self.block_bytes, self.stream))
        _ok(driver.cuEventRecord(self.done, self.stream))
        _ok(driver.cuStreamWaitEvent(compute, self.done, 0))
