"""Dealing: fast seeded batch dealing, shuffles and dealing patterns, randomness mathematics."""
