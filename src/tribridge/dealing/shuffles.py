"""Riffle shuffles (GSR and Bayer–Diaconis a-shuffles, forward and inverse) and dealing patterns.

Conventions (docs/shuffling.md): positions 0..n-1 top to bottom; a shuffle is a
permutation ``pi`` with the card at position ``i`` moving to position ``pi[i]``.
A dealing pattern ``L`` gives, for each position of the shuffled deck, the player
who receives that card; so the player who receives the card that started at
position ``i`` is ``L[pi[i]]`` (the "owner word" of the deal in source order).

The forward a-shuffle draws a digit in 0..a-1 for every *target* position; target
``j`` receives the next unused card of packet ``d_j`` (packets are cut from the top
in order, packet sizes = digit counts). That is exactly ``pi = stable argsort(d)``.
The *inverse* shuffle sorts the cards by their own random digits and samples
``pi``'s inverse: the same law on permutations up to inversion, hence the same
total variation, but a different law of dealt hands. Never use it to study dealing.
"""

from __future__ import annotations

import numpy as np

from tribridge.errors import InvalidInput

PATTERN_NAMES = ("ordered", "cyclic", "back-and-forth")
SEAT_LETTERS = "NESW"


def _digits(rng: np.random.Generator, a: int, n: int, size: int) -> np.ndarray:
    """Uniform digits 0..a-1, shape (size, n), in the narrowest dtype that sorts fast."""
    if a < 1:
        raise InvalidInput("a", f"an a-shuffle needs a >= 1, got {a}")
    dtype = np.uint8 if a <= 256 else (np.uint16 if a <= 65536 else np.int64)
    return rng.integers(0, a, size=(size, n), dtype=dtype)


