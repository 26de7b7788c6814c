import time

import numpy as np

from ooc.pipeline import OutOfCoreMatmul


def main(m=200_000, k=1024, n=256):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    mm = OutOfCoreMatmul(k, n)
    t0 = time.perf_counter()
    c = mm(a, b)
    dt = time.perf_counter() - t0
    ref = a[:1024] @ b
    err = float(np.abs(c[:1024] - ref).max())
    print(f"{2 * m * k * n / dt / 1e12:.2f} TFLOP/s, max err {err:.3e}")


if __name__ == "__main__":
    main()
