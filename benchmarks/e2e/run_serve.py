"""End to end as operators run it: `vllm serve`, its OpenAI HTTP API and /metrics.

    python3 benchmarks/e2e/run_serve.py --out DIR [--lag-cycles N] [--tensor-parallel-size N]

Writes the tiny random-weight Llama of run_e2e.py with a word-level tokenizer of its own, then
starts `vllm serve` (vLLM's console entry point, `vllm.entrypoints.cli.main`, default
multiprocess engine) three times in sequence, each in its own process group:

- `reference`: no offload, a large GPU cache: repeats hit the GPU prefix cache;
- `stock`: vLLM's SimpleCPUOffloadConnector, 1,280 GPU blocks, 1 GiB of CPU memory;
- `kvguard`: KVGuardCPUOffloadConnector from `kv_connector_module_path=kvguard.vllm`, the same.

All three under the same GPU lag (serve_lag.py, a vLLM general plugin, so it reaches the engine
process). Each server gets run_e2e.py's workload over HTTP, one `/v1/completions` request at a
time (token-id prompts, greedy, 32 tokens, `ignore_eos`, `return_token_ids`), so that every step
holds the same requests in every server and answers can be compared token for token. /metrics is
scraped once the server is up, before any request, and again after the workload.

Writes into DIR: `results.json` (answers per request, the scraped kvguard series and vLLM's
prefix-cache counters, the commands as run), `serve-NAME.log` (each server's output) and
`metrics-kvguard-first.txt` / `metrics-kvguard-last.txt` (the kvguard server's whole /metrics at
the two scrapes); prints the table last.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from run_e2e import MODEL_CONFIG, Workload, answers_match, device_facts, write_tiny_llama
from serve_lag import LAG_ENV

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SERVED_NAME = "tiny"

SERVER_ENV = {
    "VLLM_USE_FLASHINFER_SAMPLER": "0",  # flashinfer is not brought
    "VLLM_NO_USAGE_STATS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "PYTHONUNBUFFERED": "1",
}
# The counters read off /metrics besides kvguard's: tokens served from the GPU prefix cache and
# from the connector (restored from CPU memory).
VLLM_COUNTERS = (
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total",
    "vllm:external_prefix_cache_queries_total",
    "vllm:external_prefix_cache_hits_total",
)


@dataclass(frozen=True)
class Server:
    name: str
    connector: str | None  # None: no offload


SERVERS = (
    Server("reference", None),
    Server("stock", "SimpleCPUOffloadConnector"),
    Server("kvguard", "KVGuardCPUOffloadConnector"),
)


def write_tokenizer(path: Path) -> None:
    """A word-level tokenizer over the model's vocabulary: id i is the word `t<i>`."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = {"<unk>": 0, "<s>": MODEL_CONFIG["bos_token_id"], "</s>": MODEL_CONFIG["eos_token_id"]}
    vocab = {**specials, **{f"t{i}": i for i in range(len(specials), MODEL_CONFIG["vocab_size"])}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    ).save_pretrained(str(path))


def write_lag_plugin(path: Path) -> None:
    """A dist-info that registers serve_lag.register as a vLLM general plugin (on PYTHONPATH)."""
    info = path / "kvguard_e2e_lag-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kvguard-e2e-lag\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[vllm.general_plugins]\nkvguard_e2e_lag = serve_lag:register\n")


