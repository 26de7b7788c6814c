# SPDX-License-Identifier: Apache-2.0
"""Layerwise LMCache engine and vLLM v1 adapter."""
