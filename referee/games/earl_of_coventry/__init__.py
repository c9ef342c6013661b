"""Earl of Coventry: rules core (pure Python)."""

from referee.games.earl_of_coventry.rules import RULES, EarlOfCoventryRules

__all__ = ["RULES", "EarlOfCoventryRules"]
