"""A quantized KV cache whose quantized part lives in pinned host memory, in the shape of
transformers' QuantizedCache (KIVI): the newest ``residual_length`` tokens stay in full precision
on the device; when the residual fills up, everything is re-quantized and the residual emptied.
Here the quantized tensors are then moved to the host on a side stream, so that only the
residual occupies device memory between steps; they come back (on the compute stream, after
the offload event) when the layer is next updated."""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch

from qoffload.quantizer import (
    QuantizedTensor,
    copy_quantized_,
    dequantize,
    empty_pinned_like,
    quantize,
    quantized_to,
)


@dataclass
class QuantizedOffloadConfig:
    nbits: int = 4
    q_group_size: int = 64
    residual_length: int = 128


class OffloadedQuantizedLayer:
    def __init__(self, config: QuantizedOffloadConfig, offload_stream: torch.cuda.Stream):
        self.config = config
        self.offload_stream = offload_stream
        self.keys: Optional[torch.Tensor] = None
        self.values: Optional[torch.Tensor] = None
        self._host_keys: Optional[QuantizedTensor] = None
        self._host_values: Optional[QuantizedTensor] = None
        self._offload_done: Optional[torch.cuda.Event] = None
        self.cumulative_length = 0

    def _offload_quantized(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        cfg = self.config
        qk = quantize(keys.contiguous(), cfg.nbits, cfg.q_group_size)
        qv = quantize(values.contiguous(), cfg.nbits, cfg.q_group_size)
        host_k, host_v = empty_pinned_like(qk), empty_pinned_like(qv)
        with torch.cuda.stream(self.offload_stream):
            copy_quantized_(host_k, qk)
            copy_quantized_(host_v, qv)
            for q in (qk, qv):
                # the device copies are dropped when we return; keep them for the offload stream
                q.data.record_stream(self.offload_stream)
                q.scale_zero.record_stream(self.offload_stream)
        self._offload_done = self.offload_stream.record_event()
        self._host_keys, self._host_values = host_k, host_v

    def _onload_dequantized(self, device: torch.device) -> Tuple[torch.Tensor, torch.Tensor]:
        torch.cuda.current_stream(device).wait_event(self._offload_done)
        qk = quantized_to(self._host_keys, device)
        qv = quantized_to(self._host_values, device)
        return dequantize(qk), dequantize(qv)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        self.cumulative_length += key_states.shape[-2]
        if self.keys is None:
            self.keys = key_states[..., :0, :]
            self.values = value_states[..., :0, :]
            self._offload_quantized(key_states, value_states)
            return key_states, value_states

        dequant_keys, dequant_values = self._onload_dequantized(key_states.device)
        keys_to_return = torch.cat([dequant_keys, self.keys, key_states], dim=-2)
        values_to_return = torch.cat([dequant_values, self.values, value_states], dim=-2)
        if self.keys.shape[-2] + 1 >= self.config.residual_length:
            self._offload_quantized(keys_to_return, values_to_return)
            self.keys = key_states[..., :0, :]
            self.values = value_states[..., :0, :]
        else:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        return keys_to_return, values_to_return


class OffloadedQuantizedCache:
    def __init__(self, num_layers: int, config: Optional[QuantizedOffloadConfig] = None, device: str = "cuda"):
        self.config = config or QuantizedOffloadConfig()
        self.offload_stream = torch.cuda.Stream(device=device)
        self.layers: List[OffloadedQuantizedLayer] = [
            OffloadedQuantizedLayer(self.config, self.offload_stream) for _ in range(num_layers)
        ]

    def update(self, key_states, value_states, layer_idx: int):
        return self.layers[layer_idx].update(key_states, value_states)

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.layers[layer_idx].cumulative_length
