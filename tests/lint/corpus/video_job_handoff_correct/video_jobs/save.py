from concurrent.futures import ThreadPoolExecutor

from video_jobs.encoder import FrameEncoder


def _save_one(job) -> str:
    path, frames = job
    encoder = FrameEncoder(path, int(frames.shape[2]), int(frames.shape[3]))
    try:
        encoder.write(frames)
    finally:
        encoder.close()
    return path


def save_videos(samples, out_dir: str, workers: int = 2) -> list[str]:
    """Write each generated sample ([3, t, H, W] on the GPU) to its own file."""
    jobs = [(f"{out_dir}/sample_{i}.rgb", frames) for i, frames in enumerate(samples)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_save_one, jobs))
