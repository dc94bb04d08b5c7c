"""Yoke: an open, provider-agnostic agent harness for coding models."""

__version__ = "0.1.0"
