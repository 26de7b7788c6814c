import numpy as np
from numba import cuda

from .kernels import expert_gemv
from .settings import TPB, StageSettings
from .stager import ExpertStager


class MoELayer:
    def __init__(self, settings: StageSettings, host_experts: list[np.ndarray]) -> None:
        self.settings = settings
        self.compute = cuda.stream()
        self.stager = ExpertStager(settings, host_experts)

    def run(self, routed: list[int], d_x) -> list:
        nbuf = self.settings.num_buffers
        outs = []
        for j, expert in enumerate(routed[:nbuf]):
            self.stager.request(expert, j, None)
        for j, expert in enumerate(routed):
            buf = j % nbuf
            self.stager.wait_ready(buf)
            self.stager.ready[buf].wait(stream=self.compute)
            d_y = cuda.device_array(self.settings.d_ff, dtype=np.float32, stream=self.compute)
            blocks = (self.settings.d_ff + TPB - 1) // TPB
            expert_gemv[blocks, TPB, self.compute](self.stager.buffers[buf], d_x, d_y)
            outs.append(d_y)
            if j + nbuf < len(routed):
                freed = cuda.event(timing=False)
                freed.record(stream=self.compute)
                self.stager.request(routed[j + nbuf], buf, freed)
        self.compute.synchronize()
        return outs
