"""How the reference is served: the HTTP server (``http``) and the watch hub (``hub``)."""
