"""Exceptions shared by every layer of tribridge, and the helpers that keep their messages short."""

__all__ = ["MAX_FIELD_CHARS", "MAX_MESSAGE_CHARS", "IllegalAction", "InvalidInput", "quote", "shorten"]

MAX_FIELD_CHARS = 80
MAX_MESSAGE_CHARS = 300


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, ending with "…" when cut; lone surrogates escaped (UTF-8 safe)."""
    cut = text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


def quote(value: object, limit: int = MAX_FIELD_CHARS) -> str:
    """A repr of ``value`` for an error message, cut to ``limit`` characters with "…" (a long input is never copied whole)."""
    if isinstance(value, (str, bytes)) and len(value) > limit:
        value = value[: limit + 1]  # repr of a prefix: enough to show, never the whole input
        return shorten(repr(value)[:-1], limit)
    return shorten(repr(value), limit)


class InvalidInput(ValueError):
    """Bad input from a user or client; the message names the field and what was expected.

    The field is cut to ``MAX_FIELD_CHARS`` and the message to ``MAX_MESSAGE_CHARS`` characters, so
    an error never echoes a long input back whole.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = shorten(str(field), MAX_FIELD_CHARS)
        self.detail = shorten(str(message), MAX_MESSAGE_CHARS)
        super().__init__(f"{self.field}: {self.detail}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        """Pickle by field and detail (it crosses from a solver process to the server)."""
        return type(self), (self.field, self.detail)


class IllegalAction(InvalidInput):
    """An action the rules do not allow in the current state (a call or a card)."""
