"""Écarté: rules core (pure Python)."""

from referee.games.ecarte.rules import RULES, EcarteRules

__all__ = ["RULES", "EcarteRules"]
