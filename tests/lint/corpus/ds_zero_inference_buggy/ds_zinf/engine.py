# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import logging

import torch

from ds_zinf.config import NUM_WEIGHT_SLOTS, ZeroInferenceConfig
from ds_zinf.layers import run_decoder_layer
from ds_zinf.staging import stage_layer_weights
from ds_zinf.weight_store import PinnedWeightStore

logger = logging.getLogger(__name__)


class OffloadedInferenceEngine(object):
    """Runs a decoder stack whose weights live in pinned host memory.

    Weights of layer i+1 are staged into the spare slot while layer i runs.
    """

    def __init__(self, cfg: ZeroInferenceConfig, store: PinnedWeightStore):
        self.cfg = cfg
        self.store = store
        self.device = torch.device(cfg.device) if cfg.device else torch.accelerator.current_accelerator()
        self._dm = torch.get_device_module(self.device)
        self._h2d_stream = self._dm.Stream(device=self.device)
        self._slots = torch.empty((NUM_WEIGHT_SLOTS, cfg.layer_numel), dtype=cfg.dtype, device=self.device)
        self._slot_ready = [self._dm.Event() for _ in range(NUM_WEIGHT_SLOTS)]
        self._slot_free = [self._dm.Event() for _ in range(NUM_WEIGHT_SLOTS)]
        logger.info(f"ZeRO-Inference engine: {NUM_WEIGHT_SLOTS} slots x {cfg.layer_numel} elems")

    def _prefetch(self, layer_id: int, slot: int, after) -> None:
        self._h2d_stream.wait_event(after)
        stage_layer_weights(self._slots[slot], self.store.layer(layer_id), self._dm, self._h2d_stream,
                            self._slot_ready[slot])

    @torch.inference_mode()
    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        compute_stream = self._dm.current_stream(self.device)
        self._prefetch(0, 0, after=self._slot_free[0])
        for layer_id in range(self.cfg.num_layers):
            cur = layer_id % NUM_WEIGHT_SLOTS
            nxt = (layer_id + 1) % NUM_WEIGHT_SLOTS
            if layer_id + 1 < self.cfg.num_layers:
                self._prefetch(layer_id + 1, nxt, after=self._slot_free[cur])
            compute_stream.wait_event(self._slot_ready[cur])
            params = self.store.views(self._slots[cur])
            hidden = run_decoder_layer(hidden, params, self.cfg.rms_norm_eps)
            self._slot_free[cur].record(compute_stream)
        return hidden