def serve_command(server: Server, model: Path, port: int, workload: Workload, tp: int) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "vllm.entrypoints.cli.main",  # what the `vllm` console script runs
        "serve",
        str(model),
        "--served-model-name",
        SERVED_NAME,
        "--port",
        str(port),
        "--enforce-eager",
        "--enable-prefix-caching",
        "--async-scheduling",
        "--gpu-memory-utilization",
        "0.2",
        "--max-model-len",
        "4096",
        "--dtype",
        "bfloat16",
        "--seed",
        "0",
        "--enable-prompt-tokens-details",
        "--tensor-parallel-size",
        str(tp),
    ]
    if server.connector is not None:
        extra: dict[str, Any] = {"cpu_bytes_to_use": 1 << 30}
        config: dict[str, Any] = {"kv_connector": server.connector, "kv_role": "kv_both"}
        if server.connector == "KVGuardCPUOffloadConnector":
            config["kv_connector_module_path"] = "kvguard.vllm"
            extra["kvguard"] = {"policy": "refuse", "verify_fraction": 0.0}
        config["kv_connector_extra_config"] = extra
        command += [
            "--num-gpu-blocks-override",
            str(workload.gpu_blocks),
            "--kv-transfer-config",
            json.dumps(config),
        ]
    return command


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def http(url: str, body: dict[str, Any] | None = None, timeout: float = 120) -> bytes:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return bytes(response.read())


def completion(prompt: list[int], max_tokens: int) -> dict[str, Any]:
    """A greedy completion of token ids that always runs to max_tokens and returns its ids."""
    return {
        "model": SERVED_NAME,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "ignore_eos": True,
        "return_token_ids": True,
    }


def wait_until_up(base: str, process: subprocess.Popen[bytes], timeout_s: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before it was up")
        try:
            http(f"{base}/health", timeout=5)
            return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            time.sleep(1)
    raise RuntimeError(f"the server was not up after {timeout_s:.0f} s")


def scrape(base: str) -> tuple[str, dict[str, float]]:
    """/metrics as served, and kvguard's series and VLLM_COUNTERS as `name{labels}` -> value."""
    from prometheus_client.parser import text_string_to_metric_families

    text = http(f"{base}/metrics").decode()
    series = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("vllm:kvguard_") and sample.name.endswith("_total"):
                labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()) if k != "model_name")
                series[f"{sample.name}{{{labels}}}"] = sample.value
            elif sample.name in VLLM_COUNTERS:
                series[sample.name] = sample.value
    return text, series


