"""End to end on a CUDA machine: vLLM 0.23.0 with the stock CPU offload connector and kvguard's.

The seed report's measurement, on a real engine: every completed store is re-read and compared
with its GPU source while the scheduler still holds the source blocks, and the greedy answers of
requests whose prefix is restored from the CPU cache are compared with those of a run without
offload.

    python3 benchmarks/e2e/run_e2e.py all --out DIR     # the whole sequence (see README.md)
    python3 benchmarks/e2e/run_e2e.py one CONFIG --model DIR --json FILE   # one engine

`all` writes a tiny random-weight Llama, then runs each configuration of `CONFIGS` as its own
process (one engine per process, a timeout each) and writes `results.json` and `runs.log`.

Workload: `sets` sets of `prompts` random prompts of `prompt_len` token ids, each set sent as one
batch (a round), then every set again with the first `prefix_len` tokens kept and the rest
replaced. Offload runs get `gpu_blocks` GPU blocks, too few to keep a set's prefix on the GPU
until its repeat, so repeats are restored from CPU memory (loads are counted). The reference
run has no connector and a large GPU cache, so its repeats hit the GPU prefix cache: both paths
compute the same tokens in the same batches.

The lag switch (`--lag-cycles`, default 20,000,000 GPU cycles, about 10 ms on an H200) puts a
`torch.cuda._sleep` on the compute stream at the start of every forward pass, so the host runs
ahead of the GPU as it does under async scheduling with a slow step. It is applied identically
to every run that names it.

Store comparison: `SimpleCPUOffloadWorker.get_finished` (which both connectors use) is wrapped.
It records each store's (GPU block, CPU block) lists when the store is launched; when the worker
reports a store complete, the GPU source rows of every KV tensor are gathered on the compute
stream (no host synchronisation: the host keeps running ahead) and the CPU rows are cloned. The
scheduler frees the source blocks only after that report, so the gathered rows are the data the
copy should have read. All pairs are compared at the end of the run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

ENGINE_ENV = {
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",  # engine core in this process: wrappers reach it
    "VLLM_USE_FLASHINFER_SAMPLER": "0",  # flashinfer is not brought
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "PYTHONUNBUFFERED": "1",
}


@dataclass(frozen=True)
class Workload:
    sets: int = 3
    prompts: int = 8
    prompt_len: int = 1500
    prefix_len: int = 1024
    max_tokens: int = 32
    vocab: int = 2048
    seed: int = 0
    gpu_blocks: int = 1280  # offload runs only; 8 prompts of 1,532 tokens take 776 blocks
    # Fresh sets after the repeats push the repeats' blocks out of the GPU cache, so that the
    # repeats asked again whole are restored from CPU memory, tails (stored last) included.
    evict_sets: int = 3

    def rounds(self) -> list[tuple[str, list[list[int]]]]:
        """(name, prompts) per round: each set once, each set again with a new tail, fresh
        sets, then the repeats again unchanged."""
        import numpy as np

        rng = np.random.default_rng(self.seed)

        def draw(n: int) -> list[int]:
            return [int(t) for t in rng.integers(3, self.vocab, n)]

        sets = [[draw(self.prompt_len) for _ in range(self.prompts)] for _ in range(self.sets)]
        first = [(f"set{i}", prompts) for i, prompts in enumerate(sets)]
        tail = self.prompt_len - self.prefix_len
        repeat = [
            (f"set{i}-repeat", [p[: self.prefix_len] + draw(tail) for p in prompts])
            for i, prompts in enumerate(sets)
        ]
        fresh = [
            (f"set{self.sets + i}", [draw(self.prompt_len) for _ in range(self.prompts)])
            for i in range(self.evict_sets)
        ]
        again = [(f"{name}-again", prompts) for name, prompts in repeat]
        return first + repeat + fresh + again


@dataclass(frozen=True)
class Config:
    connector: str | None  # None: no offload
    lag: bool
    compare: bool
    verify_fraction: float = 0.0  # kvguard's sampled verification (its connector only)


CONFIGS: dict[str, Config] = {
    "reference": Config(None, lag=True, compare=False),
    "stock": Config("SimpleCPUOffloadConnector", lag=True, compare=True),
    "kvguard": Config("KVGuardCPUOffloadConnector", lag=True, compare=True),
    # Every stored block verified: the verify thread's staging, compare and report path under
    # a real engine.
    "kvguard-verified": Config("KVGuardCPUOffloadConnector", lag=True, compare=True, verify_fraction=1.0),
    "stock-timing-1": Config("SimpleCPUOffloadConnector", lag=False, compare=False),
    "kvguard-timing-1": Config("KVGuardCPUOffloadConnector", lag=False, compare=False),
    "stock-timing-2": Config("SimpleCPUOffloadConnector", lag=False, compare=False),
    "kvguard-timing-2": Config("KVGuardCPUOffloadConnector", lag=False, compare=False),
    "stock-timing-3": Config("SimpleCPUOffloadConnector", lag=False, compare=False),
    "kvguard-timing-3": Config("KVGuardCPUOffloadConnector", lag=False, compare=False),
    "stock-nolag": Config("SimpleCPUOffloadConnector", lag=False, compare=True),
}

MODEL_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 64,
    "vocab_size": 2048,
    "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
    "tie_word_embeddings": False,
    "initializer_range": 0.02,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "torch_dtype": "bfloat16",
}


def write_tiny_llama(path: Path, seed: int = 0) -> None:
    """A random-weight Llama (config.json + model.safetensors), the same for a given seed."""
    import torch
    from safetensors.torch import save_file

    cfg = MODEL_CONFIG
    hidden, inter, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    generator = torch.Generator().manual_seed(seed)

    def normal(*shape: int) -> torch.Tensor:
        weight = torch.randn(*shape, generator=generator) * float(cfg["initializer_range"])
        return weight.to(torch.bfloat16)

    tensors = {"model.embed_tokens.weight": normal(vocab, hidden)}
    for layer in range(cfg["num_hidden_layers"]):
        prefix = f"model.layers.{layer}"
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            tensors[f"{prefix}.self_attn.{proj}.weight"] = normal(hidden, hidden)
        tensors[f"{prefix}.mlp.gate_proj.weight"] = normal(inter, hidden)
        tensors[f"{prefix}.mlp.up_proj.weight"] = normal(inter, hidden)
        tensors[f"{prefix}.mlp.down_proj.weight"] = normal(hidden, inter)
        for norm in ("input_layernorm", "post_attention_layernorm"):
            tensors[f"{prefix}.{norm}.weight"] = torch.ones(hidden, dtype=torch.bfloat16)
    tensors["model.norm.weight"] = torch.ones(hidden, dtype=torch.bfloat16)
    tensors["lm_head.weight"] = normal(vocab, hidden)
    path.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path / "model.safetensors"), metadata={"format": "pt"})
    (path / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")


# In-engine instrumentation (the engine runs in the calling process).


@dataclass
class _StoreRecord:
    event: int
    tensor: str
    gpu_blocks: list[int]
    cpu_blocks: list[int]
    gpu_rows: Any  # torch.Tensor on the GPU, gathered on the compute stream
    cpu_rows: Any  # torch.Tensor, cloned once the store was reported complete
    keep: Any  # the pinned index, alive until the gather ran


@dataclass
class StoreAudit:
    """Wraps SimpleCPUOffloadWorker.get_finished: counts copies and snapshots completed stores."""

    compare: bool
    launched: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)
    stores_launched: int = 0
    stores_completed: int = 0
    stores_unmatched: int = 0
    blocks_compared: int = 0
    load_events: int = 0
    blocks_loaded: int = 0
    records: list[_StoreRecord] = field(default_factory=list)

    def install(self) -> None:
        from vllm.v1.simple_kv_offload.worker import SimpleCPUOffloadWorker

        stock = SimpleCPUOffloadWorker.get_finished
        audit = self

        # wraps(): kvguard reads the stock method's source (through __wrapped__) to find
        # where copies are launched.
        @functools.wraps(stock)
        def get_finished(worker: Any, finished_req_ids: set[str]) -> Any:
            meta = worker._connector_metadata
            if meta is not None:
                if meta.store_gpu_blocks:
                    audit.stores_launched += 1
                    audit.launched[meta.store_event] = (
                        list(meta.store_gpu_blocks),
                        list(meta.store_cpu_blocks),
                    )
                if meta.load_cpu_blocks:
                    audit.load_events += 1
                    audit.blocks_loaded += len(meta.load_cpu_blocks)
            before = set(worker._completed_store_events)
            result = stock(worker, finished_req_ids)
            for event in sorted(set(worker._completed_store_events) - before):
                audit._completed(worker, event)
            return result

        SimpleCPUOffloadWorker.get_finished = get_finished

    def _completed(self, worker: Any, event: int) -> None:
        import torch

        self.stores_completed += 1
        launched = self.launched.pop(event, None)
        if launched is None:  # reported complete but never seen launched: counted, not compared
            self.stores_unmatched += 1
            return
        gpu_blocks, cpu_blocks = launched
        if not self.compare:
            return
        self.blocks_compared += len(gpu_blocks)
        src = torch.tensor(gpu_blocks, dtype=torch.int64).pin_memory()
        src_gpu = src.to(worker.device, non_blocking=True)
        dst = torch.tensor(cpu_blocks, dtype=torch.int64)
        for name, gpu in worker.gpu_kv_caches.items():
            self.records.append(
                _StoreRecord(
                    event,
                    name,
                    gpu_blocks,
                    cpu_blocks,
                    gpu_rows=gpu.index_select(0, src_gpu),
                    cpu_rows=worker.cpu_kv_caches[name].index_select(0, dst),
                    keep=src,
                )
            )

    def summary(self) -> dict[str, Any]:
        import torch

        torch.cuda.synchronize()
        pairs = differing = bytes_differing = 0
        blocks_differing: set[tuple[int, int]] = set()
        poisoned_cpu: set[int] = set()
        events: set[int] = set()
        examples: list[str] = []
        for rec in self.records:
            events.add(rec.event)
            per_row = (rec.gpu_rows.cpu() != rec.cpu_rows).sum(dim=1).tolist()
            pairs += len(per_row)
            for gpu_block, cpu_block, count in zip(rec.gpu_blocks, rec.cpu_blocks, per_row, strict=True):
                if not count:
                    continue
                differing += 1
                bytes_differing += count
                blocks_differing.add((rec.event, gpu_block))
                poisoned_cpu.add(cpu_block)
                if len(examples) < 12:
                    examples.append(
                        f"event={rec.event} {rec.tensor} gpu_block={gpu_block} "
                        f"cpu_block={cpu_block}: {count} of {rec.gpu_rows.shape[1]} bytes differ"
                    )
        return {
            "stores_launched": self.stores_launched,
            "stores_completed": self.stores_completed,
            "stores_unmatched": self.stores_unmatched,
            "stores_compared": len(events),
            "stores_differing": len({event for event, _ in blocks_differing}),
            "blocks_compared": self.blocks_compared,
            "pairs_compared": pairs,
            "pairs_differing": differing,
            "blocks_differing": len(blocks_differing),
            "cpu_blocks_poisoned": len(poisoned_cpu),
            "bytes_differing": bytes_differing,
            "examples": examples,
            "load_events": self.load_events,
            "blocks_loaded": self.blocks_loaded,
        }


class Lag:
    """Sleeps `cycles` GPU cycles on the compute stream at the start of every forward pass."""

    def __init__(self, cycles: int) -> None:
        import torch
        from vllm.model_executor.models.llama import LlamaForCausalLM

        self.forwards = 0
        forward = LlamaForCausalLM.forward

        def lagged_forward(model: Any, *args: Any, **kwargs: Any) -> Any:
            self.forwards += 1
            torch.cuda._sleep(cycles)  # type: ignore[no-untyped-call]
            return forward(model, *args, **kwargs)

        LlamaForCausalLM.forward = lagged_forward


class StepClock:
    """Times between successive model outputs the scheduler takes in (steps with tokens)."""

    def __init__(self, scheduler: Any) -> None:
        self.intervals_ms: list[float] = []
        self._last: float | None = None
        update: Callable[..., Any] = scheduler.update_from_output

        def timed_update(scheduler_output: Any, model_output: Any) -> Any:
            now = time.perf_counter()
            if scheduler_output.total_num_scheduled_tokens > 0:
                if self._last is not None:
                    self.intervals_ms.append((now - self._last) * 1e3)
                self._last = now
            return update(scheduler_output, model_output)

        scheduler.update_from_output = timed_update

    def new_round(self) -> None:
        self._last = None


def run_one(name: str, model: Path, workload: Workload, lag_cycles: int) -> dict[str, Any]:
    """One engine, the whole workload; returns what it measured."""
    os.environ.update(ENGINE_ENV)
    import torch
    import vllm
    from vllm import LLM, SamplingParams
    from vllm.config import KVTransferConfig
    from vllm.inputs import TokensPrompt

    config = CONFIGS[name]
    audit = StoreAudit(compare=config.compare)
    audit.install()
    lag = Lag(lag_cycles) if config.lag else None
    kwargs: dict[str, Any] = {}
    if config.connector is not None:
        extra: dict[str, Any] = {"cpu_bytes_to_use": 1 << 30}
        module: dict[str, str] = {}
        if config.connector == "KVGuardCPUOffloadConnector":
            extra["kvguard"] = {"policy": "refuse", "verify_fraction": config.verify_fraction}
            module = {"kv_connector_module_path": "kvguard.vllm"}
        kwargs["kv_transfer_config"] = KVTransferConfig(
            kv_connector=config.connector,
            kv_role="kv_both",
            kv_connector_extra_config=extra,
            **module,
        )
        kwargs["num_gpu_blocks_override"] = workload.gpu_blocks
    started = time.perf_counter()
    llm = LLM(
        model=str(model),
        skip_tokenizer_init=True,
        enforce_eager=True,
        enable_prefix_caching=True,
        async_scheduling=True,
        gpu_memory_utilization=0.2,
        max_model_len=4096,
        dtype="bfloat16",
        seed=0,
        **kwargs,
    )
    engine_start_s = time.perf_counter() - started
    core = llm.llm_engine.engine_core.engine_core
    clock = StepClock(core.scheduler)
    params = SamplingParams(
        temperature=0.0, max_tokens=workload.max_tokens, ignore_eos=True, detokenize=False
    )

    rounds = []
    for round_name, prompts in workload.rounds():
        clock.new_round()
        began = time.perf_counter()
        outputs = llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, use_tqdm=False)
        rounds.append(
            {
                "name": round_name,
                "wall_s": time.perf_counter() - began,
                "answers": [list(o.outputs[0].token_ids) for o in outputs],
                "cached_tokens": [o.num_cached_tokens for o in outputs],
            }
        )
    # One short request more, so that stores still in flight are reported and compared.
    clock.new_round()
    llm.generate(
        [TokensPrompt(prompt_token_ids=list(range(3, 67)))],
        SamplingParams(temperature=0.0, max_tokens=8, ignore_eos=True, detokenize=False),
        use_tqdm=False,
    )

    result: dict[str, Any] = {
        "config": asdict(config),
        "lag_cycles": lag_cycles if lag else 0,
        "lagged_forwards": lag.forwards if lag else 0,
        "engine_start_s": engine_start_s,
        "rounds": rounds,
        "step_ms": clock.intervals_ms,
        "store_audit": audit.summary(),
        "model_runner": model_runner_module(core),
        "versions": {
            "vllm": vllm.__version__,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
        },
        "gpu": torch.cuda.get_device_name(),
    }
    if config.connector is not None:
        from vllm.distributed.kv_transfer import get_kv_transfer_group

        try:
            connector = get_kv_transfer_group()
        except AssertionError as error:  # the worker-side connector is not registered now
            result["connector_class"] = f"unknown ({error})"
        else:
            result["connector_class"] = type(connector).__name__
            backend = getattr(connector, "kvguard_backend", None)
            if backend is not None:
                result["kvguard_counters"] = backend.counters
    return result


def model_runner_module(core: Any) -> str:
    """Which model runner the engine picked (0.23 has two), or why it could not be told."""
    try:
        return str(type(core.model_executor.driver_worker.worker.model_runner).__module__)
    except AttributeError as error:
        return f"unknown ({error})"


# The sequence of runs.


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def answers_match(reference: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """Requests whose greedy token ids equal the reference's, for repeats and for all rounds."""
    restored = equal_restored = total = equal = 0
    for ref_round, run_round in zip(reference["rounds"], run["rounds"], strict=True):
        for ref_answer, answer in zip(ref_round["answers"], run_round["answers"], strict=True):
            total += 1
            equal += ref_answer == answer
            if ref_round["name"].endswith(("-repeat", "-again")):
                restored += 1
                equal_restored += ref_answer == answer
    return {
        "restored_requests": restored,
        "restored_equal": equal_restored,
        "requests": total,
        "equal": equal,
    }


