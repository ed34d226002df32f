"""tribridge: three-player auction bridge — rules, the papers' algorithms, studies, bots and a server."""

__version__ = "0.1.0"
