"""Exceptions shared by every layer of tribridge."""


class InvalidInput(ValueError):
    """Bad input from a user or client; the message names the field and what was expected."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.detail = message
        super().__init__(f"{field}: {message}")


class IllegalAction(InvalidInput):
    """An action the rules do not allow in the current state (a call or a card)."""
