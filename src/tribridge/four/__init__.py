"""The four-handed game, a wing of its own beside three-player auction bridge.

The robot API also bids and plays ordinary four-handed bridge for its clients (Brill's and BEN's
APIs, ``server.robot``). Everything particular to that game lives here: its rules (``four.rules``:
calls, auction legality and play tracing from one seat's view), the natural bidder with an
explanation for every call (``four.natural4``) and its card play (``four.play``: PIMC over layouts,
with or without what the auction showed). It shares the core types and rules of tribridge:
``rules.auction.Call`` spells and parses every call, ``rules.trick`` decides tricks, ``cards`` gives
seats and cards, ``bots.play`` the PIMC search; three-player code never imports this wing.
"""
