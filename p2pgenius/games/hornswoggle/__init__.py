"""Hornswoggle: a Skull-like bluffing game of face-down doubloons and skulls for two teams of two."""
