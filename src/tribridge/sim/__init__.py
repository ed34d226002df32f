"""Studies at scale: the chunked deterministic engine, the papers' studies, matches and reports."""
