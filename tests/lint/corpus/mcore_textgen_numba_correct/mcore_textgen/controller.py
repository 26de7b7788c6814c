# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import queue
import threading
from typing import Callable, Dict, List, Optional

import numpy as np
import torch
from numba import cuda

from .config import InferenceConfig, SamplingParams
from .host_io import PinnedStepOutputs
from .sampling import sample_greedy, token_log_probs
from .streams import current_compute_stream, make_copy_stream

logger = logging.getLogger(__name__)


class TextGenerationController:
    """Static-batch generation loop; sampling and host transfer are done with numba."""

    def __init__(self, inference_wrapped_model, tokenizer, config: InferenceConfig):
        self.inference_wrapped_model = inference_wrapped_model
        self.tokenizer = tokenizer
        self.config = config
        self.copy_stream = make_copy_stream()
        self._d_tokens = cuda.device_array(config.max_batch_size, dtype=np.int64)
        self._d_log_probs = cuda.device_array(config.max_batch_size, dtype=np.float32)
        self._stream_queue: "queue.Queue" = queue.Queue()

    def _streaming_worker(self, outputs: PinnedStepOutputs, callback: Callable[[int, List[int]], None]) -> None:
        while True:
            item = self._stream_queue.get()
            if item is None:
                return
            step, done = item
            done.synchronize()
            callback(step, outputs.tokens[step].tolist())

    def generate_all_output_tokens_static_batch(
        self,
        prompts_tokens: torch.Tensor,
        sampling_params: SamplingParams,
        streaming_callback: Optional[Callable[[int, List[int]], None]] = None,
    ) -> Dict[str, np.ndarray]:
        batch_size = prompts_tokens.shape[0]
        max_steps = sampling_params.num_tokens_to_generate
        threads = self.config.sampling_threads_per_block
        outputs = PinnedStepOutputs(max_steps, batch_size, self.copy_stream)
        d_tokens = self._d_tokens[:batch_size]
        d_log_probs = self._d_log_probs[:batch_size]

        worker = None
        if streaming_callback is not None:
            worker = threading.Thread(target=self._streaming_worker, args=(outputs, streaming_callback), daemon=True)
            worker.start()

        tokens = prompts_tokens
        generated = 0
        for step in range(max_steps):
            logits = self.inference_wrapped_model.run_one_forward_step(tokens)
            last = logits[:, -1, :].float().contiguous()
            compute = current_compute_stream()
            d_logits = cuda.as_cuda_array(last, sync=False)
            if step > 0:
                outputs.copied[step - 1].wait(stream=compute)
            sample_greedy(d_logits, d_tokens, compute, threads)

            if sampling_params.return_log_probs:
                token_log_probs(d_logits, d_tokens, d_log_probs, compute, threads)
                outputs.order_after(compute)
                outputs.copy_log_probs(step, d_log_probs)

            outputs.order_after(compute)
            done = outputs.copy_tokens(step, d_tokens)
            if worker is not None:
                self._stream_queue.put((step, done))

            new_tokens = torch.as_tensor(d_tokens, device=prompts_tokens.device).unsqueeze(1)
            tokens = torch.cat([tokens, new_tokens], dim=1)
            generated = step + 1
            done.synchronize()
            if (outputs.tokens[step] == sampling_params.termination_id).all():
                break

        if worker is not None:
            self._stream_queue.put(None)
            worker.join()
        self.copy_stream.synchronize()
        result = {"tokens": outputs.tokens[:generated].T.copy()}
        if sampling_params.return_log_probs:
            result["log_probs"] = outputs.log_probs[:generated].T.copy()
        logger.debug("generated %d tokens for %d prompts", generated, batch_size)
        return result
