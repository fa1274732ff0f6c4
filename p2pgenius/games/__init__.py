"""Pure, deterministic rules engines behind one interface (see :mod:`p2pgenius.games.base`)."""
