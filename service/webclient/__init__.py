"""The reference web client: its page and static files."""
