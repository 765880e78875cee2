"""How a process serves HTTP: aiohttp's server with the limits on one client's
connections (server.py, counted across the workers by addresses.py), and the front that
answers the 304s memory gives before the app (front.py)."""
