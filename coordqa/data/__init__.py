"""Bundled datasets (package data): the example set and, once built, CoordinationQA v1."""
