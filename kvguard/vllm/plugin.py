"""kvguard's vLLM general plugin: vLLM runs it in every process it starts.

The `vllm.general_plugins` entry point (pyproject.toml) names `register`. vLLM calls it in
the API server, in each engine core process before the engine asks
`has_connector("SimpleCPUOffloadConnector")`, and in each worker, so the engine treats
kvguard's connector like the stock one even in a process that never imported kvguard.vllm.
It imports nothing heavy: only the engine special case, which is a no-op on releases without
`has_connector` and for configurations that do not select kvguard's connector.
"""

from __future__ import annotations


def register() -> None:
    from kvguard.vllm.engine import install_stock_name_treatment

    install_stock_name_treatment()
