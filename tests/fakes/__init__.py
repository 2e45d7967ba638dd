"""Shared test fakes: the repository factory, the fake model server, the fake GitHub server."""