def a_shuffle(n: int, a: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """Forward a-shuffle of an n-card deck: ``int16[size, n]`` with ``pi[b, i]`` = new position of card i."""
    if n < 1:
        raise InvalidInput("n", f"the deck needs at least one card, got {n}")
    digits = _digits(rng, a, n, size)
    return np.argsort(digits, axis=1, kind="stable").astype(np.int16)


def riffle_shuffle(n: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """One Gilbert–Shannon–Reeds riffle shuffle (the 2-shuffle), as positions ``pi``."""
    return a_shuffle(n, 2, rng, size)


def k_riffle_shuffles(n: int, shuffles: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """``shuffles`` GSR riffles in one go: a single 2**shuffles-shuffle (Bayer–Diaconis)."""
    if shuffles < 0:
        raise InvalidInput("shuffles", f"expected a number of shuffles >= 0, got {shuffles}")
    if shuffles == 0:
        return np.tile(np.arange(n, dtype=np.int16), (size, 1))
    if shuffles <= 62:
        return a_shuffle(n, 2**shuffles, rng, size)
    raise InvalidInput("shuffles", f"at most 62 shuffles are supported, got {shuffles}")


def inverse_a_shuffle(n: int, a: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """INVERSE a-shuffle (sort cards by random digits): samples pi^-1, not pi. Not for dealing studies."""
    digits = _digits(rng, a, n, size)
    order = np.argsort(digits, axis=1, kind="stable")  # order[j] = card now at position j
    return invert_positions(order)


def digits_to_positions(digits: np.ndarray) -> np.ndarray:
    """Deterministic forward shuffle of given target digits: ``pi = stable argsort(digits)``."""
    return np.argsort(np.asarray(digits), axis=-1, kind="stable")


def invert_positions(pi: np.ndarray) -> np.ndarray:
    """Inverse permutation(s) along the last axis."""
    pi = np.asarray(pi)
    inv = np.empty_like(pi)
    idx = np.arange(pi.shape[-1], dtype=pi.dtype)
    np.put_along_axis(inv, pi.astype(np.int64), np.broadcast_to(idx, pi.shape), axis=-1)
    return inv


def compose_positions(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Positions after shuffle ``first`` then ``second``: card i goes to ``second[first[i]]``."""
    return np.take_along_axis(np.asarray(second), np.asarray(first).astype(np.int64), axis=-1)


def descents(pi: np.ndarray) -> np.ndarray:
    """Number of descents ``#{i: pi[i] > pi[i+1]}`` along the last axis."""
    pi = np.asarray(pi)
    return (pi[..., :-1] > pi[..., 1:]).sum(axis=-1)


def dealing_pattern(pattern: str | np.ndarray | list[int], players: int, hand_size: int) -> np.ndarray:
    """Dealing pattern as ``int8[players*hand_size]`` (player of each shuffled position, top first).

    ``pattern`` is ``ordered`` (1^s 2^s ...), ``cyclic`` ((12..k)^s), ``back-and-forth``
    (12..k k..1 12..k ...), a word of seat letters ``NESW`` or of digits ``1..k``
    (spaces, dashes and commas ignored), or an integer sequence with values 0..k-1.
    """
    if players < 1 or players > 9:
        raise InvalidInput("players", f"expected 1..9 players, got {players}")
    if hand_size < 1:
        raise InvalidInput("hand_size", f"expected a hand size >= 1, got {hand_size}")
    k, s = players, hand_size
    if isinstance(pattern, str):
        name = pattern.strip().lower().replace("_", "-")
        if name == "ordered":
            return np.repeat(np.arange(k, dtype=np.int8), s)
        if name == "cyclic":
            return np.tile(np.arange(k, dtype=np.int8), s)
        if name in ("back-and-forth", "backandforth", "bf"):
            rounds = [np.arange(k) if r % 2 == 0 else np.arange(k)[::-1] for r in range(s)]
            return np.concatenate(rounds).astype(np.int8)
        word = "".join(ch for ch in pattern.strip().upper() if ch not in " -,")
        if word and all(ch in SEAT_LETTERS for ch in word):
            values = [SEAT_LETTERS.index(ch) for ch in word]
        elif word and all(ch.isdigit() and ch != "0" for ch in word):
            values = [int(ch) - 1 for ch in word]
        else:
            raise InvalidInput(
                "pattern",
                f"expected ordered, cyclic, back-and-forth, or a word of NESW / 1..{k}, got {pattern!r}",
            )
    else:
        values = [int(v) for v in np.asarray(pattern).ravel()]
    word_arr = np.asarray(values, dtype=np.int8)
    check_pattern(word_arr, players, hand_size)
    return word_arr


def check_pattern(word: np.ndarray, players: int, hand_size: int) -> None:
    """Raise ``InvalidInput`` unless each of ``players`` players appears exactly ``hand_size`` times."""
    n = players * hand_size
    if len(word) != n:
        raise InvalidInput("pattern", f"a pattern for {players} hands of {hand_size} has {n} letters, got {len(word)}")
    if len(word) and (word.min() < 0 or word.max() >= players):
        raise InvalidInput("pattern", f"players must be numbered 1..{players} (or N, E, S, W)")
    counts = np.bincount(word.astype(np.int64), minlength=players)
    if not np.all(counts == hand_size):
        raise InvalidInput("pattern", f"each player must get {hand_size} cards, got counts {counts.tolist()}")


def pattern_to_word(pattern: np.ndarray) -> str:
    """Text form of a pattern: seat letters for up to 4 players, digits 1..k otherwise."""
    pattern = np.asarray(pattern)
    if pattern.max(initial=0) < 4:
        return "".join(SEAT_LETTERS[v] for v in pattern)
    return "".join(str(int(v) + 1) for v in pattern)


def deck_values(deck: str | list[int] | np.ndarray, n: int) -> np.ndarray:
    """Values of the source deck (top first) as ``int16[n]``, numbered 0..K-1 in order of appearance.

    ``distinct`` (all cards different), ``colors`` (first half one colour, then the
    other; the second part is one card longer for odd n), ``suits`` (four equal blocks, the order of a new pack), or a word such as
    ``BBRRRB`` whose letters are the card values.
    """
    if isinstance(deck, str):
        name = deck.strip().lower()
        if name == "distinct":
            return np.arange(n, dtype=np.int16)
        if name in ("colors", "colours"):
            return np.repeat(np.arange(2, dtype=np.int16), [n // 2, n - n // 2])
        if name == "suits":
            if n % 4:
                raise InvalidInput("deck", f"suits needs a multiple of 4 cards, got {n}")
            return np.repeat(np.arange(4, dtype=np.int16), n // 4)
        word = deck.strip().replace(" ", "")
        if len(word) != n:
            raise InvalidInput("deck", f"a deck word must have {n} letters, got {len(word)} ({deck!r})")
        seen: dict[str, int] = {}
        return np.asarray([seen.setdefault(ch, len(seen)) for ch in word], dtype=np.int16)
    arr = np.asarray(deck).ravel()
    if len(arr) != n:
        raise InvalidInput("deck", f"a deck must have {n} cards, got {len(arr)}")
    _, inverse = np.unique(arr, return_inverse=True)
    first: dict[int, int] = {}
    for v in inverse:
        first.setdefault(int(v), len(first))
    return np.asarray([first[int(v)] for v in inverse], dtype=np.int16)


def owner_words(pi: np.ndarray, pattern: np.ndarray) -> np.ndarray:
    """Player of each source card after shuffle ``pi`` and a deal by ``pattern``: ``pattern[pi]``."""
    return np.asarray(pattern, dtype=np.int8)[np.asarray(pi).astype(np.int64)]


def hand_counts(owners: np.ndarray, values: np.ndarray, players: int) -> np.ndarray:
    """Count table ``[batch, value, player]`` of how many cards of each value each player holds."""
    owners = np.atleast_2d(owners).astype(np.int64)
    values = np.asarray(values, dtype=np.int64)
    n_values = int(values.max()) + 1
    batch = owners.shape[0]
    flat = values[None, :] * players + owners
    cells = n_values * players
    index = (np.arange(batch)[:, None] * cells + flat).ravel()
    out = np.bincount(index, minlength=batch * cells).astype(np.int16)
    return out.reshape(batch, n_values, players)


def deal_bridge(
    rng: np.random.Generator,
    shuffles: int,
    pattern: str | np.ndarray = "cyclic",
    size: int = 1,
    first_seat: int = 0,
) -> np.ndarray:
    """Deals of 4 hands of 13 after ``shuffles`` GSR riffles of a new-pack-ordered deck: ``uint8[size, 52]`` owners.

    The deck starts in card-index order (card c at position c); the pattern's player 0
    is ``first_seat`` (the dealer's left-hand opponent in practice), the rest clockwise.
    """
    word = dealing_pattern(pattern, 4, 13) if not isinstance(pattern, np.ndarray) else pattern
    check_pattern(np.asarray(word), 4, 13)
    pi = k_riffle_shuffles(52, shuffles, rng, size)
    owners = owner_words(pi, word).astype(np.uint8)
    return ((owners + first_seat) % 4).astype(np.uint8)


def deal_three_player(
    rng: np.random.Generator,
    shuffles: int,
    dealer: int,
    pattern: str | np.ndarray = "cyclic",
    size: int = 1,
) -> tuple[np.ndarray, int]:
    """Three-player deal: four hands of 13 dealt from the dealer's left, the widow opposite the dealer.

    Returns ``(owners uint8[size, 52], widow_seat)``; the widow's hand is dealt like any
    other, so its randomness is that of one of the four hands of ``deal_bridge``.
    """
    if dealer not in (0, 1, 2, 3):
        raise InvalidInput("dealer", f"expected a seat 0..3, got {dealer}")
    owners = deal_bridge(rng, shuffles, pattern, size, first_seat=(dealer + 1) % 4)
    return owners, (dealer + 2) % 4
