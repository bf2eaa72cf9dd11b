"""Alembic migrations of the pbem schema (run by ``pbem.store.migrate``; see its docstring)."""
