"""The robot API: stateless HTTP endpoints that bid and play for a client's seat.

``brill`` (Brill's Pidgin API at ``/apis/brill``), ``ben`` (BEN's API at the server root),
``three`` (the three-player API at ``/apis/3pab``); ``params`` reads their query parameters and
``cardplay`` runs their card decisions. Nothing here keeps state between requests.
"""

ROBOT_DEADLINE_SECONDS = 10.0  # a robot-API request answers within this, or 503 with Retry-After