def summarise(name: str, run: dict[str, Any], reference: dict[str, Any] | None) -> dict[str, Any]:
    audit = run["store_audit"]
    steps = run["step_ms"]
    row: dict[str, Any] = {
        "run": name,
        "connector": run["config"]["connector"] or "none",
        "lag": bool(run["config"]["lag"]),
        "stores_compared": audit["stores_compared"] if run["config"]["compare"] else None,
        "pairs_compared": audit["pairs_compared"] if run["config"]["compare"] else None,
        "pairs_differing": audit["pairs_differing"] if run["config"]["compare"] else None,
        "stores_differing": audit["stores_differing"] if run["config"]["compare"] else None,
        "cpu_blocks_poisoned": audit["cpu_blocks_poisoned"] if run["config"]["compare"] else None,
        "blocks_loaded": audit["blocks_loaded"],
        "steps": len(steps),
        "step_ms_median": statistics.median(steps) if steps else None,
        "step_ms_p90": percentile(steps, 0.9) if steps else None,
        "workload_wall_s": sum(r["wall_s"] for r in run["rounds"]),
    }
    if reference is not None:
        row |= answers_match(reference, run)
    if "kvguard_counters" in run:
        counters = run["kvguard_counters"]
        row["guard_checked"] = counters.get("stores_checked", 0) + counters.get("loads_checked", 0)
        row["guard_violations"] = sum(v for k, v in counters.items() if k.startswith("violations"))
        row["guard_refused"] = counters.get("refused", 0)
        row["verified_blocks"] = counters.get("verified", 0)
        row["verify_mismatches"] = counters.get("mismatches", 0)
    return row


