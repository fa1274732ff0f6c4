"""The I/O layer: keys and transcripts on disk, and (with trio) the network."""
