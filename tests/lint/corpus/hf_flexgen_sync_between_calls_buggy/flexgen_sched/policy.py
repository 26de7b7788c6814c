"""Offloading policy (which fraction of weights / cache lives where)."""
import argparse
import dataclasses


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    num_gpu_batches: int
    # Whether to overlap the I/O and compute
    overlap: bool = True
    # Whether to use pinned memory for weights and cache on CPU
    pin_weight: bool = True
    pin_cache: bool = True

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "Policy":
        return cls(
            gpu_batch_size=args.gpu_batch_size,
            num_gpu_batches=args.num_gpu_batches,
            overlap=args.overlap,
            pin_weight=args.pin_weight,
            pin_cache=args.pin_cache,
        )


def add_policy_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu-batch-size", type=int, default=4)
    parser.add_argument("--num-gpu-batches", type=int, default=2)
    parser.add_argument("--overlap", type=lambda x: x.lower() in ("1", "true", "yes"), default=True)
    parser.add_argument("--pin-weight", action="store_true", default=True)
    parser.add_argument("--pin-cache", action="store_true", default=True)
