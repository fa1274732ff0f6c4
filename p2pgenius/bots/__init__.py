"""Bots that can take any seat. They see only what a seat may see and act through the engine."""
