"""The readable twin of the trick estimator's feature kernel (``tricks.trick_features``), for tests."""

from __future__ import annotations

from tribridge.estimators.tricks import N_SLOTS, SLOT_FEATURES

__all__ = ["trick_features_reference"]


def trick_features_reference(
    decl: tuple[int, int, int, int], part: tuple[int, int, int, int], strain: int
) -> list[float]:
    """Readable twin of the feature kernel for one partnership and strain (for tests)."""

    def length(m: int) -> int:
        return bin(m).count("1")

    def points(m: int) -> int:
        return sum(4 - r for r in range(4) if (m >> r) & 1)

    def stopped(m: int) -> bool:
        return any((m >> r) & 1 and length(m) >= r + 1 for r in range(4))

    def rev13(m: int) -> int:
        return int(format(m, "013b")[::-1], 2)

    def slot(d: int, p: int) -> list[float]:
        a, b, both = length(d), length(p), d | p
        top = 0
        while top < 13 and (both >> top) & 1:
            top += 1
        opp = 13 - a - b
        return (
            [a / 4, b / 4, min(a, b) / 4, max(a, b) / 4]
            + [float((d >> r) & 1) for r in range(5)]
            + [float((p >> r) & 1) for r in range(5)]
            + [
                float((both >> 5) & 1),
                float((both >> 6) & 1),
                min(top, max(a, b)) / 4,
                points(both) / 4,
                float(stopped(d) or stopped(p)),
                max(0, max(a, b) - (opp + 1) // 2) / 4,
                opp / 4,
                float(a > 0 and b > 0),
            ]
        )

    feats: list[float] = slot(decl[strain], part[strain]) if strain < 4 else [0.0] * SLOT_FEATURES
    others = [s for s in range(4) if s != strain]

    def key(s: int) -> tuple:
        both = decl[s] | part[s]
        return (length(both), points(both), rev13(both), rev13(decl[s]))

    for s in sorted(others, key=key, reverse=True):
        feats += slot(decl[s], part[s])
    feats += [0.0] * (N_SLOTS * SLOT_FEATURES - len(feats))
    hd = sum(points(m) for m in decl)
    hp = sum(points(m) for m in part)
    feats += [
        hd / 10,
        hp / 10,
        (hd + hp) / 10,
        1.0 if strain == 4 else 0.0,
        min(length(m) for m in decl) / 4,
        min(length(m) for m in part) / 4,
        (hd + hp) ** 2 / 400,
        float(sum(stopped(decl[s]) or stopped(part[s]) for s in range(4))),
        max(length(decl[s] | part[s]) for s in range(4)) / 4,
        abs(hd - hp) / 10,
    ]
    return feats
