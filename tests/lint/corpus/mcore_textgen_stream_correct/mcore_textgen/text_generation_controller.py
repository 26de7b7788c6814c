# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Dict, List, Optional

import torch

from .host_transfer import HostTransferStream, StepHostBuffers
from .sampling_params import SamplingParams
from .streaming import TokenStreamer
from .utils import collect_step_tokens, sample_logits

logger = logging.getLogger(__name__)


class TextGenerationController:
    """Static-batch generation loop that overlaps host transfers with the next forward step."""

    def __init__(self, inference_wrapped_model, tokenizer, streamer: Optional[TokenStreamer] = None):
        self.inference_wrapped_model = inference_wrapped_model
        self.tokenizer = tokenizer
        self.streamer = streamer
        self._transfer = HostTransferStream()

    @torch.inference_mode()
    def generate_all_output_tokens_static_batch(
        self, prompts_tokens: torch.Tensor, request_ids: List[int], sampling_params: SamplingParams
    ) -> Dict[int, dict]:
        batch_size, prompt_len = prompts_tokens.shape
        max_steps = sampling_params.num_tokens_to_generate
        host = StepHostBuffers(max_steps, batch_size)
        tokens = torch.empty((batch_size, prompt_len + max_steps), dtype=torch.int64, device=prompts_tokens.device)
        tokens[:, :prompt_len] = prompts_tokens
        stop_ids = set(sampling_params.stop_token_ids) | {self.tokenizer.eod}
        finished = [False] * batch_size
        generated: List[List[int]] = [[] for _ in range(batch_size)]

        steps = 0
        for step in range(max_steps):
            context_end = prompt_len + step
            logits = self.inference_wrapped_model.run_one_forward_step(tokens[:, :context_end])
            last_token_logits = logits[:, -1, :]
            sampled = sample_logits(last_token_logits, sampling_params)
            tokens[:, context_end] = sampled

            pairs = [(host.tokens[step], sampled)]
            if sampling_params.return_log_probs:
                log_probs = torch.log_softmax(last_token_logits.float(), dim=-1)
                pairs.append((host.log_probs[step], log_probs.gather(1, sampled.unsqueeze(1)).squeeze(1)))
            produced = torch.Event()
            produced.record(torch.accelerator.current_stream())
            done = self._transfer.launch(produced, pairs)

            done.synchronize()
            if sampling_params.streaming and self.streamer is not None:
                step_lp = host.log_probs[step].clone() if sampling_params.return_log_probs else None
                self.streamer.publish(request_ids, host.tokens[step].clone(), step_lp)
            steps = step + 1
            if collect_step_tokens(host.tokens[step], stop_ids, finished, generated):
                break

        self._transfer.synchronize()
        results = {}
        for i, rid in enumerate(request_ids):
            entry = {"generated_tokens": generated[i], "generated_text": self.tokenizer.detokenize(generated[i])}
            if sampling_params.return_log_probs:
                entry["generated_log_probs"] = host.log_probs[: len(generated[i]), i].tolist()
            results[rid] = entry
        logger.debug(f"generated {steps} steps for {batch_size} requests")
        return results
