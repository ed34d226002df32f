"""HTTP server: robot API, three-player tables, durable store, and the web table."""
