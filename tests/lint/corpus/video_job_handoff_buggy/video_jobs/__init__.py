"""Encode generated videos to files on worker threads, frames staged through pinned memory."""
