# SPDX-License-Identifier: Apache-2.0
"""NIXL-style P/D KV transfer staged through a pinned host region."""
