"""Differential tests: each game against an independent model written from its rulebook."""
