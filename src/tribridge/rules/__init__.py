"""Pure rules of three-player auction bridge: auction, play, scoring, whole deals (no I/O)."""
