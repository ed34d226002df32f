"""Hand and partnership estimators: the papers' NT call and capture algorithms, and trick estimators."""
