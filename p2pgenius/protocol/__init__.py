"""The peer-to-peer protocol, sans-IO: bytes and messages in, events and bytes out (protocol/SPEC.md)."""
