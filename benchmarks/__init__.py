"""Speed and quality benchmarks, each with its baseline measured in the same run: ``python -m benchmarks NAME``."""
