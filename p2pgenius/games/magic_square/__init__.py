"""The Magic Square: colour a 4x4 grid, then place 1..16 keeping it completable to a magic square."""
