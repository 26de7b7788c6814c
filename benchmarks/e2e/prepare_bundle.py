"""Prepare the files a CUDA machine without registry access needs to run vLLM 0.23.0.

Target: Python 3.12, x86-64, torch 2.11.0+cu130, transformers, triton and cuda-bindings already
installed (the lent H200's image). What it lacks is brought as one tree, `site/`, meant for
`PYTHONPATH`:

- vLLM 0.23.0 from its abi3 wheel, trimmed to what a small dense bf16 model needs: the
  flash-attention fa2 library, the MoE kernels, FlashMLA, the Rust frontend and DeepGEMM's
  builds for other Pythons and its JIT headers are left out. `vllm_flash_attn/_vllm_fa3_C`
  stays: the Llama module imports flash-attention helpers at import time.
- the Python 3.12 wheels of vLLM's dependencies that the image lacks, at the versions vLLM
  0.23.0 resolved to (`DEPENDENCIES`), unpacked with `pip install --no-deps --target`, less
  the data files nothing loads at run time (`DEPENDENCY_TRIM`).

The tree is packed as one xz-compressed tar and split into pieces of at most `--piece-bytes`
(the device tool carries at most 64 MiB per call, the working tree included), written to
`.bundle/piece-NN` with `.bundle/MANIFEST.json` (sizes and SHA-256 of each piece and of the
whole). The tiny model is not part of it: run_e2e.py writes it on the device from a seed.

    python3 benchmarks/e2e/prepare_bundle.py [--vllm-wheel PATH]
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VLLM_VERSION = "0.23.0"
PYTHON_VERSION = "3.12"
PLATFORMS = (
    "manylinux_2_39_x86_64",
    "manylinux_2_35_x86_64",
    "manylinux_2_34_x86_64",
    "manylinux_2_31_x86_64",
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_5_x86_64",
    "manylinux1_x86_64",
)

# What vLLM 0.23.0 imports that the device image lacks, pinned to the versions pip resolved
# for vLLM 0.23.0 (the CPU test environment under ~/.cache/kvguard-tests/vllm-0.23.0). `vllm
# serve` adds model-hosting-container-standards (the API server's SageMaker and LoRA routers
# import it) and what it requires, jmespath and supervisor: importing
# vllm.entrypoints.openai.api_server and building its app in that environment imports nothing
# else the image lacks (opentelemetry is optional: tracing only).
DEPENDENCIES = (
    "annotated-types==0.8.0",
    "apache-tvm-ffi==0.1.9",
    "astor==0.8.1",
    "blake3==1.0.11",
    "cachetools==8.0.2",
    "cbor2==6.3.0",
    "cffi==2.1.1",
    "compressed-tensors==0.17.0",
    "depyf==0.20.0",
    "dill==0.4.1",
    "diskcache==5.6.3",
    "distro==1.9.0",
    "dnspython==2.9.2",
    "email-validator==2.4.0",
    "fastapi==0.136.3",
    "gguf==0.19.0",
    "h11==0.16.0",
    "httpcore2==2.16.2",
    "httpx2==2.16.2",
    "ijson==3.6.0",
    "interegular==0.3.3",
    "jiter==0.19.0",
    "jmespath==1.1.0",
    "jsonschema==4.26.0",
    "jsonschema-specifications==2025.9.1",
    "lark==1.2.2",
    "llguidance==1.7.6",
    "lm-format-enforcer==0.11.3",
    "loguru==0.7.3",
    "mistral_common==1.13.1",
    "model-hosting-container-standards==0.1.16",
    "msgspec==0.23.0",
    "openai==3.57.0",
    "openai-harmony==0.0.8",
    "outlines_core==0.2.14",
    "partial-json-parser==0.2.1.1.post7",
    "prometheus-fastapi-instrumentator==8.1.0",
    "pybase64==1.5.1",
    "pycountry==26.2.16",
    "pycparser==3.12",
    "pydantic==2.14.4",
    "pydantic-extra-types==2.11.1",
    "pydantic_core==2.50.5",
    "python-json-logger==4.2.0",
    "python-multipart==0.0.34",
    "pyzmq==27.3.0",
    "referencing==0.37.0",
    "rpds-py==2026.9.1",
    "setproctitle==1.3.8",
    "sniffio==1.3.1",
    "starlette==1.10.0",
    "supervisor==4.3.0",
    "truststore==0.10.5",
    "typing-inspection==0.4.5",
    "uvicorn==0.54.0",
    "watchfiles==1.3.0",
    "xgrammar==0.2.5.post1",
)

# Paths inside the vLLM wheel left out (fnmatch patterns).
VLLM_TRIM = (
    "vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so",
    "vllm/_moe_C.abi3.so",
    "vllm/_flashmla_C.abi3.so",
    "vllm/_flashmla_extension_C.abi3.so",
    "vllm/vllm-rs",
    "vllm/third_party/deep_gemm/_C.cpython-310-*.so",
    "vllm/third_party/deep_gemm/_C.cpython-311-*.so",
    "vllm/third_party/deep_gemm/_C.cpython-313-*.so",
    "vllm/third_party/deep_gemm/_C.cpython-314-*.so",
    "vllm/third_party/deep_gemm/include/*",
)

# Files of the dependencies that nothing loads at run time: xgrammar's static library (for C++
# builds against it), Mistral's bundled tokenizer data, pycountry's translations.
DEPENDENCY_TRIM = (
    "xgrammar/lib/libxgrammar.a",
    "mistral_common/data/tekken_*.json",
    "pycountry/locales",
)


def pip_download(requirements: list[str], dest: Path) -> None:
    platform_args = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            PYTHON_VERSION,
            "--implementation",
            "cp",
            *platform_args,
            "-d",
            str(dest),
            *requirements,
        ],
        check=True,
    )


def install_dependencies(wheels: list[Path], site: Path) -> None:
    platform_args = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            "--no-compile",
            "--only-binary=:all:",
            "--python-version",
            PYTHON_VERSION,
            "--implementation",
            "cp",
            *platform_args,
            "--target",
            str(site),
            *map(str, wheels),
        ],
        check=True,
    )
    shutil.rmtree(site / "bin", ignore_errors=True)  # console scripts: not used
    for pattern in DEPENDENCY_TRIM:
        for path in site.glob(pattern):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def unpack_trimmed_vllm(wheel: Path, site: Path) -> list[str]:
    """Unpack the vLLM wheel into `site` without the `VLLM_TRIM` paths; returns those left out."""
    left_out = []
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            if any(fnmatch.fnmatch(info.filename, pattern) for pattern in VLLM_TRIM):
                left_out.append(info.filename)
                continue
            archive.extract(info, site)
    return left_out


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pack(site: Path, out: Path, piece_bytes: int) -> dict[str, object]:
    archive = out / "work" / "site.tar.xz"
    subprocess.run(f"tar -C {site.parent} -cf - {site.name} | xz -9e -T0 > {archive}", shell=True, check=True)
    for old in out.glob("piece-*"):
        old.unlink()
    pieces: list[dict[str, object]] = []
    with archive.open("rb") as whole:
        while chunk := whole.read(piece_bytes):
            piece = out / f"piece-{len(pieces) + 1:02d}"
            piece.write_bytes(chunk)
            pieces.append({"name": piece.name, "bytes": len(chunk), "sha256": sha256(piece)})
    return {
        "archive_bytes": archive.stat().st_size,
        "archive_sha256": sha256(archive),
        "pieces": pieces,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm-wheel", type=Path, help="the vLLM 0.23.0 wheel (else downloaded)")
    parser.add_argument("--out", type=Path, default=REPO / ".bundle")
    # Two pieces: each fits one device call (64 MiB) beside the tracked tree (about 3.5 MB).
    parser.add_argument("--piece-bytes", type=int, default=61_000_000)
    args = parser.parse_args()

    out: Path = args.out
    work = out / "work"
    wheels = work / "wheels"
    site = work / "site"
    wheels.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(site, ignore_errors=True)

    pip_download(list(DEPENDENCIES), wheels)
    vllm_wheel = args.vllm_wheel
    if vllm_wheel is None:
        pip_download([f"vllm=={VLLM_VERSION}"], work)
        vllm_wheel = next(work.glob(f"vllm-{VLLM_VERSION}-*.whl"))
    install_dependencies(sorted(wheels.glob("*.whl")), site)
    left_out = unpack_trimmed_vllm(vllm_wheel, site)

    manifest = {
        "vllm_wheel": vllm_wheel.name,
        "vllm_wheel_sha256": sha256(vllm_wheel),
        "vllm_left_out": left_out,
        "dependencies": sorted(path.name for path in wheels.glob("*.whl")),
        "site_bytes": sum(f.stat().st_size for f in site.rglob("*") if f.is_file()),
        **pack(site, out, args.piece_bytes),
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps({k: v for k, v in manifest.items() if k != "dependencies"}, indent=1))


if __name__ == "__main__":
    main()
