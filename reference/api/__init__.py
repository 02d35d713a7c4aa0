"""Flask blueprints of the reference API: thin layers that parse, validate, call the store, render."""
