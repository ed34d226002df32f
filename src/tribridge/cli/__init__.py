"""Command-line interface: one small module per command group, thin over the layers."""
