#!/usr/bin/env bash
# On the CUDA machine, from the repository root (see benchmarks/e2e/README.md):
#   benchmarks/e2e/device_run.sh stage          copy the carried .bundle files to $STAGE
#   benchmarks/e2e/device_run.sh run [ARGS...]  stage, check the pieces against MANIFEST.json,
#                                               unpack, then run_e2e.py all ARGS into $OUT
#   benchmarks/e2e/device_run.sh serve [ARGS...] the same, then run_serve.py ARGS (vllm serve)
# kvguard comes from the working tree, or from .bundle/kvguard-src.tar when that was carried
# (`git archive -o .bundle/kvguard-src.tar HEAD kvguard benchmarks/e2e`: pins a commit while the
# tree changes; `serve` then runs that commit's run_serve.py too). KVGUARD_E2E_BUNDLE names
# another folder than .bundle.
set -euo pipefail
STAGE=${KVGUARD_E2E_STAGE:-/tmp/kvguard-e2e}
BUNDLE=${KVGUARD_E2E_BUNDLE:-.bundle}
OUT=${OUT:-$PWD/e2e-out}
REPO=$PWD
source=$REPO

stage() {
  mkdir -p "$STAGE"
  for file in "$BUNDLE"/piece-* "$BUNDLE"/MANIFEST.json "$BUNDLE"/kvguard-src.tar; do
    if [ -f "$file" ]; then cp "$file" "$STAGE/"; fi
  done
  ls -l "$STAGE"
}

unpack() {
  python3 - "$STAGE" <<'EOF'
import hashlib, json, pathlib, sys
stage = pathlib.Path(sys.argv[1])
manifest = json.loads((stage / "MANIFEST.json").read_text())
for piece in manifest["pieces"]:
    path = stage / piece["name"]
    if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != piece["sha256"]:
        sys.exit(f"piece {piece['name']} is missing or damaged: carry it again")
print(f"{len(manifest['pieces'])} pieces match MANIFEST.json")
EOF
  if [ ! -d "$STAGE/site" ]; then
    cat "$STAGE"/piece-* | xz -dc -T0 | tar -x -C "$STAGE"
  fi
  if [ -f "$STAGE/kvguard-src.tar" ]; then
    source=$STAGE/kvguard-src
    mkdir -p "$source"
    tar -xf "$STAGE/kvguard-src.tar" -C "$source"
    KVGUARD_COMMIT=$(python3 -c 'import sys, tarfile; print(tarfile.open(sys.argv[1]).pax_headers.get("comment", "unknown"))' "$STAGE/kvguard-src.tar")
    export KVGUARD_COMMIT
  fi
  export PYTHONPATH="$STAGE/site:$source${PYTHONPATH:+:$PYTHONPATH}"
}

# What a run needs first: the bundle staged and unpacked, the output folder, the versions.
prepare() {
  stage
  unpack
  mkdir -p "$OUT"
  echo "kvguard: ${KVGUARD_COMMIT:-working tree}"
  nvidia-smi
}

case "${1:-}" in
  stage)
    stage
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 -c 'import platform, torch; print(platform.python_version(), torch.__version__, torch.version.cuda)'
    ;;
  run)
    shift
    prepare
    # Imports once (and writes the byte code every engine process then reuses).
    python3 -c 'import time; t = time.time(); import vllm, kvguard.vllm; print("vllm", vllm.__version__, "imported in", round(time.time() - t, 1), "s")'
    python3 benchmarks/e2e/run_e2e.py all --out "$OUT" "$@"
    ;;
  serve)
    shift
    prepare
    # From $STAGE: `python3 -c` puts the working directory first on sys.path.
    (cd "$STAGE" && python3 -c 'import time; t = time.time(); import vllm.entrypoints.openai.api_server, kvguard.vllm; print("vllm serve imported in", round(time.time() - t, 1), "s; kvguard from", kvguard.__file__)')
    python3 "$source/benchmarks/e2e/run_serve.py" --out "$OUT" "$@"
    ;;
  *)
    echo "usage: $0 stage | run [run_e2e.py all ARGS] | serve [run_serve.py ARGS]" >&2
    exit 2
    ;;
esac
