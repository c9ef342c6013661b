"""Referee: a stateless gRPC rules referee for card games."""

__version__ = "0.1.0"
