# SPDX-License-Identifier: Apache-2.0
import torch
from deepspeed.utils import logger

from .base import CheckpointEngine


class TorchCheckpointEngine(CheckpointEngine):

    def create(self, tag):
        logger.info(f"[Torch] Checkpoint {tag} is about to be saved!")

    def save(self, state_dict, path: str):
        torch.save(state_dict, path)

    def load(self, path: str, map_location=None):
        return torch.load(path, map_location=map_location, weights_only=False)

    def commit(self, tag, latest_path=None):
        if latest_path is not None:
            with open(latest_path, "w") as fd:
                fd.write(tag)
        logger.info(f"[Torch] Checkpoint {tag} is ready now!")
        return True
