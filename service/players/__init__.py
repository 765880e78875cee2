"""Players: names, device tokens, link codes, and who a request comes from."""
