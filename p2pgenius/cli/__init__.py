"""The ``p2pgenius`` command line."""
