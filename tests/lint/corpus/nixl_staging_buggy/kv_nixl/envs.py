# SPDX-License-Identifier: Apache-2.0
import os

NIXL_SIDE_CHANNEL_HOST = os.getenv("VLLM_NIXL_SIDE_CHANNEL_HOST", "localhost")
NIXL_SIDE_CHANNEL_PORT = int(os.getenv("VLLM_NIXL_SIDE_CHANNEL_PORT", "5600"))
NIXL_SENDER_THREAD_NAME = "nixl-host-sender"
NIXL_SEND_QUEUE_TIMEOUT_S = float(os.getenv("VLLM_NIXL_SEND_QUEUE_TIMEOUT", "1.0"))
NIXL_KV_PLANES = 2
