from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class SpillConfig:
    """Knobs for the device->host spill path.

    ``device_high_watermark`` is the fraction of device memory in use by the
    default CuPy pool above which intermediate activations are spilled to
    pinned host memory instead of being kept resident.
    """

    device_high_watermark: float = 0.80
    verify_checksums: bool = True
    queue_depth: int = 8
    worker_name: str = "cupy-spill"

    def __post_init__(self) -> None:
        if not 0.0 < self.device_high_watermark <= 1.0:
            raise ValueError(
                f"device_high_watermark must be in (0, 1], got {self.device_high_watermark}"
            )