def device_facts() -> dict[str, str]:
    facts = {"python": platform.python_version(), "host": platform.node()}
    try:
        facts["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        facts["nvidia_smi"] = repr(error)
    return facts


def run_all(args: argparse.Namespace) -> None:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kvguard-e2e-"))
    model = work / "tiny-llama"
    write_tiny_llama(model, seed=args.model_seed)
    log_path = out / "runs.log"
    began = time.monotonic()
    runs: dict[str, Any] = {}
    if args.reference_from is not None:  # an earlier call's reference run, same workload and model
        earlier = json.loads(args.reference_from.read_text())
        runs["reference"] = earlier["runs"]["reference"] | {"from": str(args.reference_from)}
    failures: dict[str, str] = {}
    for name in args.runs:
        remaining = args.deadline_s - (time.monotonic() - began)
        if remaining < args.min_run_s:
            failures[name] = f"not started: {remaining:.0f} s left of the deadline"
            continue
        json_path = work / f"{name}.json"
        command = [
            sys.executable,
            __file__,
            "one",
            name,
            "--lag-cycles",
            str(args.lag_cycles),
            "--model",
            str(model),
            "--json",
            str(json_path),
        ]
        with log_path.open("a") as log:
            log.write(f"\n===== {name}: {' '.join(command)}\n")
            log.flush()
            run_began = time.monotonic()
            try:
                code = subprocess.run(
                    command,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=os.environ | ENGINE_ENV,
                    timeout=min(args.run_timeout_s, remaining),
                ).returncode
            except subprocess.TimeoutExpired:
                code = -1
            seconds = time.monotonic() - run_began
        if code == 0 and json_path.exists():
            runs[name] = json.loads(json_path.read_text())
            runs[name]["process_s"] = seconds
        else:
            failures[name] = f"exit {code} after {seconds:.0f} s (see runs.log)"
        print(f"{name}: {'ok' if name in runs else failures[name]} ({seconds:.0f} s)", flush=True)
        if len(runs) == (args.reference_from is not None):  # the first engine did not come up
            break

    log_text = log_path.read_text()
    for name, run in runs.items():
        if run.get("from") is not None:
            continue
        section = log_text.split(f"===== {name}:", 1)[1].split("\n===== ", 1)[0]
        backend = re.search(r"Using (\w+) (?:attention )?backend", section)
        run["attention_backend"] = backend.group(1) if backend else None
    reference = runs.get("reference")
    table = [summarise(name, run, reference) for name, run in runs.items()]
    results = {
        "workload": asdict(args.workload),
        "lag_cycles": args.lag_cycles,
        "model": MODEL_CONFIG,
        "device": device_facts(),
        "kvguard_commit": os.environ.get("KVGUARD_COMMIT", "unknown"),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "summary": table,
        "failures": failures,
        "runs": runs,
    }
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print_table(table)
    for name, why in failures.items():
        print(f"FAILED {name}: {why}")


def print_table(table: list[dict[str, Any]]) -> None:
    columns = [
        "run",
        "lag",
        "stores_compared",
        "stores_differing",
        "pairs_compared",
        "pairs_differing",
        "cpu_blocks_poisoned",
        "blocks_loaded",
        "restored_equal",
        "restored_requests",
        "equal",
        "requests",
        "guard_checked",
        "guard_violations",
        "guard_refused",
        "verified_blocks",
        "verify_mismatches",
        "steps",
        "step_ms_median",
        "step_ms_p90",
    ]
    print(" | ".join(columns))
    for row in table:
        cells = []
        for column in columns:
            value = row.get(column)
            cells.append(f"{value:.2f}" if isinstance(value, float) else str(value))
        print(" | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--lag-cycles",
        type=int,
        default=20_000_000,
        help="torch.cuda._sleep cycles at the start of each lagged forward pass",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    every = sub.add_parser(
        "all", parents=[common], help="write the model, run every configuration, summarise"
    )
    every.add_argument("--out", type=Path, required=True)
    every.add_argument("--runs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    every.add_argument(
        "--reference-from", type=Path, help="take the reference run from an earlier results.json"
    )
    every.add_argument("--model-seed", type=int, default=0)
    every.add_argument("--deadline-s", type=float, default=480.0)
    every.add_argument("--min-run-s", type=float, default=45.0)
    every.add_argument("--run-timeout-s", type=float, default=180.0)
    one = sub.add_parser("one", parents=[common], help="one engine, one configuration")
    one.add_argument("name", choices=list(CONFIGS))
    one.add_argument("--model", type=Path, required=True)
    one.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    args.workload = Workload()
    if args.command == "all":
        run_all(args)
    else:
        result = run_one(args.name, args.model, args.workload, args.lag_cycles)
        args.json.write_text(json.dumps(result) + "\n")
        sys.stdout.flush()
        os._exit(0)  # the in-process engine's threads need not be wound down


if __name__ == "__main__":
    main()
