"""pbem: a play-by-email moderator for board games, one moderator serving every game kind (pbem.games)."""

# 0.N.P: N is the number of the newest schema revision (pbem/store/migrations/versions/00NN_*.py), P counts the
# releases without a schema change. A new revision needs a new minor version here (tests/store/test_schema_versions.py
# fails until it has one): the version alone tells a host whether an upgrade migrates the database, and an older
# pbem names the newer one that migrated a database it refuses (pbem.store.schema, docs/running.md "Upgrading").
__version__ = "0.18.0"
