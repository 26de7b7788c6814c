from dataclasses import dataclass

import numpy as np


class LoadStoreSpec:
    @staticmethod
    def medium() -> str:
        raise NotImplementedError


@dataclass
class GPUBlocks(LoadStoreSpec):
    block_ids: np.ndarray

    @staticmethod
    def medium() -> str:
        return "GPU"


@dataclass
class CPUBlocks(LoadStoreSpec):
    block_ids: np.ndarray

    @staticmethod
    def medium() -> str:
        return "CPU"
