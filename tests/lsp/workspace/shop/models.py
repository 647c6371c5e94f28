"""Domain models for the shop example used by the LSP transcripts."""
from dataclasses import dataclass


@dataclass
class Money:
    """An amount in cents."""

    cents: int

    def add(self, other: "Money") -> "Money":
        return Money(self.cents + other.cents)


class Cart:
    """A shopping cart of priced lines."""

    def __init__(self, owner):
        self.owner = owner
        self.lines = []

    def add_line(self, name, price):
        """Adds one priced line to the cart."""
        self.lines.append((name, price))

    def grand_total(self) -> Money:
        result = Money(0)
        for _, price in self.lines:
            result = result.add(price)
        return result
