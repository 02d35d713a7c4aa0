"""Reports: the verdict collector (clauses.json) and its HTML view; JUnit and Cucumber JSON come
from pytest and pytest-bdd themselves (``--report`` turns them on)."""
