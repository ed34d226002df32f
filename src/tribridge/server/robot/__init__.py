"""The robot API: stateless HTTP endpoints that bid and play for a client's seat.

``brill`` (Brill's Pidgin API at ``/apis/brill``), ``ben`` (BEN's API at the server root),
``three`` (the three-player API at ``/apis/3pab``); ``params`` reads their query parameters and
``cardplay`` runs their card decisions. Nothing here keeps state between requests.
"""
