"""Player accounts: password rules and hashing (``passwords``), and the accounts over the store (``service``)."""
