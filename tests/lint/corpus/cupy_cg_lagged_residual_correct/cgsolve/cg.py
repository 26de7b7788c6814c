"""Conjugate gradients with a lagged convergence test: the squared residual of iteration j
is only looked at LAG iterations later, so the host never waits for the GPU to drain."""
import logging

import cupy

from .monitor import ResidualMonitor

log = logging.getLogger(__name__)

LAG = 2


class PipelinedCG:
    def __init__(self, A, maxiter=10_000):
        self.A = A
        self.maxiter = maxiter
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.monitor = ResidualMonitor(self.compute, maxiter, depth=LAG + 2)

    def solve(self, b, rtol=1e-8):
        A, hist = self.A, self.monitor.device
        with self.compute:
            x = cupy.zeros_like(b)
            r = b - A @ x
            p = r.copy()
            rr = r.dot(r)
            hist[0] = rr
        self.monitor.fetch(0)
        target = None
        for k in range(self.maxiter):
            with self.compute:
                Ap = A @ p
                alpha = rr / p.dot(Ap)
                x += alpha * p
                r -= alpha * Ap
                rr_new = r.dot(r)
                hist[k + 1] = rr_new
                p *= rr_new / rr
                p += r
                rr = rr_new
            self.monitor.fetch(k + 1)
            j = k + 1 - LAG
            if j < 0:
                continue
            # queued LAG iterations ago: this normally returns at once, and blocks only when
            # the GPU has fallen more than LAG iterations behind the host
            rr_j = self.monitor.value(j)
            if target is None:
                target = (rtol ** 2) * self.monitor.value(0)
            if rr_j <= target:
                log.info("converged at iteration %d (detected at %d)", j, k + 1)
                break
        self.compute.synchronize()
        return x
