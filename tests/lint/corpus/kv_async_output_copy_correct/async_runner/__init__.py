"""Async scheduling in the shape of vLLM v1's GPU model runner: with async scheduling on,
``execute_model`` returns at once with an ``AsyncGPUModelRunnerOutput`` that has started copying
the sampled token ids to the host on a dedicated output-copy stream; the engine core resolves it
(``get_output``) on its output thread while the next step is already being scheduled.

The output object takes the current (compute) stream before switching to the copy stream and
makes the copy stream wait on it, so the copy follows the sampler's writes.
"""
