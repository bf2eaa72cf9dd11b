"""Alembic migrations of the pbem schema (run by ``pbem.store.schema``; see its docstring)."""
