"""The adapter tests proper live in inner/ and run inside per-release vLLM envs (venvs.py);
test_vllm_releases.py builds those envs and runs them. The main env has no vLLM, so pytest here
must not collect inner/."""

collect_ignore = ["inner"]
