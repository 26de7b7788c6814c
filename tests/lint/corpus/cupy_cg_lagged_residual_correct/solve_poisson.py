import cupy

from cgsolve import PipelinedCG
from cgsolve.poisson import laplacian_2d


def main(n=512):
    A = laplacian_2d(n)
    rhs = cupy.ones(n * n, dtype=cupy.float64) / (n + 1) ** 2
    x = PipelinedCG(A).solve(rhs)
    return float(cupy.linalg.norm(A @ x - rhs))


if __name__ == "__main__":
    print(main())
