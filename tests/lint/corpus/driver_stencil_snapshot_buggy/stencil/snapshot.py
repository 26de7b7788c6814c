"""Copies the current grid to pinned host memory every few steps and writes it to disk
on a writer thread, while the simulation keeps stepping."""
import ctypes
import queue
import threading
from pathlib import Path

import numpy as np
from cuda.bindings import driver as cu

from .drv import ck
from .sim import HeatSim


class Snapshotter:
    def __init__(self, sim: HeatSim, out_dir: Path):
        self.sim = sim
        self.out_dir = out_dir
        flags = cu.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self._copy = ck(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self._ready = ck(cu.cuEventCreate(flags))
        self._done = ck(cu.cuEventCreate(flags))
        self._host = ck(cu.cuMemAllocHost(sim.nbytes))
        self._view = np.ctypeslib.as_array(
            (ctypes.c_float * (sim.nx * sim.ny)).from_address(int(self._host)))
        self._jobs: "queue.Queue" = queue.Queue(maxsize=1)
        self._writer = threading.Thread(target=self._write_loop, daemon=True)
        self._writer.start()

    def take(self) -> None:
        # one snapshot in flight at a time: the pinned buffer is reused
        self._jobs.join()
        sim = self.sim
        ck(cu.cuEventRecord(self._ready, sim.compute))
        ck(cu.cuStreamWaitEvent(self._copy, self._ready, 0))
        # expect: KVG001
        ck(cu.cuMemcpyDtoHAsync(self._host, sim.current, sim.nbytes, self._copy))
        ck(cu.cuEventRecord(self._done, self._copy))
        # the next steps overwrite this grid two iterations from now
        ck(cu.cuStreamWaitEvent(sim.compute, self._done, 0))
        self._jobs.put(sim.steps)

    def _write_loop(self) -> None:
        while True:
            step = self._jobs.get()
            ck(cu.cuEventSynchronize(self._done))
            self._view.tofile(self.out_dir / f"heat_{step:08d}.f32")
            self._jobs.task_done()
