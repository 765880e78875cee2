"""HTTP handlers: parse the request, call a service function, serialise the answer."""
