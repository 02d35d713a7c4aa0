"""Control loops: each a class with NAME, interval() and reconcile(now), run by loop.LoopRunner."""
