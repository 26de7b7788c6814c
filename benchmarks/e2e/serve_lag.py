"""The lag switch of run_serve.py, as a vLLM general plugin: `vllm serve` runs the model in an
engine-core process (and, with tensor parallelism, in worker processes) that the benchmark
cannot reach; vLLM runs every `vllm.general_plugins` entry point in each of them.

run_serve.py registers `register` under that group through a small dist-info directory it puts
on PYTHONPATH. With `KVGUARD_E2E_LAG_CYCLES` above 0, every forward pass of the Llama model first
sleeps that many GPU cycles on the compute stream (`torch.cuda._sleep`), so the host runs ahead
of the GPU as under async scheduling with a slow step.
"""

from __future__ import annotations

import logging
import os
from typing import Any

LAG_ENV = "KVGUARD_E2E_LAG_CYCLES"


def register() -> None:
    cycles = int(os.environ.get(LAG_ENV, "0"))
    if cycles <= 0:
        return
    import torch
    from vllm.model_executor.models.llama import LlamaForCausalLM

    forward = LlamaForCausalLM.forward
    if getattr(forward, "kvguard_e2e_lag", None) is not None:  # plugins may load twice
        return

    def lagged_forward(model: Any, *args: Any, **kwargs: Any) -> Any:
        torch.cuda._sleep(cycles)  # type: ignore[no-untyped-call]
        return forward(model, *args, **kwargs)

    lagged_forward.kvguard_e2e_lag = cycles  # type: ignore[attr-defined]
    LlamaForCausalLM.forward = lagged_forward
    logging.getLogger("vllm.kvguard_e2e").warning(
        "kvguard e2e lag: %d GPU cycles before every forward pass (pid %d)", cycles, os.getpid()
    )
