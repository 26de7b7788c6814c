import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    hidden_size: int
    ffn_size: int
    device_id: int = 0
    dtype: type = np.float16
    # Fraction of each layer's weights that stays resident on the GPU (FlexGen's w_gpu_percent).
    w_gpu_percent: float = 0.0
    overlap: bool = True

    @property
    def hidden_shape(self):
        return (self.gpu_batch_size, self.hidden_size)
