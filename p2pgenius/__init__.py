"""p2pgenius: The Genius death-match games, played peer to peer with nobody in the middle."""

__version__ = "0.1.0"
