"""The upstream store fix (vLLM 0.24.0) backported to a copy of the vLLM 0.23.0 package, as a
fork would carry it: a compute-done event recorded on the requesting thread in get_finished,
carried in the queue payload as ``wait_event``, waited on by the copy thread before
copy_blocks; STREAM order for stores, ANY kept for loads."""

from __future__ import annotations

from pathlib import Path

OFFLOAD = Path("vllm") / "v1" / "simple_kv_offload"

# (file, text in 0.23.0, text of the backport)
EDITS = (
    (
        "worker.py",
        "            if metadata.store_gpu_blocks:\n                self._backend.launch_copy(\n",
        "            if metadata.store_gpu_blocks:\n"
        "                compute_done = torch.Event()\n"
        "                compute_done.record(torch.cuda.current_stream())\n"
        "                self._backend.launch_copy(\n",
    ),
    (
        "worker.py",
        "                    event_idx=metadata.store_event,\n"
        "                    events_list=self._store_events,\n"
        "                )\n",
        "                    event_idx=metadata.store_event,\n"
        "                    events_list=self._store_events,\n"
        "                    wait_event=compute_done,\n"
        "                )\n",
    ),
    (
        "copy_backend.py",
        "        events_list: list[tuple[int, torch.Event]],\n    ) -> None:\n",
        "        events_list: list[tuple[int, torch.Event]],\n"
        "        wait_event: torch.Event | None = None,\n    ) -> None:\n",
    ),
    (
        "copy_backend.py",
        "            (src_blocks, dst_blocks, params, is_store, event_idx, events_list)\n",
        "            (src_blocks, dst_blocks, params, is_store, event_idx, events_list, wait_event)\n",
    ),
    (
        "copy_backend.py",
        "            src_blocks, dst_blocks, params, is_store, event_idx, events_list = item\n"
        "            copy_blocks(src_blocks, dst_blocks, params)\n"
        "            stream = store_stream if is_store else load_stream\n",
        "            (src_blocks, dst_blocks, params, is_store, event_idx, events_list, wait_event) = item\n"
        "            stream = store_stream if is_store else load_stream\n"
        "            if wait_event is not None:\n"
        "                stream.wait_event(wait_event)\n"
        "            copy_blocks(src_blocks, dst_blocks, params)\n",
    ),
    (
        "copy_backend.py",
        "        self._store_params = build_params(gpu_caches, cpu_caches, store_stream)\n"
        "        self._load_params = build_params(cpu_caches, gpu_caches, load_stream)\n",
        "        self._store_params = build_params(\n"
        "            gpu_caches, cpu_caches, store_stream, src_access_order=1)\n"
        "        self._load_params = build_params(cpu_caches, gpu_caches, load_stream, src_access_order=3)\n",
    ),
    (
        "cuda_mem_ops.py",
        "    stream: torch.cuda.Stream,\n) -> BatchMemcpyParams:\n",
        "    stream: torch.cuda.Stream,\n    src_access_order: int = 1,\n) -> BatchMemcpyParams:\n",
    ),
    (
        "cuda_mem_ops.py",
        "    attrs = _CUmemcpyAttributes(srcAccessOrder=3)\n",
        "    attrs = _CUmemcpyAttributes(srcAccessOrder=src_access_order)\n",
    ),
)


def apply(root: Path) -> None:
    """Backport the fix into the vLLM 0.23.0 package copied under ``root`` (``root/vllm``)."""
    for name, before, after in EDITS:
        path = root / OFFLOAD / name
        text = path.read_text()
        if text.count(before) != 1:
            raise ValueError(f"{path}: the 0.23.0 text to replace is not there once: {before!r}")
        path.write_text(text.replace(before, after))
