import argparse

import numpy as np

from heat2d.solver import HeatSolver


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--out", default="frames")
    args = ap.parse_args()
    u0 = np.zeros((args.n, args.n), dtype=np.float32)
    solver = HeatSolver(u0, alpha=0.2, out_dir=args.out)
    for chunk in range(args.steps // 1000):
        solver.heat(args.n // 2, args.n // 2, args.n // 16, 1.0)
        solver.advance(1000)
    final = solver.result()
    solver.close()
    print("mean temperature", float(final.mean()))


if __name__ == "__main__":
    main()