def stop(process: subprocess.Popen[bytes]) -> int:
    """SIGINT to the server's process group (as Ctrl-C), then SIGKILL if it lingers."""
    for sig, wait_s in ((signal.SIGINT, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            return process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
    return process.wait()


def run_server(
    server: Server, args: argparse.Namespace, model: Path, plugins: Path, workload: Workload
) -> dict[str, Any]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = serve_command(server, model, port, workload, args.tensor_parallel_size)
    pythonpath = [str(plugins), str(HERE), os.environ.get("PYTHONPATH", ""), str(REPO)]
    env = {
        **os.environ,
        **SERVER_ENV,
        LAG_ENV: str(args.lag_cycles),
        "PYTHONPATH": os.pathsep.join(p for p in pythonpath if p),
    }
    result: dict[str, Any] = {"command": command, "lag_cycles": args.lag_cycles}
    log_path = args.out / f"serve-{server.name}.log"
    with log_path.open("wb") as log:
        # `python -m` puts its working directory first on sys.path: start in the scratch folder,
        # so that the kvguard imported is the one on PYTHONPATH, not a checkout in the caller's.
        process = subprocess.Popen(
            command,
            env=env,
            cwd=model.parent,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            result["startup_s"] = wait_until_up(base, process, args.startup_timeout)
            first_text, result["metrics_first"] = scrape(base)
            rounds = []
            began = time.monotonic()
            for round_name, prompts in workload.rounds():
                answers, cached = [], []
                for prompt in prompts:
                    reply = json.loads(
                        http(f"{base}/v1/completions", completion(prompt, workload.max_tokens))
                    )
                    answers.append(reply["choices"][0]["token_ids"])
                    details = reply["usage"].get("prompt_tokens_details") or {}
                    cached.append(details.get("cached_tokens"))
                rounds.append({"name": round_name, "answers": answers, "cached_tokens": cached})
            result["workload_s"] = time.monotonic() - began
            result["rounds"] = rounds
            # One short request more: workers report counter changes with the steps after them.
            http(f"{base}/v1/completions", completion(list(range(3, 67)), 8))
            time.sleep(2)  # the frontend records the stats the engine sends with each step
            last_text, result["metrics_last"] = scrape(base)
            if server.connector == "KVGuardCPUOffloadConnector":
                (args.out / "metrics-kvguard-first.txt").write_text(first_text)
                (args.out / "metrics-kvguard-last.txt").write_text(last_text)
        except Exception as error:  # recorded; the next server still runs
            result["error"] = f"{type(error).__name__}: {error}"
        finally:
            result["exit_status"] = stop(process)
    log_text = log_path.read_text(errors="replace")
    result["kvguard_active_lines"] = [line for line in log_text.splitlines() if "kvguard active" in line]
    result["lag_lines"] = [line for line in log_text.splitlines() if "kvguard e2e lag" in line]
    return result


def summarise(name: str, run: dict[str, Any], reference: dict[str, Any] | None) -> dict[str, Any]:
    row: dict[str, Any] = {"server": name, "error": run.get("error")}
    if "rounds" not in run:
        return row
    last, first = run["metrics_last"], run["metrics_first"]
    row["startup_s"] = round(run["startup_s"], 1)
    row["workload_s"] = round(run["workload_s"], 1)
    row["external_hit_tokens"] = last.get("vllm:external_prefix_cache_hits_total")
    row["gpu_prefix_hit_tokens"] = last.get("vllm:prefix_cache_hits_total")
    if reference is not None and "rounds" in reference:
        row |= answers_match(reference, run)
    ours = {key: value for key, value in last.items() if key.startswith("vllm:kvguard_")}
    if ours:
        row["kvguard_series_first_scrape"] = sum(key.startswith("vllm:kvguard_") for key in first)
        row["kvguard_series_at_zero_first"] = all(
            value == 0 for key, value in first.items() if key.startswith("vllm:kvguard_")
        )

        def total(prefix: str) -> float | None:
            """The sum over the series whose name and labels start so; None if there is none."""
            values = [value for key, value in ours.items() if key.startswith(prefix)]
            return sum(values) if values else None

        row["checked_stores"] = total("vllm:kvguard_copies_checked_total{direction=store")
        row["checked_loads"] = total("vllm:kvguard_copies_checked_total{direction=load")
        row["violations"] = total("vllm:kvguard_violations_total")
        row["refused"] = total("vllm:kvguard_refused_copies_total")
        row["verified"] = total("vllm:kvguard_verified_blocks_total")
        row["mismatches"] = total("vllm:kvguard_verify_mismatches_total")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--lag-cycles",
        type=int,
        default=20_000_000,
        help="torch.cuda._sleep cycles before every forward pass, in every server (0: none)",
    )
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--servers", nargs="+", default=[s.name for s in SERVERS])
    parser.add_argument("--startup-timeout", type=float, default=240)
    parser.add_argument("--no-server-after", type=float, default=450, help="seconds into the run")
    args = parser.parse_args()

    began = time.monotonic()
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kvguard-serve-"))
    model, plugins = work / "tiny-llama", work / "plugins"
    write_tiny_llama(model)
    write_tokenizer(model)
    write_lag_plugin(plugins)
    workload = Workload()

    runs: dict[str, dict[str, Any]] = {}
    for server in SERVERS:
        if server.name not in args.servers:
            continue
        if time.monotonic() - began > args.no_server_after:
            runs[server.name] = {"error": "not started: out of time"}
            continue
        print(f"--- {server.name} ({time.monotonic() - began:.0f} s into the run)", flush=True)
        runs[server.name] = run_server(server, args, model, plugins, workload)
        if "error" in runs[server.name]:
            print(f"{server.name}: {runs[server.name]['error']}", flush=True)

    reference = runs.get("reference")
    table = [summarise(name, run, reference if name != "reference" else None) for name, run in runs.items()]
    results = {
        "device": device_facts(),
        "kvguard_commit": os.environ.get("KVGUARD_COMMIT", "working tree"),
        "workload": asdict(workload),
        "lag_cycles": args.lag_cycles,
        "tensor_parallel_size": args.tensor_parallel_size,
        "table": table,
        "runs": runs,
        "run_s": time.monotonic() - began,
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    for row in table:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
